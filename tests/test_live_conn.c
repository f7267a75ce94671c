// SPDX-License-Identifier: MIT
/*
 * The control protocol's server side in memory (src/live/conn.c), with
 * no socket: the namespace listing against the control calls, every
 * request and its reply, requests split at every byte and run together,
 * streaming, chunked answers, and 20000 mutated inputs whose replies
 * must all be well-formed frames and after which the settings are what
 * they were.
 */
#include <errno.h>
#include <slimtrace/ctl.h>
#include "check.h"
#include "mutate.h"
#include "live/conn.h"
#include "live/proto.h"

void conn_fire(int n);

struct reply {
	uint16_t op;
	int32_t status;
	uint32_t seq;
	char *payload;
	uint32_t len;
};

static struct reply replies[64];
static int nr_replies;
static size_t reply_bytes;

static void replies_reset(void)
{
	int i;

	for (i = 0; i < nr_replies; i++)
		free(replies[i].payload);
	nr_replies = 0;
	reply_bytes = 0;
}

/* Take everything queued; -1 if it is not a run of well-formed replies. */
static int drain(struct live_conn *c)
{
	int bad = 0;

	while (c->out.len) {
		struct slim_live_hdr h;
		const unsigned char *p = c->out.data + c->out.head;

		if (c->out.len < SLIM_LIVE_HDR_SIZE)
			return -1;
		slim_live_hdr_unpack(&h, p);
		if (c->out.len < SLIM_LIVE_HDR_SIZE + h.len || h.flags ||
		    (h.op != SLIM_LIVE_DATA && h.op != SLIM_LIVE_DONE) ||
		    (h.op == SLIM_LIVE_DATA && (h.len > SLIM_LIVE_MAX_CHUNK || h.status)) ||
		    h.status > 0 || h.status < -4095)
			bad = 1;
		if (bad)
			return -1;
		if (nr_replies < 64) {
			struct reply *r = &replies[nr_replies++];

			r->op = h.op;
			r->status = h.status;
			r->seq = h.seq;
			r->len = h.len;
			r->payload = malloc(h.len + 1);
			memcpy(r->payload, p + SLIM_LIVE_HDR_SIZE, h.len);
			r->payload[h.len] = '\0';
		}
		reply_bytes += h.len;
		live_conn_sent(c, SLIM_LIVE_HDR_SIZE + h.len);
	}
	return 0;
}

/* Give c the bytes, n at a time (0: all at once), handling as it goes. */
static int feed(struct live_conn *c, const unsigned char *bytes, size_t len, size_t step)
{
	size_t off = 0;
	int bad = 0;

	while (off < len && c->state != LIVE_CLOSING) {
		size_t n = step && step < len - off ? step : len - off;
		unsigned char *p = live_conn_in_space(c, &n);

		if (!p)
			break;
		memcpy(p, bytes + off, n);
		live_conn_received(c, n);
		off += n;
		/* As the endpoint does: answer, send, and on while there is more. */
		for (;;) {
			live_conn_process(c);
			live_conn_stream(c);
			if (!c->out.len)
				break;
			bad |= drain(c);
		}
	}
	return bad ? -1 : 0;
}

static size_t put(unsigned char *m, uint16_t op, uint32_t seq, const void *payload, size_t len)
{
	struct slim_live_hdr h = { (uint32_t)len, op, 0, 0, seq };

	slim_live_hdr_pack(m, &h);
	memcpy(m + SLIM_LIVE_HDR_SIZE, payload, len);
	return SLIM_LIVE_HDR_SIZE + len;
}

static size_t put_hello(unsigned char *m, uint16_t version)
{
	struct slim_live_hello h = { SLIM_LIVE_MAGIC, version, 0, 0 };
	unsigned char b[SLIM_LIVE_HELLO_SIZE];

	slim_live_hello_pack(b, &h);
	return put(m, SLIM_LIVE_HELLO, 1, b, sizeof(b));
}

