// SPDX-License-Identifier: MIT
/*
 * The control protocol, one connection at a time (docs/live.md).
 *
 * Framing errors (a length beyond the limit, flags or status set in a
 * request, anything before HELLO, a second HELLO, a reply sent as a
 * request) get an error DONE and the connection closes: after them the
 * byte stream cannot be trusted.  A request the server does not know, or
 * one that fails, gets an error DONE and the connection stays.  Nothing
 * changes state before a request has been received whole and checked.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <slimtrace/ctl.h>
#include "live/conn.h"

#define IN_LIMIT	(SLIM_LIVE_HDR_SIZE + SLIM_LIVE_MAX_REQUEST)
#define IN_FIRST	4096
#define STREAM_MAX	(1L << 20)	/* trace_pipe bytes queued per turn */

void live_conn_init(struct live_conn *c, int server_pid)
{
	memset(c, 0, sizeof(*c));
	c->state = LIVE_NEW;
	c->server_pid = server_pid;
}

static void made_forget_all(struct live_conn *c)
{
	while (c->nr_made)
		free(c->made[--c->nr_made]);
	free(c->made);
	c->made = NULL;
}

void live_conn_free(struct live_conn *c)
{
	free(c->in.data);
	free(c->out.data);
	slim_ctl_close(c->stream);
	free(c->stream_path);
	made_forget_all(c);
	memset(c, 0, sizeof(*c));
}

/* Out of memory: the directory stays in a fork child, as before this list. */
static void made_add(struct live_conn *c, const char *path)
{
	char **m = realloc(c->made, (c->nr_made + 1) * sizeof(*m));

	if (!m)
		return;
	c->made = m;
	if ((m[c->nr_made] = strdup(path)))
		c->nr_made++;
}

static void made_del(struct live_conn *c, const char *path)
{
	unsigned int i;

	for (i = 0; i < c->nr_made; i++) {
		if (strcmp(c->made[i], path))
			continue;
		free(c->made[i]);
		c->made[i] = c->made[--c->nr_made];
		return;
	}
}

void live_conn_drop_made(struct live_conn *c)
{
	unsigned int i;
	int ret;

	for (i = c->nr_made; i-- > 0;) {
		ret = slim_ctl_rmdir(c->made[i]);
		if (ret && ret != -ENOENT)
			fprintf(stderr, "slimtrace: pid %d: %s, a client's, stays in this fork "
				"child: %s\n", (int)getpid(), c->made[i], strerror(-ret));
	}
	made_forget_all(c);
}

/* ---- buffers --------------------------------------------------------------- */

