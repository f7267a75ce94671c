/* SPDX-License-Identifier: MIT */
#ifndef CV_RECORD_H
#define CV_RECORD_H
/* Record the test's trace into PATH (lossy: one thread, losing events); 0 or < 0. */
int cv_record(const char *path, int lossy);
#endif
