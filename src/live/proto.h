/* SPDX-License-Identifier: MIT */
/*
 * The control endpoint's wire format, shared by the library (the server,
 * src/live/) and the slimtrace command (the client).  docs/live.md is
 * the reference; this header is its code.
 *
 * Every message is a 16-byte header and `len` bytes of payload, in the
 * host's byte order (both ends are on one machine):
 *
 *   u32 len     payload bytes after the header
 *   u16 op      SLIM_LIVE_*
 *   u16 flags   0 (anything else is refused)
 *   i32 status  in replies: 0 or -errno; 0 in requests
 *   u32 seq     chosen by the client, echoed in every reply to it
 */
#ifndef SLIM_LIVE_PROTO_H
#define SLIM_LIVE_PROTO_H

#include <stdint.h>
#include <string.h>

#define SLIM_LIVE_MAGIC		0x4c54534cu	/* "LSTL" in memory on x86 */
#define SLIM_LIVE_VERSION	1
#define SLIM_LIVE_HDR_SIZE	16
#define SLIM_LIVE_MAX_REQUEST	(256u * 1024)	/* a request's payload */
#define SLIM_LIVE_MAX_CHUNK	(64u * 1024)	/* a DATA reply's payload */
#define SLIM_LIVE_MAX_PATH	1024

enum slim_live_op {
	/* requests */
	SLIM_LIVE_HELLO = 1,	/* u32 magic, u16 version, u16 0 */
	SLIM_LIVE_READ,		/* path: DATA... DONE */
	SLIM_LIVE_WRITE,	/* u32 path length, path, text: DONE */
	SLIM_LIVE_APPEND,	/* as WRITE */
	SLIM_LIVE_MKDIR,	/* path: DONE */
	SLIM_LIVE_RMDIR,	/* path: DONE */
	SLIM_LIVE_LIST,		/* path of a directory: DATA... DONE */
	SLIM_LIVE_STAT,		/* path: DONE with "d" or "f" and "r"/"-", "w"/"-" */
	SLIM_LIVE_STREAM,	/* path of a trace_pipe: DATA as records come... */
	SLIM_LIVE_STOP,		/* ...until this (seq of the STREAM): DONE */
	SLIM_LIVE_NR_REQUESTS,

	/* replies */
	SLIM_LIVE_DATA = 0x100,	/* a piece of the answer */
	SLIM_LIVE_DONE,		/* the end of the answer: status, and for an
				   error a text saying why (error_log's entry) */
};

struct slim_live_hdr {
	uint32_t len;
	uint16_t op;
	uint16_t flags;
	int32_t status;
	uint32_t seq;
};

/* The HELLO payloads: the client's, and the server's in its DONE. */
struct slim_live_hello {
	uint32_t magic;
	uint16_t version;
	uint16_t zero;
	int32_t pid;		/* the server's; 0 from the client */
};
#define SLIM_LIVE_HELLO_SIZE	12

static inline void slim_live_hdr_pack(unsigned char *buf, const struct slim_live_hdr *h)
{
	memcpy(buf, &h->len, 4);
	memcpy(buf + 4, &h->op, 2);
	memcpy(buf + 6, &h->flags, 2);
	memcpy(buf + 8, &h->status, 4);
	memcpy(buf + 12, &h->seq, 4);
}

static inline void slim_live_hdr_unpack(struct slim_live_hdr *h, const unsigned char *buf)
{
	memcpy(&h->len, buf, 4);
	memcpy(&h->op, buf + 4, 2);
	memcpy(&h->flags, buf + 6, 2);
	memcpy(&h->status, buf + 8, 4);
	memcpy(&h->seq, buf + 12, 4);
}

static inline void slim_live_hello_pack(unsigned char *buf, const struct slim_live_hello *h)
{
	memcpy(buf, &h->magic, 4);
	memcpy(buf + 4, &h->version, 2);
	memcpy(buf + 6, &h->zero, 2);
	memcpy(buf + 8, &h->pid, 4);
}

static inline void slim_live_hello_unpack(struct slim_live_hello *h, const unsigned char *buf)
{
	memcpy(&h->magic, buf, 4);
	memcpy(&h->version, buf + 4, 2);
	memcpy(&h->zero, buf + 6, 2);
	memcpy(&h->pid, buf + 8, 4);
}

#endif