static size_t put_write(unsigned char *m, uint16_t op, uint32_t seq, const char *path,
			const char *text)
{
	unsigned char b[512];
	uint32_t plen = strlen(path);

	memcpy(b, &plen, 4);
	memcpy(b + 4, path, plen);
	memcpy(b + 4 + plen, text, strlen(text));
	return put(m, op, seq, b, 4 + plen + strlen(text));
}

static char *rd(const char *path)
{
	static char *last;

	free(last);
	last = slim_ctl_read(path);
	return last ? last : "(null)";
}

/* ---- LIST and STAT: the namespace's own listing -------------------------------------- */

static int one(struct live_conn *c, uint16_t op, const char *path)
{
	unsigned char m[1200];
	size_t n = put(m, op, 50, path, strlen(path));

	replies_reset();
	return feed(c, m, n, 0);
}

static void test_listing(void)
{
	static const char *const dirs[] = { "/", "events", "events/live", "events/live/live_tick",
					    "instances" };
	static const struct { const char *path, *kind; } stats[] = {
		{ "/", "d" }, { "events", "d" }, { "events/", "d" }, { "//events//live/", "d" },
		{ "set_event", "f" }, { "events/live/live_tick/format", "f" }, { "instances", "d" },
		{ "events/enable", "f" },
	};
	static const char *const missing[] = {
		"nosuch", "events/nosys", "events/live/nosuch", "events/live/live_tick/nosuch",
		"events/live/live_tick/enable/x", "set_event/x", "instances/none",
	};
	unsigned char m[64];
	struct live_conn c;
	size_t i;

	live_conn_init(&c, 1);
	feed(&c, m, put_hello(m, SLIM_LIVE_VERSION), 0);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *want = slim_ctl_list(dirs[i]);

		CHECK_EQ_INT(one(&c, SLIM_LIVE_LIST, dirs[i]), 0);
		CHECK(nr_replies >= 1 && replies[nr_replies - 1].status == 0);
		if (want && *want)
			CHECK_EQ_STR(replies[0].payload, want);
		free(want);
	}
	for (i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		CHECK_EQ_INT(one(&c, SLIM_LIVE_STAT, stats[i].path), 0);
		if (!CHECK(nr_replies == 1 && replies[0].status == 0))
			fprintf(stderr, "     STAT %s\n", stats[i].path);
		else
			CHECK_EQ_STR(replies[0].payload, stats[i].kind);
	}
	for (i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
		CHECK_EQ_INT(one(&c, SLIM_LIVE_STAT, missing[i]), 0);
		if (!CHECK(nr_replies == 1 && replies[0].status == -ENOENT))
			fprintf(stderr, "     STAT %s\n", missing[i]);
	}
	/* Instances come and go with mkdir and rmdir. */
	CHECK_EQ_INT(one(&c, SLIM_LIVE_MKDIR, "instances/x"), 0);
	CHECK(nr_replies == 1 && replies[0].status == 0);
	CHECK_EQ_INT(one(&c, SLIM_LIVE_STAT, "instances/x"), 0);
	CHECK_EQ_STR(replies[0].payload, "d");
	CHECK_EQ_INT(one(&c, SLIM_LIVE_STAT, "instances/x/trace_pipe"), 0);
	CHECK_EQ_STR(replies[0].payload, "f");
	CHECK_EQ_INT(one(&c, SLIM_LIVE_MKDIR, "instances/x"), 0);
	CHECK(nr_replies == 1 && replies[0].status == -EEXIST);
	CHECK_EQ_INT(one(&c, SLIM_LIVE_RMDIR, "instances/x"), 0);
	CHECK(nr_replies == 1 && replies[0].status == 0);
	CHECK_EQ_INT(one(&c, SLIM_LIVE_RMDIR, "instances/x"), 0);
	CHECK(nr_replies == 1 && replies[0].status == -ENOENT);
	replies_reset();
	live_conn_free(&c);
}

/* ---- requests and replies -------------------------------------------------------- */