static int buf_reserve(struct live_buf *b, size_t more, size_t limit)
{
	size_t need, cap;
	unsigned char *d;

	if (b->head && b->head + b->len + more > b->cap) {
		memmove(b->data, b->data + b->head, b->len);
		b->head = 0;
	}
	need = b->len + more;
	if (need > limit)
		return -EMSGSIZE;
	if (need <= b->cap)
		return 0;
	for (cap = b->cap ? b->cap : IN_FIRST; cap < need; cap *= 2)
		;
	if (cap > limit)
		cap = limit;
	d = realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

unsigned char *live_conn_in_space(struct live_conn *c, size_t *n)
{
	size_t room = IN_LIMIT - c->in.len;

	if (c->state == LIVE_CLOSING || !room)
		return NULL;
	if (*n > room)
		*n = room;
	if (buf_reserve(&c->in, *n, IN_LIMIT))
		return NULL;
	return c->in.data + c->in.head + c->in.len;
}

void live_conn_received(struct live_conn *c, size_t n)
{
	c->in.len += n;
}

void live_conn_sent(struct live_conn *c, size_t n)
{
	if (n > c->out.len)
		n = c->out.len;
	c->out.head += n;
	c->out.len -= n;
	if (!c->out.len)
		c->out.head = 0;
}

/* Out of memory for a reply: nothing sensible can be sent. */
static void lost(struct live_conn *c)
{
	c->out.len = 0;
	c->out.head = 0;
	c->state = LIVE_CLOSING;
}

static void put_msg(struct live_conn *c, uint16_t op, int32_t status, uint32_t seq,
		    const void *payload, size_t len)
{
	struct slim_live_hdr h = { (uint32_t)len, op, 0, status, seq };

	if (buf_reserve(&c->out, SLIM_LIVE_HDR_SIZE + len, (size_t)-1)) {
		lost(c);
		return;
	}
	slim_live_hdr_pack(c->out.data + c->out.head + c->out.len, &h);
	c->out.len += SLIM_LIVE_HDR_SIZE;
	if (len)
		memcpy(c->out.data + c->out.head + c->out.len, payload, len);
	c->out.len += len;
}

static void put_data(struct live_conn *c, uint32_t seq, const char *data, size_t len)
{
	size_t n;

	for (; len && c->state != LIVE_CLOSING; data += n, len -= n) {
		n = len < SLIM_LIVE_MAX_CHUNK ? len : SLIM_LIVE_MAX_CHUNK;
		put_msg(c, SLIM_LIVE_DATA, 0, seq, data, n);
	}
}

static void done(struct live_conn *c, uint32_t seq, int status, const char *why)
{
	put_msg(c, SLIM_LIVE_DONE, status, seq, why, why ? strlen(why) : 0);
}

static void donef(struct live_conn *c, uint32_t seq, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void donef(struct live_conn *c, uint32_t seq, int status, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	done(c, seq, status, why);
}

void live_conn_refuse(struct live_conn *c, int status, const char *why)
{
	done(c, 0, status, why);
	c->state = LIVE_CLOSING;
}

static int fatal(struct live_conn *c, uint32_t seq, int status, const char *why)
{
	done(c, seq, status, why);
	c->state = LIVE_CLOSING;
	return -1;
}

/* ---- what a failed call wrote to error_log ----------------------------------- */

/* Does the namespace list name (a file, or a directory with '/') in dir? */
static int listed(const char *dir, const char *name, size_t n)
{
	char *text = slim_ctl_list(dir), *line;
	int found = 0;

	for (line = text; line && *line && !found; line += strcspn(line, "\n") + 1) {
		size_t len = strcspn(line, "\n");

		found = len == n && !memcmp(line, name, n);
		if (!line[len])
			break;
	}
	free(text);
	return found;
}

/* The error_log a path's errors go to: its instance's, or the top one. */
static char *error_log_of(const char *path)
{
	const char *name, *slash;
	char log[SLIM_LIVE_MAX_PATH + 32];

	while (*path == '/')
		path++;
	name = path + 10;
	if (strncmp(path, "instances/", 10) == 0 && (slash = strchr(name, '/')) &&
	    slash > name && listed("instances", name, slash - name + 1)) {
		snprintf(log, sizeof(log), "%.*s/error_log", (int)(slash - path), path);
		return slim_ctl_read(log);
	}
	return slim_ctl_read("error_log");
}

/* The newest entry of a path's error_log, or NULL. */
static char *last_error(const char *path)
{
	char *log = error_log_of(path), *e, *p, *ret = NULL;

	if (!log)
		return NULL;
	for (e = log, p = log; (p = strstr(p, "\n[")); p++)
		e = p + 1;
	if (*e == '[')
		ret = strdup(e);
	free(log);
	return ret;
}

/*
 * A failed call's entry in error_log: the newest one, if it was not
 * there before the call.  The same text the program would read from its
 * own error_log (a thread of the program failing at the same moment
 * could slip its entry in instead: the log has no owner field).
 */
static void done_err(struct live_conn *c, uint32_t seq, int status, const char *path,
		     const char *before)
{
	char *why = last_error(path);

	if (why && before && strcmp(why, before) == 0) {
		free(why);
		why = NULL;
	}
	done(c, seq, status, why);
	free(why);
}

/* ---- requests ---------------------------------------------------------------- */

/* A path from the wire: 1 .. MAX_PATH bytes without NUL, as a string. */
static char *take_path(struct live_conn *c, uint32_t seq, const unsigned char *p, size_t n)
{
	char *path;

	if (!n || n > SLIM_LIVE_MAX_PATH || memchr(p, 0, n)) {
		donef(c, seq, -EINVAL, "a path is 1 to %u bytes without a NUL", SLIM_LIVE_MAX_PATH);
		return NULL;
	}
	path = strndup((const char *)p, n);
	if (!path)
		lost(c);
	return path;
}

static void do_hello(struct live_conn *c, const struct slim_live_hdr *h, const unsigned char *p)
{
	struct slim_live_hello in, out = { SLIM_LIVE_MAGIC, SLIM_LIVE_VERSION, 0, c->server_pid };
	unsigned char buf[SLIM_LIVE_HELLO_SIZE];

	if (h->len != SLIM_LIVE_HELLO_SIZE) {
		fatal(c, h->seq, -EPROTO, "HELLO has 12 bytes");
		return;
	}
	slim_live_hello_unpack(&in, p);
	if (in.magic != SLIM_LIVE_MAGIC || in.zero) {
		fatal(c, h->seq, -EPROTO, "not a slimtrace control client (bad HELLO)");
		return;
	}
	slim_live_hello_pack(buf, &out);
	if (in.version != SLIM_LIVE_VERSION) {
		/* The server's version in the reply, so that the client can say. */
		put_msg(c, SLIM_LIVE_DONE, -EPROTONOSUPPORT, h->seq, buf, sizeof(buf));
		c->state = LIVE_CLOSING;
		return;
	}
	put_msg(c, SLIM_LIVE_DONE, 0, h->seq, buf, sizeof(buf));
	c->state = LIVE_READY;
}

static void do_read(struct live_conn *c, uint32_t seq, const char *path)
{
	size_t len = 0;
	char *before = last_error(path), *text = slim_ctl_read_len(path, &len);
	int err = errno;

	if (!text) {
		done_err(c, seq, -err, path, before);
		free(before);
		return;
	}
	free(before);
	put_data(c, seq, text, len);
	free(text);
	done(c, seq, 0, NULL);
}

static void do_write(struct live_conn *c, const struct slim_live_hdr *h, const unsigned char *p)
{
	uint32_t plen;
	char *path, *text, *before;
	int ret;

	if (h->len < 4) {
		done(c, h->seq, -EINVAL, "WRITE starts with the path's length");
		return;
	}
	memcpy(&plen, p, 4);
	if (plen > h->len - 4) {
		donef(c, h->seq, -EINVAL, "path length %u is beyond the message", plen);
		return;
	}
	if (memchr(p + 4 + plen, 0, h->len - 4 - plen)) {
		done(c, h->seq, -EINVAL, "the text holds a NUL byte");
		return;
	}
	path = take_path(c, h->seq, p + 4, plen);
	if (!path)
		return;
	text = strndup((const char *)p + 4 + plen, h->len - 4 - plen);
	if (!text) {
		free(path);
		lost(c);
		return;
	}
	before = last_error(path);
	ret = h->op == SLIM_LIVE_APPEND ? slim_ctl_append(path, text) : slim_ctl_write(path, text);
	if (ret)
		done_err(c, h->seq, ret, path, before);
	else
		done(c, h->seq, 0, NULL);
	free(before);
	free(text);
	free(path);
}

static void do_dir(struct live_conn *c, uint32_t seq, uint16_t op, const char *path)
{
	char *before = last_error(path);
	int ret = op == SLIM_LIVE_MKDIR ? slim_ctl_mkdir(path) : slim_ctl_rmdir(path);

	if (ret) {
		done_err(c, seq, ret, path, before);
	} else {
		if (op == SLIM_LIVE_MKDIR)
			made_add(c, path);
		else
			made_del(c, path);
		done(c, seq, 0, NULL);
	}
	free(before);
}

static void do_list(struct live_conn *c, uint32_t seq, const char *path)
{
	char *text = slim_ctl_list(path);

	if (!text) {
		done(c, seq, -errno, NULL);
		return;
	}
	put_data(c, seq, text, strlen(text));
	free(text);
	done(c, seq, 0, NULL);
}

/*
 * What a path is: the top, or an entry of its parent's listing: "d" or
 * "f".  -ENOENT when the parent does not list it.
 */
static int path_kind(const char *path, char *kind)
{
	const char *end, *base;
	char *parent;
	size_t n;
	int found;

	while (*path == '/')
		path++;
	end = path + strlen(path);
	while (end > path && end[-1] == '/')
		end--;
	if (end == path) {
		*kind = 'd';
		return 0;
	}
	for (base = end; base > path && base[-1] != '/'; base--)
		;
	n = end - base;
	parent = strndup(path, base - path);
	if (!parent)
		return -ENOMEM;
	found = 0;
	{
		char *name = malloc(n + 2);

		if (name) {
			memcpy(name, base, n);
			name[n] = '/';
			name[n + 1] = '\0';
			if (listed(parent, name, n + 1))
				found = 'd';
			else if (listed(parent, name, n))
				found = 'f';
			free(name);
		}
	}
	free(parent);
	if (!found)
		return -ENOENT;
	*kind = (char)found;
	return 0;
}

static void do_stat(struct live_conn *c, uint32_t seq, const char *path)
{
	char kind;
	int ret = path_kind(path, &kind);

	if (ret)
		done(c, seq, ret, NULL);
	else
		put_msg(c, SLIM_LIVE_DONE, 0, seq, &kind, 1);
}

static void do_stream(struct live_conn *c, uint32_t seq, char *path)
{
	const char *base = strrchr(path, '/');
	char *before;
	int err = 0;

	base = base ? base + 1 : path;
	if (strcmp(base, "trace_pipe") != 0) {
		donef(c, seq, -EINVAL, "only a trace_pipe streams; %s is not one", path);
		free(path);
		return;
	}
	/* Open for as long as it streams: its instance is busy meanwhile. */
	before = last_error(path);
	c->stream = slim_ctl_open(path, &err);
	if (!c->stream) {
		done_err(c, seq, err, path, before);
		free(before);
		free(path);
		return;
	}
	free(before);
	c->state = LIVE_STREAMING;
	c->stream_path = path;
	c->stream_seq = seq;
	c->stream_hot = 1;
}

static void end_stream(struct live_conn *c, int status, const char *why)
{
	done(c, c->stream_seq, status, why);
	slim_ctl_close(c->stream);
	c->stream = NULL;
	free(c->stream_path);
	c->stream_path = NULL;
	if (c->state == LIVE_STREAMING)
		c->state = LIVE_READY;
}

/* A request with a path as its whole payload. */
static void do_path_op(struct live_conn *c, const struct slim_live_hdr *h, const unsigned char *p)
{
	char *path = take_path(c, h->seq, p, h->len);

	if (!path)
		return;
	switch (h->op) {
	case SLIM_LIVE_READ:
		do_read(c, h->seq, path);
		break;
	case SLIM_LIVE_MKDIR:
	case SLIM_LIVE_RMDIR:
		do_dir(c, h->seq, h->op, path);
		break;
	case SLIM_LIVE_LIST:
		do_list(c, h->seq, path);
		break;
	case SLIM_LIVE_STAT:
		do_stat(c, h->seq, path);
		break;
	case SLIM_LIVE_STREAM:
		do_stream(c, h->seq, path);
		return;		/* the stream keeps the path */
	}
	free(path);
}

static int is_request(uint16_t op)
{
	return op >= SLIM_LIVE_READ && op < SLIM_LIVE_NR_REQUESTS;
}

static void handle_streaming(struct live_conn *c, const struct slim_live_hdr *h)
{
	if (h->op != SLIM_LIVE_STOP)
		donef(c, h->seq, -EBUSY, "a trace_pipe streams on this connection: STOP it first");
	else if (h->seq != c->stream_seq)
		donef(c, h->seq, -EINVAL, "STOP %u: the stream is %u", h->seq, c->stream_seq);
	else
		end_stream(c, 0, NULL);
}

static void handle(struct live_conn *c, const struct slim_live_hdr *h, const unsigned char *p)
{
	if (h->op == SLIM_LIVE_HELLO) {
		if (c->state == LIVE_NEW)
			do_hello(c, h, p);
		else
			fatal(c, h->seq, -EPROTO, "HELLO twice");
		return;
	}
	if (c->state == LIVE_NEW) {
		fatal(c, h->seq, -EPROTO, "the first message must be HELLO");
		return;
	}
	if (h->op == SLIM_LIVE_DATA || h->op == SLIM_LIVE_DONE) {
		fatal(c, h->seq, -EPROTO, "a reply sent as a request");
		return;
	}
	if (!is_request(h->op)) {
		donef(c, h->seq, -EOPNOTSUPP, "no request %u in protocol version %u",
		      h->op, SLIM_LIVE_VERSION);
		return;
	}
	if (c->state == LIVE_STREAMING)
		handle_streaming(c, h);
	else if (h->op == SLIM_LIVE_STOP)
		done(c, h->seq, -EINVAL, "STOP: nothing streams");
	else if (h->op == SLIM_LIVE_WRITE || h->op == SLIM_LIVE_APPEND)
		do_write(c, h, p);
	else
		do_path_op(c, h, p);
}

int live_conn_process(struct live_conn *c)
{
	struct slim_live_hdr h;
	const unsigned char *m;

	while (c->state != LIVE_CLOSING && !c->out.len && c->in.len >= SLIM_LIVE_HDR_SIZE) {
		m = c->in.data + c->in.head;
		slim_live_hdr_unpack(&h, m);
		if (h.len > SLIM_LIVE_MAX_REQUEST) {
			char why[96];

			snprintf(why, sizeof(why), "a request of %u bytes: the most is %u",
				 h.len, SLIM_LIVE_MAX_REQUEST);
			return fatal(c, h.seq, -EMSGSIZE, why);
		}
		if (h.flags || h.status)
			return fatal(c, h.seq, -EPROTO, "a request has flags and status 0");
		if (c->in.len < SLIM_LIVE_HDR_SIZE + h.len)
			break;
		handle(c, &h, m + SLIM_LIVE_HDR_SIZE);
		c->in.head += SLIM_LIVE_HDR_SIZE + h.len;
		c->in.len -= SLIM_LIVE_HDR_SIZE + h.len;
		if (!c->in.len)
			c->in.head = 0;
	}
	return c->state == LIVE_CLOSING ? -1 : 0;
}

int live_conn_stream(struct live_conn *c)
{
	char buf[SLIM_LIVE_MAX_CHUNK];
	long n, total = 0;

	if (c->state != LIVE_STREAMING || c->out.len)
		return 0;
	/* What is there now, without waiting, and not without end. */
	do {
		n = slim_ctl_stream_read(c->stream, buf, sizeof(buf), 0);
		if (n > 0) {
			put_data(c, c->stream_seq, buf, (size_t)n);
			total += n;
		}
	} while (n > 0 && total < STREAM_MAX && c->state == LIVE_STREAMING);
	if (n < 0) {
		end_stream(c, (int)n, NULL);
		return -1;
	}
	c->stream_hot = total > 0;
	return total > 0;
}
