/* SPDX-License-Identifier: MIT */
/*
 * One client of the control endpoint (src/live/conn.c): the protocol of
 * docs/live.md as a state machine over byte buffers, without sockets, so
 * that the endpoint thread drives it from poll() and the fuzzer drives it
 * from memory.
 */
#ifndef SLIM_LIVE_CONN_H
#define SLIM_LIVE_CONN_H

#include <stddef.h>
#include <stdint.h>
#include "live/proto.h"

struct slim_ctl_stream;

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

enum live_state {
	LIVE_NEW,		/* HELLO expected */
	LIVE_READY,		/* requests, one at a time */
	LIVE_STREAMING,		/* a trace_pipe streams; only STOP */
	LIVE_CLOSING,		/* send what is queued, then close */
};

struct live_buf {
	unsigned char *data;
	size_t head, len, cap;	/* bytes data[head .. head+len) */
};

struct live_conn {
	enum live_state state;
	int server_pid;
	struct live_buf in;	/* received, not yet handled */
	struct live_buf out;	/* replies not yet sent */
	struct slim_ctl_stream *stream;	/* LIVE_STREAMING: the trace_pipe, open */
	char *stream_path;
	uint32_t stream_seq;
	int stream_hot;		/* the last read found records */
	/* The directories (instances) this client made and has not removed. */
	char **made;
	unsigned int nr_made;
};

void live_conn_init(struct live_conn *c, int server_pid);
void live_conn_free(struct live_conn *c);

/*
 * A fork child: the directories the client made are the client's, and
 * the client is the parent's, so they are removed from the child (as
 * slim_ctl_rmdir; one that cannot be is said on stderr).
 */
void live_conn_drop_made(struct live_conn *c);

/*
 * Room for up to n more received bytes at the end of c->in (returned;
 * NULL when the request being received is already complete or when out
 * of memory); then tell how many arrived with live_conn_received().
 */
unsigned char *live_conn_in_space(struct live_conn *c, size_t *n);
void live_conn_received(struct live_conn *c, size_t n);

/*
 * Handle the requests received, as long as no reply waits to be sent
 * (a client gets one answer at a time: what it does not read stays in
 * its socket, not in this process).  Returns 0, or -1 when the
 * connection must close once out is sent (state LIVE_CLOSING).
 */
int live_conn_process(struct live_conn *c);

/*
 * A streaming connection with nothing left to send reads its trace_pipe
 * again.  Returns 1 if records were queued, 0 if none, -1 on an error
 * (the stream ended with an error DONE).
 */
int live_conn_stream(struct live_conn *c);

/* Queue a DONE reply (an error, before the connection closes). */
void live_conn_refuse(struct live_conn *c, int status, const char *why);

/* Bytes sent: drop them from out. */
void live_conn_sent(struct live_conn *c, size_t n);

#pragma GCC visibility pop

#endif