static void test_requests(void)
{
	unsigned char m[4096];
	struct live_conn c;
	struct slim_live_hello hl;
	size_t n;

	live_conn_init(&c, 4242);
	n = put_hello(m, SLIM_LIVE_VERSION);
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK_EQ_INT(nr_replies, 1);
	CHECK(replies[0].op == SLIM_LIVE_DONE && replies[0].status == 0 && replies[0].seq == 1);
	CHECK_EQ_INT(replies[0].len, SLIM_LIVE_HELLO_SIZE);
	slim_live_hello_unpack(&hl, (unsigned char *)replies[0].payload);
	CHECK(hl.magic == SLIM_LIVE_MAGIC && hl.version == SLIM_LIVE_VERSION && hl.pid == 4242);
	CHECK_EQ_INT(c.state, LIVE_READY);
	replies_reset();

	n = put(m, SLIM_LIVE_READ, 2, "available_events", 16);
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK_EQ_INT(nr_replies, 2);
	CHECK(replies[0].op == SLIM_LIVE_DATA && replies[0].seq == 2);
	CHECK_EQ_STR(replies[0].payload,
		     "live:live_tick\nlive:live_parse\nlive:live_reply\nlive:live_msg\n");
	CHECK(replies[1].op == SLIM_LIVE_DONE && replies[1].status == 0 && replies[1].len == 0);
	replies_reset();

	n = put_write(m, SLIM_LIVE_WRITE, 3, "set_event", "live_tick live_parse\n");
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK(nr_replies == 1 && replies[0].status == 0);
	CHECK_EQ_STR(rd("set_event"), "live:live_tick\nlive:live_parse\n");
	replies_reset();
	n = put_write(m, SLIM_LIVE_APPEND, 4, "set_event", "!live_parse");
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK_EQ_STR(rd("set_event"), "live:live_tick\n");
	replies_reset();

	/* A refused write: its errno, and the entry it wrote to error_log. */
	n = put_write(m, SLIM_LIVE_WRITE, 5, "events/live/live_tick/filter", "a == ");
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK(nr_replies == 1 && replies[0].status == -EINVAL);
	CHECK(strstr(replies[0].payload, "] event filter parse error: error: ") != NULL);
	CHECK(strstr(replies[0].payload, "  Command: a == \n") != NULL);
	replies_reset();
	/* Failing again the same way is a new entry, and is reported too. */
	n = put_write(m, SLIM_LIVE_WRITE, 6, "events/live/live_tick/filter", "a == ");
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK(nr_replies == 1 && replies[0].status == -EINVAL && replies[0].len > 0);
	replies_reset();
	/* A refusal that writes no entry has no text. */
	n = put_write(m, SLIM_LIVE_WRITE, 7, "events/live/live_tick/format", "x");
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK(nr_replies == 1 && replies[0].status == -EACCES);
	CHECK(strstr(replies[0].payload, "File is read-only") != NULL);
	replies_reset();

	n = put(m, SLIM_LIVE_LIST, 8, "/", 1);
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK(nr_replies == 2 && replies[1].status == 0);
	CHECK(strncmp(replies[0].payload, "available_events\nset_event\n", 27) == 0);
	replies_reset();
	n = put(m, SLIM_LIVE_STAT, 9, "events/live/live_msg/id", 23);
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK(nr_replies == 1 && replies[0].status == 0);
	CHECK_EQ_STR(replies[0].payload, "f");
	replies_reset();
	n = put(m, SLIM_LIVE_MKDIR, 10, "instances", 9);
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK(nr_replies == 1 && replies[0].status < 0);
	replies_reset();

	/* Streaming: records as they are committed, until STOP. */
	slim_ctl_write("trace", "");
	n = put(m, SLIM_LIVE_STREAM, 11, "trace_pipe", 10);
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK_EQ_INT(c.state, LIVE_STREAMING);
	conn_fire(3);
	CHECK_EQ_INT(live_conn_stream(&c), 1);
	CHECK_EQ_INT(drain(&c), 0);
	CHECK(nr_replies == 1 && replies[0].op == SLIM_LIVE_DATA && replies[0].seq == 11);
	CHECK(strstr(replies[0].payload, "live_tick: a=2 b=4") != NULL);
	CHECK(strstr(replies[0].payload, "live_parse") == NULL);
	replies_reset();
	CHECK_EQ_INT(live_conn_stream(&c), 0);
	n = put(m, SLIM_LIVE_STOP, 11, "", 0);
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK(nr_replies == 1 && replies[0].op == SLIM_LIVE_DONE && replies[0].seq == 11);
	CHECK_EQ_INT(c.state, LIVE_READY);
	replies_reset();

	/* An answer beyond one DATA comes in pieces. */
	slim_ctl_write("buffer_size_kb", "1024");
	conn_fire(8000);
	n = put(m, SLIM_LIVE_READ, 12, "trace", 5);
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK(nr_replies > 3 && replies[0].len == SLIM_LIVE_MAX_CHUNK);
	CHECK(replies[nr_replies - 1].op == SLIM_LIVE_DONE);
	CHECK(reply_bytes > 3 * SLIM_LIVE_MAX_CHUNK);
	replies_reset();
	slim_ctl_write("set_event", "");
	slim_ctl_write("trace", "");
	live_conn_free(&c);
}

