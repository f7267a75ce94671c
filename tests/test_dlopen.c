// SPDX-License-Identifier: MIT
/*
 * Events of a shared object appear when it is opened and disappear when
 * it is closed: the kernel's module load and unload.  Their records stay,
 * readable in the trace file and in a recording.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/uio.h>
#include <slimtrace/ctl.h>
#include <slimtrace/dynevent.h>
#include <slimtrace/output.h>
#include <slimtrace/record.h>
#include "check.h"
#include "records.h"

static struct test_record recs[8];

static int probe_hits;

static void probe(int v, void *data)
{
	(void)data;
	probe_hits += v;
}

static void *open_plugin(void (**fire)(int))
{
	void *h = dlopen("./libslim_plugin.so", RTLD_NOW);

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return NULL;
	}
	*fire = (void (*)(int))(uintptr_t)dlsym(h, "plugin_fire");
	return h;
}

/* The text of a file, malloc'd ("" when missing). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);
	size_t n = 0;

	if (f && buf)
		n = fread(buf, 1, (1 << 20) - 1, f);
	if (f)
		fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/*
 * A trigger of an event that stays (a dynamic one) names the library's
 * event in enable_event: when the library goes, the trigger goes with
 * it, and firing the event that stays touches nothing freed (ASan).
 */
static void test_trigger_across_dlclose(void)
{
	struct slim_dynevent *keep = NULL;
	void (*fire)(int);
	struct iovec iov;
	uint32_t v = 1;
	char *t;
	void *h;

	if (!CHECK(slim_dynevent_create("u:keeper u32 v", &keep) == 0))
		return;
	h = open_plugin(&fire);
	if (!CHECK(h != NULL))
		goto out;
	CHECK_EQ_INT(slim_ctl_write("events/user_events/keeper/enable", "1"), 0);
	CHECK_EQ_INT(slim_ctl_write("events/user_events/keeper/trigger",
				    "enable_event:plugin:plugin_ev"), 0);
	t = slim_ctl_read("events/user_events/keeper/trigger");
	CHECK(t && strstr(t, "enable_event:plugin:plugin_ev:unlimited"));
	free(t);
	CHECK_EQ_INT(dlclose(h), 0);
	t = slim_ctl_read("events/user_events/keeper/trigger");
	CHECK(t && !strstr(t, "plugin_ev"));
	free(t);
	iov.iov_base = &v;
	iov.iov_len = sizeof(v);
	CHECK_EQ_INT(slim_dynevent_fire(keep, &iov, 1), 0);
	CHECK_EQ_INT(slim_ctl_write("events/user_events/keeper/enable", "0"), 0);
out:
	slim_dynevent_release(keep);
	CHECK_EQ_INT(slim_ctl_write("dynamic_events", ""), 0);
}

/*
 * Recording while a library comes and goes: its records reach the file
 * with its format, so trace-cmd reads them as they were, not as unknown.
 */
static void test_record_across_dlclose(void)
{
	void (*fire)(int) = NULL;
	struct slim_event *ev;
	char *out, *err;
	void *h;
	int rc;

	unlink("dlopen-rec.dat");
	CHECK_EQ_INT(slim_record_start("dlopen-rec.dat"), 0);
	h = open_plugin(&fire);
	ev = h ? slim_event_find("plugin", "plugin_ev") : NULL;
	if (!CHECK(ev != NULL && fire != NULL))
		return;
	CHECK_EQ_INT(slim_event_enable(ev, 1), 0);
	fire(11);
	fire(12);
	CHECK_EQ_INT(dlclose(h), 0);
	CHECK_EQ_INT(slim_record_stop(), 0);
	rc = system("trace-cmd report -i dlopen-rec.dat > dlopen-rec.out 2> dlopen-rec.err");
	CHECK_EQ_INT(rc, 0);
	out = slurp("dlopen-rec.out");
	err = slurp("dlopen-rec.err");
	CHECK(out && strstr(out, "plugin_ev:") && strstr(out, "v=11") && strstr(out, "v=12"));
	CHECK(out && !strstr(out, "UNKNOWN"));
	CHECK_EQ_STR(err, "");
	free(out);
	free(err);
}

/*
 * A filter naming a function is compiled under the event mutex and asks
 * the dynamic linker for the symbol; a dlopen in another thread holds
 * the linker's lock while its constructors register events, which takes
 * the event mutex.  Neither may wait for the other: a hang is a failure
 * (the watchdog), and every filter write and every open succeeds.
 */
static int churn_stop;

static void *churn_filters(void *arg)
{
	long *refused = arg;

	while (!__atomic_load_n(&churn_stop, __ATOMIC_RELAXED)) {
		*refused += slim_ctl_write("events/user_events/fnaddr/filter",
					   "addr.function == main") != 0;
		*refused += slim_ctl_write("events/user_events/fnaddr/filter", "0") != 0;
	}
	return NULL;
}