/* The same requests, whole, byte by byte, and run together. */
static void test_splits(void)
{
	unsigned char m[4096];
	char *whole;
	size_t n = 0, step;
	struct live_conn c;
	int i;

	n += put_hello(m + n, SLIM_LIVE_VERSION);
	n += put(m + n, SLIM_LIVE_READ, 2, "set_event", 9);
	n += put(m + n, SLIM_LIVE_STAT, 3, "events", 6);
	n += put(m + n, 99, 4, "", 0);
	n += put(m + n, SLIM_LIVE_LIST, 5, "events/live", 11);
	n += put(m + n, SLIM_LIVE_READ, 6, "events/live/live_msg/format", 27);
	whole = NULL;
	for (step = 0; step <= 17; step = step ? step * 2 + 1 : 1) {
		size_t len = 0;
		char *all;

		live_conn_init(&c, 1);
		CHECK_EQ_INT(feed(&c, m, n, step), 0);
		all = malloc(1);
		all[0] = '\0';
		for (i = 0; i < nr_replies; i++) {
			all = realloc(all, len + replies[i].len + 32);
			len += sprintf(all + len, "%u/%u/%d:", replies[i].seq, replies[i].op,
				       replies[i].status);
			/* HELLO's answer is binary: its length only. */
			if (replies[i].seq == 1) {
				len += sprintf(all + len, "%u;", replies[i].len);
				continue;
			}
			memcpy(all + len, replies[i].payload, replies[i].len);
			len += replies[i].len;
			all[len] = '\0';
		}
		CHECK_EQ_INT(nr_replies, 8);
		if (!whole)
			whole = all;
		else {
			CHECK_EQ_STR(all, whole);
			free(all);
		}
		replies_reset();
		live_conn_free(&c);
	}
	if (!CHECK(strstr(whole, "4/257/-95:") != NULL))	/* EOPNOTSUPP, and on it went */
		fprintf(stderr, "%s\n", whole);
	free(whole);
}

static void test_framing(void)
{
	unsigned char m[256];
	struct live_conn c;
	size_t n;

	/* Before HELLO. */
	live_conn_init(&c, 1);
	n = put(m, SLIM_LIVE_READ, 2, "trace", 5);
	CHECK_EQ_INT(feed(&c, m, n, 0), 0);
	CHECK(nr_replies == 1 && replies[0].status == -EPROTO && c.state == LIVE_CLOSING);
	CHECK(live_conn_in_space(&c, &n) == NULL);
	replies_reset();
	live_conn_free(&c);

	/* Too long: refused from the header alone, before the payload comes. */
	live_conn_init(&c, 1);
	n = put_hello(m, SLIM_LIVE_VERSION);
	feed(&c, m, n, 0);
	replies_reset();
	{
		struct slim_live_hdr h = { SLIM_LIVE_MAX_REQUEST + 1, SLIM_LIVE_READ, 0, 0, 3 };

		slim_live_hdr_pack(m, &h);
	}
	CHECK_EQ_INT(feed(&c, m, SLIM_LIVE_HDR_SIZE, 0), 0);
	CHECK(nr_replies == 1 && replies[0].status == -EMSGSIZE && c.state == LIVE_CLOSING);
	replies_reset();
	live_conn_free(&c);

	/* The largest request is taken whole. */
	live_conn_init(&c, 1);
	{
		unsigned char *big = calloc(1, SLIM_LIVE_HDR_SIZE * 2 + SLIM_LIVE_HELLO_SIZE +
					       SLIM_LIVE_MAX_REQUEST);
		struct slim_live_hdr h = { SLIM_LIVE_MAX_REQUEST, SLIM_LIVE_WRITE, 0, 0, 3 };
		uint32_t plen = 9;

		n = put_hello(big, SLIM_LIVE_VERSION);
		slim_live_hdr_pack(big + n, &h);
		memcpy(big + n + SLIM_LIVE_HDR_SIZE, &plen, 4);
		memcpy(big + n + SLIM_LIVE_HDR_SIZE + 4, "set_event", 9);
		memset(big + n + SLIM_LIVE_HDR_SIZE + 13, ' ', SLIM_LIVE_MAX_REQUEST - 13);
		CHECK_EQ_INT(feed(&c, big, n + SLIM_LIVE_HDR_SIZE + SLIM_LIVE_MAX_REQUEST, 4000), 0);
		CHECK(nr_replies == 2 && replies[1].status == 0 && replies[1].seq == 3);
		free(big);
	}
	replies_reset();
	live_conn_free(&c);
}

/* ---- mutations ---------------------------------------------------------------------- */

static char *settings(void)
{
	static const char *const files[] = {
		"set_event", "tracing_on", "buffer_size_kb", "trace_clock", "trace_options",
		"events/live/live_tick/filter", "events/live/live_parse/filter", "record",
	};
	char *all = strdup("");
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *t = slim_ctl_read(files[i]);

		all = realloc(all, strlen(all) + strlen(files[i]) + (t ? strlen(t) : 5) + 3);
		strcat(all, files[i]);
		strcat(all, "=");
		strcat(all, t ? t : "(err)");
		strcat(all, ";");
		free(t);
	}
	return all;
}

static size_t seed(unsigned char *m, unsigned int k)
{
	static const char *const paths[] = {
		"available_events", "set_event", "events/live", "events/live/live_tick/format",
		"trace_options", "error_log", "events", "trace",
	};
	static const uint16_t ops[] = { SLIM_LIVE_READ, SLIM_LIVE_LIST, SLIM_LIVE_STAT };
	const char *p = paths[k % 8];
	size_t n = put_hello(m, SLIM_LIVE_VERSION);

	n += put(m + n, ops[k / 8 % 3], 2, p, strlen(p));
	if (k % 5 == 0) {
		n += put(m + n, SLIM_LIVE_STREAM, 3, "trace_pipe", 10);
		n += put(m + n, SLIM_LIVE_STOP, 3, "", 0);
	}
	n += put(m + n, ops[k / 24 % 3], 4, p, strlen(p));
	return n;
}

static void test_mutations(void)
{
	unsigned char m[1024];
	char *before = settings(), *after;
	int it, bad = 0, iterations = 20000;

	slim_ctl_write("set_event", "live_tick");
	free(before);
	before = settings();
	srand(4242);
	for (it = 0; it < iterations; it++) {
		size_t n = mutate(m, seed(m, it), sizeof(m));
		struct live_conn c;

		if (it % 100 == 0)
			conn_fire(20);
		live_conn_init(&c, 1);
		if (feed(&c, m, n, 1 + rand() % 64)) {
			if (!bad++)
				fprintf(stderr, "     mutation %d: a malformed reply\n", it);
		}
		replies_reset();
		live_conn_free(&c);
	}
	CHECK_EQ_INT(bad, 0);
	after = settings();
	CHECK_EQ_STR(after, before);
	free(before);
	free(after);
	slim_ctl_write("set_event", "");
}

int main(void)
{
	check_watchdog("live_conn", 300);
	test_listing();
	test_requests();
	test_splits();
	test_framing();
	test_mutations();
	return check_done("live_conn");
}