static void test_symbols_while_dlopen(void)
{
	struct slim_dynevent *ev = NULL;
	void (*fire)(int);
	long refused = 0;
	int i, opened = 0;
	pthread_t th;
	void *h;

	if (!CHECK(slim_dynevent_create("u:fnaddr u64 addr", &ev) == 0))
		return;
	check_watchdog("symbols_while_dlopen", 60);
	__atomic_store_n(&churn_stop, 0, __ATOMIC_RELAXED);
	CHECK_EQ_INT(pthread_create(&th, NULL, churn_filters, &refused), 0);
	for (i = 0; i < 300; i++) {
		h = open_plugin(&fire);
		opened += h != NULL;
		if (h)
			dlclose(h);
	}
	__atomic_store_n(&churn_stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	alarm(0);
	CHECK_EQ_INT(opened, 300);
	CHECK_EQ_INT(refused, 0);
	slim_dynevent_release(ev);
	CHECK_EQ_INT(slim_ctl_write("dynamic_events", ""), 0);
}

int main(void)
{
	void (*fire)(int) = NULL;
	struct slim_event *ev;
	char line[128];
	struct slim_seq s, p;
	char scratch[128];
	void *h;
	char *t;
	int id;

	CHECK(slim_event_find("plugin", "plugin_ev") == NULL);
	CHECK(slim_tracepoint_find("plugin_tp") == NULL);

	h = open_plugin(&fire);
	CHECK(h != NULL && fire != NULL);
	if (!h || !fire)
		return check_done("dlopen");
	ev = slim_event_find("plugin", "plugin_ev");
	CHECK(ev != NULL);
	if (!ev)
		return check_done("dlopen");
	id = ev->event.type;
	CHECK(id > 0);
	CHECK_EQ_STR(slim_event_system(ev), "plugin");
	CHECK(slim_tracepoint_find("plugin_tp") != NULL);

	CHECK_EQ_INT(slim_event_enable(ev, 1), 0);
	CHECK_EQ_INT(slim_tracepoint_probe_register_name("plugin_tp",
			(slim_probe_func)probe, NULL), 0);
	fire(5);
	CHECK_EQ_INT(probe_hits, 5);
	CHECK_EQ_INT(test_records(recs, 8), 1);
	CHECK_EQ_INT(test_record_type(&recs[0]), id);
	slim_seq_init(&s, line, sizeof(line));
	slim_seq_init(&p, scratch, sizeof(scratch));
	slim_event_funcs(ev)->trace(&s, &p, ev, recs[0].data, recs[0].len);
	CHECK_EQ_STR(line, "v=5 who=plugin");

	/*
	 * Unload: the events go, their records stay (unlike the kernel on
	 * module unload), readable from a kept copy of the format, and the
	 * id stays taken.
	 */
	/* A filter, then a refused one: its error shows in the filter file. */
	CHECK_EQ_INT(slim_ctl_write("events/plugin/plugin_ev/filter", "v > 3"), 0);
	CHECK_EQ_INT(slim_ctl_write("events/plugin/plugin_ev/filter", "v >"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write("events/plugin/filter", "v > 1"), 0);
	CHECK_EQ_INT(dlclose(h), 0);
	CHECK(slim_event_find("plugin", "plugin_ev") == NULL);
	CHECK(slim_event_by_id(id) == NULL);
	CHECK(slim_tracepoint_find("plugin_tp") == NULL);
	CHECK_EQ_INT(test_records(recs, 8), 1);
	t = slim_ctl_read("trace");
	CHECK(t && strstr(t, "plugin_ev: v=5 who=plugin\n"));
	free(t);
	fire = NULL;

	/* Load again: back, disabled, with its old id and no old probes. */
	h = open_plugin(&fire);
	CHECK(h != NULL);
	if (!h)
		return check_done("dlopen");
	ev = slim_event_find("plugin", "plugin_ev");
	CHECK(ev != NULL && !(ev->flags & SLIM_EVENT_FL_ENABLED));
	CHECK_EQ_INT(ev ? ev->event.type : -1, id);
	/* The event file went with the event: no old filter, no old error. */
	t = slim_ctl_read("events/plugin/plugin_ev/filter");
	CHECK_EQ_STR(t, "none\n");
	free(t);
	t = slim_ctl_read("events/plugin/filter");
	CHECK(t != NULL);
	free(t);
	CHECK_EQ_INT(slim_ctl_write("events/plugin/filter", "0"), 0);
	fire(7);
	CHECK_EQ_INT(probe_hits, 5);
	CHECK_EQ_INT(test_records(recs, 8), 1);
	/* The old record reads with the event's own printer again. */
	t = slim_ctl_read("trace");
	CHECK(t && strstr(t, "plugin_ev: v=5 who=plugin\n"));
	free(t);
	CHECK_EQ_INT(dlclose(h), 0);
	test_record_across_dlclose();
	test_trigger_across_dlclose();
	test_symbols_while_dlopen();
	return check_done("dlopen");
}
