// SPDX-License-Identifier: MIT
/*
 * Recording to disk: the buffers' pages, drained while the program runs,
 * in trace-cmd's trace.dat format (version 6).  docs/trace-dat.md has the
 * layout and the reasons.
 *
 * The files of a recording to PATH:
 *
 *   PATH         always a complete trace.dat; without data until the end
 *   PATH.cpuN    the pages of buffer N, appended as they are drained
 *   PATH.part    the next version of PATH, renamed over it when written
 *
 * A trace.dat holds each CPU's pages in one piece, and buffers appear and
 * grow while the program runs, so the pages go to one file per buffer and
 * are copied behind the header at the end (what trace-cmd record does).
 *
 * Three kinds of callers touch the files: the consumer thread, a fatal
 * signal handler on any other thread, and the thread that stops the
 * recording.  They take turns through `owner`, a flag taken with a
 * compare-and-swap and never waited on with a lock, because a signal
 * handler cannot block on one.  What the handler runs (drain, write_file)
 * uses only system calls on files and memory prepared beforehand.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <slimtrace/output.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "core/internal.h"
#include "record/record.h"

#define PAGE		SLIM_RB_PAGE_SIZE
#define DATA		SLIM_RB_DATA_SIZE
#define COMMIT_MASK	(SLIM_RB_MISSED_STORED - 1)
#define BATCH		64	/* pages per write(2) */
#define SPARE		16	/* buffers and rings a signal handler may add */
#define POLL_NS		1000000L	/* the consumer looks every 1 ms... */
#define BUSY_PAGES	8		/* ...or at once after this many pages */
#define SIG_WAIT_MS	5000	/* a handler waits this long for the consumer */
#define EXTEND_LIMIT	(1ull << 59)	/* what a time extend can carry */
#define STAT_ROOM	256	/* tail bytes per buffer: CPUSTAT and index */

enum { OWN_NONE, OWN_CONSUMER, OWN_SIGNAL };
enum drain_mode {
	DRAIN_FULL,	/* closed pages, skip a buffer someone else reads */
	DRAIN_ALL,	/* the page being filled too, wait for the read lock */
	DRAIN_SIGNAL,	/* everything, try the read lock a few times */
};

#define OWED_MAX	4

/* What a ring still owes the file: lost events not yet put on a page. */
struct rec_ring {
	struct slim_rb *rb;
	uint64_t drops_seen;	/* dropped + nested events noticed so far */
	int nr_owed;
	struct {
		uint64_t count;	/* lost events noticed... */
		uint64_t after;	/* ...to go on the first page after this one */
	} owed[OWED_MAX];	/* oldest first */
};

/* One buffer: a CPU of the file. */
struct rec_cpu {
	struct slim_buffer *b;	/* NULL: no buffer with this number seen */
	struct slim_rb *rb;	/* the ring last drained */
	int fd;			/* PATH.cpuN */
	int ring;		/* index of rb in rings */
	uint64_t bytes;		/* whole pages written to fd */
	uint64_t events;	/* events in them */
	uint64_t last_ts;	/* time of the last event written */
	uint64_t end_seq;	/* this pass stops at this page */
	struct slim_rb_stats stat;	/* of rb, when it was last drained */
	uint64_t pass;		/* the pass end_seq belongs to */
};

struct rec {
	struct slim_bufset *bufs;	/* the buffers recorded */
	int clock_id;			/* their clock when recording started */
	char *path, *part, *name;	/* name: scratch for PATH.cpuN */
	size_t name_len;		/* strlen(path) */
	int convert;			/* stamps are cycles: write ns */
	char clock[32];			/* trace_clock text */
	char uname[300];		/* the UNAME option */

	/* Used by whoever holds owner. */
	struct rec_cpu *cpus;
	int nr_cpus, cap_cpus;
	struct rec_ring *rings;
	int nr_rings, cap_rings;
	unsigned char *stage;		/* BATCH pages */
	unsigned char *scratch;		/* one page */
	int used;			/* pages in stage */
	struct slim_clock_calib *tab;
	size_t ntab;
	unsigned char *meta;		/* the file up to the cmdlines */
	size_t meta_len;
	unsigned char *tail;		/* the rest of the header */
	size_t tail_cap;
	struct rec_pid *pids;		/* threads seen in the pages */
	unsigned int nr_pids, cap_pids;
	int pids_new;
	char *cmd_text;			/* room for the cmdlines text */
	size_t cmd_cap;
	int meta_has_cmdlines;		/* a recovered header: meta has them */
	int32_t last_pid;		/* the last one noted */
	uint64_t event_sig;		/* the events the metadata has */
	uint64_t pass;
	uint64_t pages;			/* read from the rings */
	int in_signal;
	int err;

	/* Shared: atomics. */
	int owner;
	int finished;
	int consumer_tid;

	/* The consumer thread and its callers, under lock. */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake, synced;
	int stop, exited;
	uint64_t sync_req, sync_done;
};

static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rec *active;		/* under api_lock */
static struct rec *sig_rec;		/* what a signal handler sees (atomic) */
static int handlers_in;			/* signal handlers running (atomic) */
static const unsigned char zeros[PAGE];

/* ---- header texts -------------------------------------------------------- */

static char header_page[320];
static pthread_once_t header_once = PTHREAD_ONCE_INIT;

static void make_header_page(void)
{
	snprintf(header_page, sizeof(header_page),
		 "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		 "\tfield: char data;\toffset:16;\tsize:%u;\tsigned:0;\n",
		 DATA);
}

const char *slim_record_header_page(void)
{
	pthread_once(&header_once, make_header_page);
	return header_page;
}

const char *slim_record_header_event(void)
{
	return "# compressed entry header\n"
	       "\ttype_len    :    5 bits\n"
	       "\ttime_delta  :   27 bits\n"
	       "\tarray       :   32 bits\n"
	       "\n"
	       "\tpadding     : type == 29\n"
	       "\ttime_extend : type == 30\n"
	       "\ttime_stamp : type == 31\n"
	       "\tdata max type_len  == 28\n";
}

/* ---- async-signal-safe helpers ------------------------------------------ */

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Bytes appended to memory allocated beforehand; `over` if they did not fit. */
struct wbuf {
	unsigned char *p;
	size_t len, cap;
	int over;
};

static void put(struct wbuf *w, const void *s, size_t n)
{
	if (!n)
		return;
	if (n > w->cap - w->len) {
		w->over = 1;
		return;
	}
	memcpy(w->p + w->len, s, n);
	w->len += n;
}

static void put_str(struct wbuf *w, const char *s)
{
	put(w, s, strlen(s));
}

static void put_u16(struct wbuf *w, uint16_t v)
{
	put(w, &v, sizeof(v));
}

static void put_u32(struct wbuf *w, uint32_t v)
{
	put(w, &v, sizeof(v));
}

static void put_u64(struct wbuf *w, uint64_t v)
{
	put(w, &v, sizeof(v));
}

static void put_dec(struct wbuf *w, uint64_t v)
{
	char buf[24];
	int i = sizeof(buf);

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(w, buf + i, sizeof(buf) - (size_t)i);
}

/* The first error of a recording, said once.  Not from a signal handler. */
static void set_err(struct rec *r, int err)
{
	if (err && !r->err) {
		r->err = err;
		fprintf(stderr, "slimtrace: recording to %s: %s\n", r->path, strerror(-err));
	}
}

/* r->name = PATH.cpuN */
static const char *cpu_file(struct rec *r, int cpu)
{
	struct wbuf w = { (unsigned char *)r->name, r->name_len, r->name_len + 32, 0 };

	put_str(&w, ".cpu");
	put_dec(&w, (uint64_t)cpu);
	put(&w, "", 1);
	return r->name;
}

/* ---- cycles to ns --------------------------------------------------------- */

/* Stamps went back (a new page) or past the segment: find theirs. */
static uint64_t conv_search(struct slim_record_conv *cv, uint64_t raw)
{
	const struct slim_clock_calib *tab = cv->tab;
	size_t lo = 0, hi = cv->n;

	if (cv->i < cv->n && raw >= tab[cv->i].tsc_base)
		lo = cv->i;	/* forward: a few steps at most */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab[mid].tsc_base <= raw)
			lo = mid;
		else
			hi = mid;
	}
	cv->i = lo;
	return slim_clock_seg_ns(&tab[lo], raw);
}

static inline uint64_t conv_ns(struct slim_record_conv *cv, uint64_t raw)
{
	const struct slim_clock_calib *c = cv->tab + cv->i;

	if (cv->i < cv->n && raw >= c->tsc_base &&
	    (cv->i + 1 == cv->n || raw < c[1].tsc_base))
		return c->ns_base + slim_clock_mul_shift(raw - c->tsc_base, c->mult, c->shift);
	return cv->n ? conv_search(cv, raw) : raw;
}

uint64_t slim_record_conv_ns(struct slim_record_conv *cv, uint64_t raw)
{
	return conv_ns(cv, raw);
}

/* ---- the events in a page ------------------------------------------------ */

struct raw_event {
	uint32_t type;
	uint32_t delta;
	uint32_t size;
	uint32_t array0;
	const unsigned char *p;
};

static void decode_hdr(uint32_t hdr, uint32_t *type, uint32_t *delta)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	*type = hdr >> SLIM_RB_DELTA_BITS;
	*delta = hdr & SLIM_RB_DELTA_MAX;
#else
	*type = hdr & 31;
	*delta = hdr >> 5;
#endif
}

/* The event at *off of data[0, n); 0 at the end or at anything malformed. */
static inline int next_event(const unsigned char *data, uint32_t n, uint32_t *off,
		      struct raw_event *e)
{
	uint32_t hdr, left = n - *off;

	if (*off >= n || left < 4)
		return 0;
	e->p = data + *off;
	memcpy(&hdr, e->p, 4);
	decode_hdr(hdr, &e->type, &e->delta);
	e->array0 = 0;
	if (e->type == 0 || e->type >= SLIM_RB_TYPE_PADDING) {
		if (left < 8)
			return 0;
		memcpy(&e->array0, e->p + 4, 4);
	}
	if (e->type == 0)
		e->size = e->array0 >= 4 ? 4 + e->array0 : 0;
	else if (e->type <= SLIM_RB_TYPE_DATA_MAX)
		e->size = 4 + 4 * e->type;
	else if (e->type == SLIM_RB_TYPE_PADDING)
		e->size = e->delta ? 4 + e->array0 : left;
	else
		e->size = 8;
	if (e->size < 4 || e->size > left)
		return 0;
	*off += e->size;
	return 1;
}

/* The time after e, from the time before it. */
static uint64_t event_time(const struct raw_event *e, uint64_t t)
{
	if (e->type == SLIM_RB_TYPE_TIME_EXTEND)
		return t + ((uint64_t)e->array0 << SLIM_RB_DELTA_BITS | e->delta);
	if (e->type == SLIM_RB_TYPE_TIME_STAMP)
		return (uint64_t)e->array0 << SLIM_RB_DELTA_BITS | e->delta;
	return t + e->delta;
}

/* The writer's thread id, from a data event's common header; 0 if none. */
static int32_t event_pid(const struct raw_event *e)
{
	const unsigned char *payload = e->p + (e->type ? 4 : 8);
	uint32_t len = e->type ? 4 * e->type : e->array0 - 4;
	int32_t pid;

	if (len < 8)
		return 0;
	memcpy(&pid, payload + 4, sizeof(pid));
	return pid;
}

/* ---- threads seen: the saved cmdlines ------------------------------------ */

/*
 * The thread ids found in the pages, with their names: a hash table the
 * consumer grows, and with room to spare for the signal path, which
 * cannot allocate.  A name is looked up when the metadata is refreshed.
 */
struct rec_pid {
	int32_t pid;		/* 0: a free slot */
	char comm[16];		/* "" until known */
};

static int pid_grow(struct rec *r)
{
	unsigned int cap = r->cap_pids ? 2 * r->cap_pids : 64, i, j;
	struct rec_pid *t = calloc(cap, sizeof(*t));
	char *text = malloc((size_t)cap * 32);

	if (!t || !text) {
		free(t);
		free(text);
		return -ENOMEM;
	}
	for (i = 0; i < r->cap_pids; i++) {
		if (!r->pids[i].pid)
			continue;
		for (j = (uint32_t)r->pids[i].pid & (cap - 1); t[j].pid; j = (j + 1) & (cap - 1))
			;
		t[j] = r->pids[i];
	}
	free(r->pids);
	free(r->cmd_text);
	r->pids = t;
	r->cap_pids = cap;
	r->cmd_text = text;
	r->cmd_cap = (size_t)cap * 32;
	return 0;
}

static void pid_note(struct rec *r, int32_t pid)
{
	unsigned int i, mask;

	if (pid == r->last_pid || pid <= 0)
		return;
	r->last_pid = pid;
	if (2 * (r->nr_pids + 1) > r->cap_pids && (r->in_signal || pid_grow(r)))
		return;
	mask = r->cap_pids - 1;
	for (i = (uint32_t)pid & mask; r->pids[i].pid; i = (i + 1) & mask)
		if (r->pids[i].pid == pid)
			return;
	r->pids[i].pid = pid;
	r->pids[i].comm[0] = '\0';
	r->nr_pids++;
	r->pids_new = 1;
}

/* The thread's name now, from /proc: 0 or -1.  Async-signal-safe. */
static int proc_comm(int32_t pid, char comm[16])
{
	char path[48];
	struct wbuf w = { (unsigned char *)path, 0, sizeof(path), 0 };
	ssize_t n;
	int fd;

	put_str(&w, "/proc/self/task/");
	put_dec(&w, (uint64_t)pid);
	put(&w, "/comm", 6);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, comm, 15);
	close(fd);
	if (n <= 0)
		return -1;
	if (comm[n - 1] == '\n')
		n--;
	comm[n] = '\0';
	return n ? 0 : -1;
}

/* Names for the threads seen since last time: the saved name, or /proc's. */
static void name_pids(struct rec *r)
{
	unsigned int i;

	for (i = 0; i < r->cap_pids; i++) {
		struct rec_pid *p = &r->pids[i];

		if (!p->pid || p->comm[0])
			continue;
		slim_cmdline_get(p->pid, p->comm);
		if (strcmp(p->comm, "<...>") == 0 && proc_comm(p->pid, p->comm))
			p->comm[0] = '\0';	/* try again next time */
	}
}

/* The saved cmdlines text ("pid name" lines) into cmd_text: its length. */
static size_t build_cmdlines(struct rec *r)
{
	struct wbuf w = { (unsigned char *)r->cmd_text, 0, r->cmd_cap, 0 };
	unsigned int i;

	for (i = 0; i < r->cap_pids; i++) {
		struct rec_pid *p = &r->pids[i];

		if (!p->pid)
			continue;
		if (!p->comm[0] && proc_comm(p->pid, p->comm))
			memcpy(p->comm, "<...>", 6);
		put_dec(&w, (uint64_t)p->pid);
		put(&w, " ", 1);
		put_str(&w, p->comm);
		put(&w, "\n", 1);
	}
	return w.len;
}

/* ---- room for buffers and rings ------------------------------------------ */

static int grow_cpus(struct rec *r, int need)
{
	int cap = need + SPARE, i;
	struct rec_cpu *c;
	unsigned char *tail;
	size_t tail_cap = 1024 + sizeof(r->uname) + (size_t)cap * STAT_ROOM;

	c = realloc(r->cpus, (size_t)cap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	r->cpus = c;
	for (i = r->cap_cpus; i < cap; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		c[i].fd = -1;
		c[i].ring = -1;
	}
	r->cap_cpus = cap;
	tail = realloc(r->tail, tail_cap);
	if (!tail)
		return -ENOMEM;
	r->tail = tail;
	r->tail_cap = tail_cap;
	return 0;
}

static int grow_rings(struct rec *r)
{
	int cap = r->nr_rings + 1 + SPARE;
	struct rec_ring *g = realloc(r->rings, (size_t)cap * sizeof(*g));

	if (!g)
		return -ENOMEM;
	r->rings = g;
	r->cap_rings = cap;
	return 0;
}

/*
 * The file CPU of buffer b, its data file opened; NULL if there is no
 * room.  The consumer keeps SPARE entries free for the signal path, which
 * cannot allocate.
 */
static struct rec_cpu *cpu_of(struct rec *r, struct slim_buffer *b)
{
	struct rec_cpu *c;
	int id = b->cpu;

	if (id < 0)
		return NULL;
	if (!r->in_signal && id + SPARE >= r->cap_cpus)
		grow_cpus(r, id + 1);
	if (id >= r->cap_cpus)
		return NULL;
	c = &r->cpus[id];
	if (c->fd < 0) {
		c->fd = open(cpu_file(r, id), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (c->fd < 0) {
			if (!r->in_signal)
				set_err(r, -errno);
			return NULL;
		}
	}
	c->b = b;
	if (id >= r->nr_cpus)
		r->nr_cpus = id + 1;
	return c;
}

static struct rec_ring *ring_of(struct rec *r, struct rec_cpu *c, struct slim_rb *rb)
{
	struct rec_ring *g;
	int i;

	if (c->ring >= 0 && r->rings[c->ring].rb == rb)
		return &r->rings[c->ring];
	for (i = 0; i < r->nr_rings; i++) {
		if (r->rings[i].rb == rb) {
			c->ring = i;
			return &r->rings[i];
		}
	}
	if (r->nr_rings + (r->in_signal ? 0 : SPARE) >= r->cap_rings &&
	    (r->in_signal || grow_rings(r)))
		return NULL;
	g = &r->rings[r->nr_rings];
	memset(g, 0, sizeof(*g));
	g->rb = rb;
	c->ring = r->nr_rings++;
	return g;
}

/* ---- lost events owed to later pages ----------------------------------- */

/* When the list is full the newest entry grows: its events go on a page early. */
static void owe(struct rec_ring *g, uint64_t count, uint64_t after)
{
	int last = g->nr_owed - 1;

	if (last >= 0 && (g->nr_owed == OWED_MAX || g->owed[last].after == after)) {
		g->owed[last].count += count;
		return;
	}
	g->owed[g->nr_owed].count = count;
	g->owed[g->nr_owed].after = after;
	g->nr_owed++;
}

/* The lost events to put on page seq, taken off the list. */
static uint64_t owed_before(struct rec_ring *g, uint64_t seq)
{
	uint64_t n = 0;
	int i, k = 0;

	for (i = 0; i < g->nr_owed; i++) {
		if (seq > g->owed[i].after)
			n += g->owed[i].count;
		else
			g->owed[k++] = g->owed[i];
	}
	g->nr_owed = k;
	return n;
}

/* ---- writing pages -------------------------------------------------------- */

static int stage_flush(struct rec *r, struct rec_cpu *c)
{
	int ret;

	if (!r->used)
		return 0;
	ret = write_all(c->fd, r->stage, (size_t)r->used * PAGE);
	if (!ret)
		c->bytes += (uint64_t)r->used * PAGE;
	r->used = 0;
	return ret;
}

static void set_commit(unsigned char *page, uint32_t n, uint64_t missed)
{
	uint64_t commit = n;

	if (missed) {
		commit |= SLIM_RB_MISSED_EVENTS;
		if (n + sizeof(missed) <= DATA) {
			memcpy(page + 16 + n, &missed, sizeof(missed));
			commit |= SLIM_RB_MISSED_STORED;
			n += sizeof(missed);
		}
	}
	memset(page + 16 + n, 0, DATA - n);
	memcpy(page + 8, &commit, sizeof(commit));
}

/* Re-encoding: events go into new pages, with new times or a new split. */
struct enc {
	struct rec *r;
	struct rec_cpu *c;
	unsigned char *pg;	/* the page being filled, or NULL */
	uint32_t off;		/* its data bytes */
	uint32_t limit;		/* its room (less the lost count it carries) */
	uint64_t ts;		/* the time of its last event */
	uint64_t owed;		/* lost events for the next page opened */
	uint64_t carried;	/* lost events the page being filled carries */
	struct slim_record_conv cv;
};

static void enc_close(struct enc *e)
{
	set_commit(e->pg, e->off, e->carried);
	e->pg = NULL;
}

static int enc_open(struct enc *e, uint64_t ts, uint32_t size)
{
	struct rec *r = e->r;
	int ret;

	if (r->used == BATCH) {
		ret = stage_flush(r, e->c);
		if (ret)
			return ret;
	}
	e->pg = r->stage + (size_t)r->used++ * PAGE;
	memcpy(e->pg, &ts, sizeof(ts));
	e->off = 0;
	e->ts = ts;
	e->carried = e->owed;
	e->owed = 0;
	/* An event too big to leave room for the count: flag the loss only. */
	e->limit = e->carried && size + 8 <= DATA ? DATA - 8 : DATA;
	return 0;
}

/* Events are a few words long: a call to memcpy() would cost more. */
static inline void copy_words(unsigned char *to, const unsigned char *from, uint32_t n)
{
	uint32_t i, w;

	for (i = 0; i < n; i += 4) {
		memcpy(&w, from + i, 4);
		memcpy(to + i, &w, 4);
	}
}

/* Append one data event (its bytes at ev, size in all) at time ts. */
static int enc_event(struct enc *e, uint64_t ts, const struct raw_event *ev)
{
	uint64_t d = 0;
	uint32_t ext = 0, hdr, hi;
	unsigned char *p;
	int ret;

	if (e->pg) {
		d = ts - e->ts;
		ext = d > SLIM_RB_DELTA_MAX ? 8 : 0;
		if (d >= EXTEND_LIMIT || e->off + ext + ev->size > e->limit)
			enc_close(e);
	}
	if (!e->pg) {
		ret = enc_open(e, ts, ev->size);
		if (ret)
			return ret;
		d = 0;
		ext = 0;
	}
	p = e->pg + 16 + e->off;
	if (ext) {
		hdr = slim_rb_hdr(SLIM_RB_TYPE_TIME_EXTEND, (uint32_t)(d & SLIM_RB_DELTA_MAX));
		hi = (uint32_t)(d >> SLIM_RB_DELTA_BITS);
		memcpy(p, &hdr, 4);
		memcpy(p + 4, &hi, 4);
		p += 8;
		d = 0;
	}
	hdr = slim_rb_hdr(ev->type, (uint32_t)d);
	memcpy(p, &hdr, 4);
	copy_words(p + 4, ev->p + 4, ev->size - 4);
	e->off += ext + ev->size;
	e->ts = ts;
	return 0;
}

/*
 * Rewrite the events of page `in` (n data bytes) into new pages: times in
 * ns when converting, and a split when the lost count needs room.  Returns
 * 0 or -errno; lost events left over (a page with no event) stay in *owed.
 */
static int reencode(struct enc *e, const unsigned char *in, uint32_t n,
		    uint64_t *owed)
{
	struct rec_cpu *c = e->c;
	struct raw_event ev;
	uint32_t off = 0;
	uint64_t t, ns;
	int ret = 0;

	memcpy(&t, in, sizeof(t));
	e->pg = NULL;
	e->owed = *owed;
	while (!ret && next_event(in + 16, n, &off, &ev)) {
		t = event_time(&ev, t);
		if (ev.type > SLIM_RB_TYPE_DATA_MAX)
			continue;
		ns = e->r->convert ? conv_ns(&e->cv, t) : t;
		if (ns < c->last_ts)
			ns = c->last_ts;	/* a new calibration point moved it */
		c->last_ts = ns;
		pid_note(e->r, event_pid(&ev));
		ret = enc_event(e, ns, &ev);
	}
	if (e->pg)
		enc_close(e);
	*owed = e->owed;
	return ret;
}

/* The first writer's thread id in a page, for the cmdlines. */
static void note_first_pid(struct rec *r, const unsigned char *page, uint32_t n)
{
	struct raw_event ev;
	uint32_t off = 0;

	while (next_event(page + 16, n, &off, &ev)) {
		if (ev.type <= SLIM_RB_TYPE_DATA_MAX) {
			pid_note(r, event_pid(&ev));
			return;
		}
	}
}

/*
 * The page slim_rb_read_page() put at `page` (the next staging slot, or
 * the scratch page when converting), with `missed` lost events before
 * it.  When the times are ns and the count fits, the page stays as it
 * is: no work per event.
 */
static int put_page(struct enc *e, unsigned char *page, uint64_t missed)
{
	struct rec *r = e->r;
	uint64_t commit;
	uint32_t n;
	int ret;

	memcpy(&commit, page + 8, sizeof(commit));
	n = (uint32_t)(commit & COMMIT_MASK);
	if (n > DATA)
		return 0;	/* cannot happen: ignore the page */
	if (page != r->scratch) {
		if (!missed || n + 8 <= DATA) {
			set_commit(page, n, missed);
			note_first_pid(r, page, n);
			r->used++;
			return 0;
		}
		memcpy(r->scratch, page, PAGE);
	}
	ret = reencode(e, r->scratch, n, &missed);
	if (missed)		/* no event to carry it: the next page will */
		owe(&r->rings[e->c->ring], missed, 0);
	return ret;
}

/* ---- draining ------------------------------------------------------------- */

/* The sequence number of the page slim_rb_read_page() just handed out. */
static uint64_t page_seq(const struct slim_rb *rb)
{
	return rb->r.off ? rb->r.seq : rb->r.seq - 1;
}

/*
 * Events the writer refused (drop mode, nested, too big) are not in any
 * page.  They happened before the page the writer goes to next, so they
 * go on the first page after the one being filled when they were seen.
 */
static void note_drops(struct rec_ring *g, struct slim_rb *rb)
{
	uint64_t cur = slim_load_acquire(&rb->cur_seq);
	uint64_t d = SLIM_READ_ONCE(rb->w.dropped) + SLIM_READ_ONCE(rb->nested);

	if (d == g->drops_seen)
		return;
	owe(g, d - g->drops_seen, cur);
	g->drops_seen = d;
}

static int lock_buffer(struct slim_buffer *b, enum drain_mode mode)
{
	int tries;

	if (mode == DRAIN_ALL) {
		slim_buffer_lock(b);
		return 0;
	}
	if (mode == DRAIN_FULL)
		return slim_buffer_trylock(b) ? 0 : -EBUSY;
	/* A reader on another thread lets go soon; one we interrupted never. */
	for (tries = 0; tries < 100; tries++) {
		if (slim_buffer_trylock(b))
			return 0;
		ms_sleep(1);
	}
	return -EBUSY;
}

/*
 * Pages from one ring into the staging area, until it is full or the
 * pass has what it came for.  1: more to come, 0: done.
 */
static int read_pages(struct rec *r, struct rec_cpu *c, struct slim_rb *rb,
		      enum drain_mode mode)
{
	struct enc e = { .r = r, .c = c, .cv = { r->tab, r->ntab, 0 } };
	struct rec_ring *g = ring_of(r, c, rb);
	uint64_t ow, ev, seq, missed;
	unsigned char *page;
	int ret;

	if (!g)
		return 0;
	if (c->pass != r->pass) {
		c->pass = r->pass;
		c->end_seq = slim_load_acquire(&rb->cur_seq);
	}
	note_drops(g, rb);
	while (r->used + 3 <= BATCH) {
		ow = rb->r.overwritten_seen;
		ev = SLIM_READ_ONCE(rb->consumed);
		page = r->convert ? r->scratch : r->stage + (size_t)r->used * PAGE;
		if (!slim_rb_read_page(rb, page, mode == DRAIN_FULL))
			return 0;
		c->events += SLIM_READ_ONCE(rb->consumed) - ev;
		r->pages++;
		seq = page_seq(rb);
		missed = rb->r.overwritten_seen - ow + owed_before(g, seq);
		ret = put_page(&e, page, missed);
		if (ret)
			return ret;
		if (seq + (mode == DRAIN_FULL) >= c->end_seq)
			return 0;
	}
	return 1;
}

/* One staging area's worth from buffer c: 1 more to come, 0 done, -errno. */
static int drain_cpu(struct rec *r, struct rec_cpu *c, enum drain_mode mode)
{
	struct slim_buffer *b = c->b;
	int more, ret;

	if (lock_buffer(b, mode))
		return 0;
	c->rb = slim_buffer_ring(b);
	if (!c->rb) {
		slim_buffer_unlock(b);
		return 0;
	}
	more = read_pages(r, c, c->rb, mode);
	/* The ring may be freed once read (a retired one): keep its counts. */
	slim_rb_stats(c->rb, &c->stat);
	slim_buffer_reap(r->bufs, b);
	slim_buffer_unlock(b);
	ret = stage_flush(r, c);
	if (more < 0)
		return more;
	return ret ? ret : more;
}

/* Every buffer, round after round, until each has had its pages.  0 or -errno. */
static int drain_all(struct rec *r, enum drain_mode mode)
{
	struct slim_buffer *b;
	struct rec_cpu *c;
	int more, ret;

	r->pass++;
	do {
		more = 0;
		for (b = slim_bufset_first(r->bufs); b; b = slim_buffer_next(b)) {
			c = cpu_of(r, b);
			if (!c)
				continue;
			ret = drain_cpu(r, c, mode);
			if (ret < 0)
				return ret;
			more |= ret;
		}
	} while (more);
	return 0;
}

/* ---- the file ----------------------------------------------------------- */

static void put_option(struct wbuf *w, uint16_t id, const void *data, uint32_t len)
{
	put_u16(w, id);
	put_u32(w, len);
	put(w, data, len);
}

/* One buffer's statistics, in the kernel's per_cpu/cpuN/stats words. */
static void put_cpustat(struct wbuf *w, struct rec *r, int cpu)
{
	struct rec_cpu *c = &r->cpus[cpu];
	const struct slim_rb_stats st = c->stat;
	size_t at;

	put_u16(w, 2);		/* CPUSTAT */
	at = w->len;
	put_u32(w, 0);
	put_str(w, "CPU: ");
	put_dec(w, (uint64_t)cpu);
	put_str(w, "\nentries: ");
	put_dec(w, st.entries);
	put_str(w, "\noverrun: ");
	put_dec(w, st.overwritten);
	put_str(w, "\ndropped events: ");
	put_dec(w, st.dropped);
	put_str(w, "\nread events: ");
	put_dec(w, c->events);
	put(w, "\n", 2);
	if (!w->over) {
		uint32_t len = (uint32_t)(w->len - at - 4);

		memcpy(w->p + at, &len, sizeof(len));
	}
}

static void put_nobuf_stat(struct wbuf *w, struct rec *r)
{
	uint64_t n = slim_bufset_lost_nobuf(r->bufs);
	size_t at;
	uint32_t len;

	if (!n)
		return;
	put_u16(w, 2);
	at = w->len;
	put_u32(w, 0);
	put_str(w, "events lost for want of a buffer: ");
	put_dec(w, n);
	put(w, "\n", 2);
	len = (uint32_t)(w->len - at - 4);
	if (!w->over)
		memcpy(w->p + at, &len, sizeof(len));
}

enum { TAIL_EMPTY, TAIL_FINAL, TAIL_RECOVERED };

/*
 * Everything after the cmdlines: CPU count, options, "flyrecord", the
 * index (offsets filled in by the caller) and the clock.  0 if it did not
 * fit, else its length; *index_at is where the index starts.
 */
static size_t build_tail(struct rec *r, int kind, size_t *index_at)
{
	static const char note[] = "recovered after the recording process died: "
		"lost events are the ones marked in the pages\n";
	struct wbuf w = { r->tail, 0, r->tail_cap, 0 };
	int i;

	put_u32(&w, (uint32_t)r->nr_cpus);
	put(&w, "options  ", 10);
	/*
	 * TRACECLOCK, with the clock text (trace-cmd 3.1 parses it; an empty
	 * one makes it parse whatever memory it got), which a v6 reader also
	 * finds after the index.
	 */
	put_option(&w, 4, r->clock, (uint32_t)strlen(r->clock) + 1);
	if (r->uname[0])
		put_option(&w, 5, r->uname, (uint32_t)strlen(r->uname) + 1);
	for (i = 0; kind == TAIL_FINAL && i < r->nr_cpus; i++)
		put_cpustat(&w, r, i);
	if (kind == TAIL_FINAL)
		put_nobuf_stat(&w, r);
	if (kind == TAIL_RECOVERED)
		put_option(&w, 2, note, sizeof(note));
	put_u16(&w, 0);				/* end of options */
	put(&w, "flyrecord", 10);
	*index_at = w.len;
	for (i = 0; i < r->nr_cpus; i++) {
		put_u64(&w, 0);
		put_u64(&w, 0);
	}
	put_u64(&w, strlen(r->clock));
	put_str(&w, r->clock);
	return w.over ? 0 : w.len;
}

static void fill_index(struct rec *r, size_t index_at, uint64_t start, int kind)
{
	unsigned char *p = r->tail + index_at;
	uint64_t off = start, size;
	int i;

	for (i = 0; i < r->nr_cpus; i++) {
		size = kind == TAIL_EMPTY ? 0 : r->cpus[i].bytes;
		memcpy(p, &off, 8);
		memcpy(p + 8, &size, 8);
		p += 16;
		off += size;
	}
}

static int copy_slow(struct rec *r, int in, uint64_t off, uint64_t len, int out)
{
	size_t chunk = (size_t)BATCH * PAGE;
	ssize_t n;
	int ret;

	while (off < len) {
		n = pread(in, r->stage, len - off < chunk ? (size_t)(len - off) : chunk,
			  (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		ret = write_all(out, r->stage, (size_t)n);
		if (ret)
			return ret;
		off += (uint64_t)n;
	}
	return 0;
}

/* Append len bytes of file in to out: in the kernel when it can. */
static int copy_data(struct rec *r, int in, uint64_t len, int out)
{
	loff_t off = 0;
	ssize_t n;

	while ((uint64_t)off < len) {
		n = copy_file_range(in, &off, out, NULL, (size_t)(len - (uint64_t)off), 0);
		if (n > 0)
			continue;
		if (n == 0)
			return -EIO;
		if (errno == EINTR)
			continue;
		if (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
		    errno == EOPNOTSUPP || errno == EBADF)
			return copy_slow(r, in, (uint64_t)off, len, out);
		return -errno;
	}
	return 0;
}

/* meta, the cmdlines (unless meta has them), the tail, padding, the data. */
static int write_parts(struct rec *r, int fd, int kind)
{
	size_t index_at, tail_len, head, cmd_len = 0;
	uint64_t start, len;
	int ret, i;

	if (!r->meta_has_cmdlines)
		cmd_len = build_cmdlines(r);
	tail_len = build_tail(r, kind, &index_at);
	if (!tail_len)
		return -ENOMEM;
	head = r->meta_len + (r->meta_has_cmdlines ? 0 : 8 + cmd_len) + tail_len;
	start = (head + PAGE - 1) / PAGE * PAGE;
	fill_index(r, index_at, start, kind);
	ret = write_all(fd, r->meta, r->meta_len);
	if (!ret && !r->meta_has_cmdlines) {
		len = cmd_len;
		ret = write_all(fd, &len, sizeof(len));
		if (!ret)
			ret = write_all(fd, r->cmd_text, cmd_len);
	}
	if (!ret)
		ret = write_all(fd, r->tail, tail_len);
	if (!ret)
		ret = write_all(fd, zeros, (size_t)(start - head));
	for (i = 0; !ret && kind != TAIL_EMPTY && i < r->nr_cpus; i++) {
		if (r->cpus[i].bytes)
			ret = copy_data(r, r->cpus[i].fd, r->cpus[i].bytes, fd);
	}
	return ret;
}

/*
 * PATH, whole: written as PATH.part, then renamed over PATH so that PATH
 * is a complete file at every moment.  Runs in a signal handler.
 */
static int write_file(struct rec *r, int kind)
{
	int fd, ret;

	if (!r->meta)
		return -ENODATA;
	fd = open(r->part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = write_parts(r, fd, kind);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(r->part, r->path))
		ret = -errno;
	if (ret)
		unlink(r->part);
	return ret;
}

/* The data files are in PATH now: remove them. */
static void remove_data(struct rec *r)
{
	int i;

	for (i = 0; i < r->cap_cpus; i++) {
		if (r->cpus[i].fd < 0)
			continue;
		close(r->cpus[i].fd);
		r->cpus[i].fd = -1;
		unlink(cpu_file(r, i));
	}
}

/* ---- ownership ------------------------------------------------------------ */

static int own_try(struct rec *r, int who)
{
	int none = OWN_NONE;

	return __atomic_compare_exchange_n(&r->owner, &none, who, 0,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static void own_release(struct rec *r)
{
	__atomic_store_n(&r->owner, OWN_NONE, __ATOMIC_RELEASE);
}

/* Wait for the turn; 0 once the file is final (nothing left to do). */
static int own_wait(struct rec *r, int who)
{
	while (!own_try(r, who)) {
		if (__atomic_load_n(&r->finished, __ATOMIC_ACQUIRE))
			return 0;
		ms_sleep(1);
	}
	if (__atomic_load_n(&r->finished, __ATOMIC_ACQUIRE)) {
		own_release(r);
		return 0;
	}
	return 1;
}

/* ---- the metadata: everything up to the cmdlines --------------------------- */

/*
 * The formats the file carries: every loaded event's, and the kept ones
 * of unloaded events whose records may still be drained.
 */
struct fmt_item {
	const char *system;
	char *text;
	size_t len;
};

struct ev_list {
	struct fmt_item *v;
	size_t n, cap;
	uint64_t sig;
};

static int add_item(struct ev_list *l, const char *system, char *text, size_t len)
{
	struct fmt_item *v;

	if (!text)
		return -ENOMEM;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		v = realloc(l->v, l->cap * sizeof(*v));
		if (!v) {
			free(text);
			return -ENOMEM;
		}
		l->v = v;
	}
	l->v[l->n++] = (struct fmt_item){ system, text, len };
	return 0;
}

static int collect_event(struct slim_event *ev, void *arg)
{
	struct ev_list *l = arg;
	struct slim_seq f;

	l->sig = l->sig * 31 + (uint64_t)(uintptr_t)ev + (uint64_t)ev->event.type;
	slim_seq_init_dynamic(&f);
	slim_format_print(&f, slim_event_name(ev), ev->event.type,
			  slim_event_fields(ev), slim_event_print_fmt(ev));
	if (f.overflow) {
		slim_seq_free(&f);
		return -ENOMEM;
	}
	return add_item(l, slim_event_system(ev), f.buf ? f.buf : strdup(""), f.len);
}

static int collect_ghost(int id, const struct slim_event_ghost *g, void *arg)
{
	struct ev_list *l = arg;

	l->sig = l->sig * 31 + (uint64_t)(uintptr_t)g + (uint64_t)id;
	return add_item(l, g->system, strdup(g->format), strlen(g->format));
}

static void ev_list_free(struct ev_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].text);
	free(l->v);
}

static void seq_u32(struct slim_seq *s, uint32_t v)
{
	slim_seq_putmem(s, &v, sizeof(v));
}

static void seq_u64(struct slim_seq *s, uint64_t v)
{
	slim_seq_putmem(s, &v, sizeof(v));
}

/* A text with its size in 8 bytes before it. */
static void seq_sized(struct slim_seq *s, const char *text, size_t len)
{
	seq_u64(s, len);
	slim_seq_putmem(s, text, (unsigned int)len);
}

static int same_system(const struct fmt_item *a, const struct fmt_item *b)
{
	return strcmp(a->system, b->system) == 0;
}

/* The events' format files, grouped by system. */
static void meta_formats(struct slim_seq *s, struct ev_list *l)
{
	uint32_t nsys = 0, n;
	size_t i, j, k;

	for (i = 0; i < l->n; i++) {
		for (j = 0; j < i && !same_system(&l->v[j], &l->v[i]); j++)
			;
		nsys += j == i;
	}
	seq_u32(s, nsys);
	for (i = 0; i < l->n; i++) {
		for (j = 0; j < i && !same_system(&l->v[j], &l->v[i]); j++)
			;
		if (j < i)
			continue;	/* system done already */
		slim_seq_printf(s, "%s%c", l->v[i].system, 0);
		for (n = 0, k = i; k < l->n; k++)
			n += same_system(&l->v[k], &l->v[i]);
		seq_u32(s, n);
		for (k = i; k < l->n; k++) {
			if (same_system(&l->v[k], &l->v[i]))
				seq_sized(s, l->v[k].text, l->v[k].len);
		}
	}
}

/* The header of the file before the cmdlines, into s.  Event mutex held. */
static void build_meta(struct slim_seq *s, struct ev_list *l)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44 };
	const char *hp = slim_record_header_page();
	const char *he = slim_record_header_event();
	uint32_t page = PAGE;
	char endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	char lsize = (char)sizeof(long);

	slim_seq_putmem(s, magic, sizeof(magic));
	slim_seq_putmem(s, "tracing6", 9);	/* "tracing", "6\0" */
	slim_seq_putmem(s, &endian, 1);
	slim_seq_putmem(s, &lsize, 1);
	slim_seq_putmem(s, &page, 4);
	slim_seq_putmem(s, "header_page", 12);
	seq_sized(s, hp, strlen(hp));
	slim_seq_putmem(s, "header_event", 13);
	seq_sized(s, he, strlen(he));
	seq_u32(s, 0);		/* no ftrace events */
	meta_formats(s, l);
	seq_u32(s, 0);		/* no kallsyms */
	seq_u32(s, 0);		/* no trace_printk formats */
}

enum meta_lock { META_TRY, META_WAIT, META_HELD };

static int lock_events(enum meta_lock how)
{
	int tries;

	if (how == META_HELD)
		return 0;
	for (tries = 0; tries < (how == META_WAIT ? 200 : 1); tries++) {
		if (!pthread_mutex_trylock(&slim_event_mutex))
			return 0;
		if (how == META_WAIT)
			ms_sleep(1);
	}
	return -EAGAIN;
}

/* New formats if events were loaded or unloaded: 1 if they changed. */
static int refresh_formats(struct rec *r)
{
	struct ev_list l = { 0 };
	struct slim_seq s;
	int ret;

	ret = slim_event_for_each(collect_event, &l);
	if (!ret)
		ret = slim_event_ghost_for_each(collect_ghost, &l);
	if (ret || (r->meta && l.sig == r->event_sig)) {
		ev_list_free(&l);
		return ret;
	}
	slim_seq_init_dynamic(&s);
	build_meta(&s, &l);
	ev_list_free(&l);
	if (s.overflow) {
		slim_seq_free(&s);
		return -ENOMEM;
	}
	free(r->meta);
	r->meta = (unsigned char *)s.buf;
	r->meta_len = s.len;
	r->event_sig = l.sig;
	return 1;
}

/*
 * Bring the metadata up to date (formats of the events loaded now, names
 * of the threads seen) and, if it changed, rewrite PATH with it.  The
 * caller holds owner.  The event mutex is only tried (how says how hard):
 * whoever holds it may be waiting for us.  0, -EAGAIN or -errno.
 */
static int refresh_meta(struct rec *r, enum meta_lock how, int write_main)
{
	int changed = r->pids_new, ret;

	if (r->pids_new)
		name_pids(r);
	r->pids_new = 0;
	ret = lock_events(how);
	if (!ret) {
		ret = refresh_formats(r);
		if (how != META_HELD)
			pthread_mutex_unlock(&slim_event_mutex);
		changed |= ret > 0;
		ret = ret > 0 ? 0 : ret;
	}
	if (ret && ret != -EAGAIN)
		return ret;
	if (write_main && changed && r->meta) {
		int w = write_file(r, TAIL_EMPTY);

		if (w)
			return w;
	}
	return ret;
}

/* ---- the consumer thread -------------------------------------------------- */

/* One look at the buffers: the pages it read, -1 if a handler finished. */
static long consume_once(struct rec *r, enum drain_mode mode)
{
	uint64_t pages;
	int ret;

	if (!own_wait(r, OWN_CONSUMER))
		return -1;
	pages = r->pages;
	if (r->convert) {
		slim_clock_tick();
		r->ntab = slim_clock_calib_snapshot(r->tab, SLIM_CLOCK_CALIB_MAX);
	}
	ret = r->err ? 0 : drain_all(r, mode);
	if (ret < 0)
		set_err(r, ret);
	if (!r->err && (r->pids_new || !r->meta || !(r->pass & 127))) {
		int m = refresh_meta(r, META_TRY, 1);

		if (m != -EAGAIN)
			set_err(r, m);
	}
	pages = r->pages - pages;
	own_release(r);
	return (long)pages;
}

static void wait_for_work(struct rec *r, int busy)
{
	struct timespec ts;

	pthread_mutex_lock(&r->lock);
	if (!busy && !r->stop && r->sync_req == r->sync_done) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += POLL_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&r->wake, &r->lock, &ts);
	}
	pthread_mutex_unlock(&r->lock);
}

static void *consumer(void *arg)
{
	struct rec *r = arg;
	uint64_t req;
	long pages = 0;
	int stop;
	sigset_t all;

	/* Signals go to the program's threads, whose handlers may flush. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "slim-record");
	__atomic_store_n(&r->consumer_tid, (int)gettid(), __ATOMIC_RELEASE);
	for (;;) {
		/* Sleep unless the writers are fast: then the headroom is short. */
		wait_for_work(r, pages >= BUSY_PAGES);
		pthread_mutex_lock(&r->lock);
		stop = r->stop;
		req = r->sync_req;
		pthread_mutex_unlock(&r->lock);
		pages = consume_once(r, stop || req != r->sync_done ?
				     DRAIN_ALL : DRAIN_FULL);
		pthread_mutex_lock(&r->lock);
		r->sync_done = req;
		pthread_cond_broadcast(&r->synced);
		pthread_mutex_unlock(&r->lock);
		if (stop || pages < 0)
			break;
	}
	pthread_mutex_lock(&r->lock);
	r->exited = 1;
	pthread_cond_broadcast(&r->synced);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* ---- fatal signals -------------------------------------------------------- */

static const int fatal_signals[] = {
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, SIGQUIT,
	SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGXCPU, SIGXFSZ,
};
#define NR_FATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static int installed[NR_FATAL];

/* The handler's work: drain what is committed and write the final file. */
static void signal_flush(struct rec *r)
{
	int i;

	if (__atomic_load_n(&r->consumer_tid, __ATOMIC_ACQUIRE) == (int)gettid())
		return;		/* the consumer itself faulted: its state is suspect */
	for (i = 0; !own_try(r, OWN_SIGNAL); i++) {
		if (__atomic_load_n(&r->finished, __ATOMIC_ACQUIRE) || i >= SIG_WAIT_MS)
			return;
		ms_sleep(1);
	}
	if (!__atomic_load_n(&r->finished, __ATOMIC_ACQUIRE)) {
		r->in_signal = 1;
		if (!r->err)
			drain_all(r, DRAIN_SIGNAL);
		if (!write_file(r, TAIL_FINAL))
			remove_data(r);
		__atomic_store_n(&r->finished, 1, __ATOMIC_RELEASE);
	}
	own_release(r);
}

static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
}

/*
 * Flush, then die as the signal would have made the program die.  A
 * fault the kernel raised happens again when the handler returns; any
 * other signal is raised again, and delivered once the handler returns.
 */
static void fatal_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct sigaction dfl;
	struct rec *r;

	(void)uc;
	__atomic_fetch_add(&handlers_in, 1, __ATOMIC_SEQ_CST);
	r = __atomic_load_n(&sig_rec, __ATOMIC_SEQ_CST);
	if (r)
		signal_flush(r);
	__atomic_fetch_sub(&handlers_in, 1, __ATOMIC_SEQ_CST);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	if (!(is_fault(sig) && si && si->si_code > 0))
		raise(sig);
	errno = saved;
}

/* Only where the program kept the default: its own handlers stay. */
static void install_handlers(void)
{
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fatal_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NR_FATAL; i++) {
		if (sigaction(fatal_signals[i], NULL, &old))
			continue;
		if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		installed[i] = !sigaction(fatal_signals[i], &sa, NULL);
	}
}

static void remove_handlers(void)
{
	struct sigaction cur, dfl;
	size_t i;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (i = 0; i < NR_FATAL; i++) {
		if (!installed[i])
			continue;
		installed[i] = 0;
		if (!sigaction(fatal_signals[i], NULL, &cur) &&
		    (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == fatal_handler)
			sigaction(fatal_signals[i], &dfl, NULL);
	}
}

/* ---- start and stop ------------------------------------------------------- */

static void rec_free(struct rec *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < r->cap_cpus; i++) {
		if (r->cpus[i].fd >= 0)
			close(r->cpus[i].fd);
	}
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->wake);
	pthread_cond_destroy(&r->synced);
	free(r->path);
	free(r->part);
	free(r->name);
	free(r->cpus);
	free(r->rings);
	free(r->stage);
	free(r->scratch);
	free(r->tab);
	free(r->meta);
	free(r->tail);
	free(r->pids);
	free(r->cmd_text);
	free(r);
}

static void clock_setup(struct rec *r)
{
	const char *name = slim_clock_id_name(r->clock_id);

	r->convert = r->clock_id == SLIM_CLOCK_MONO && slim_clock_raw_is_cycles(r->clock_id);
#if defined(__x86_64__) || defined(__i386__)
	/* The kernel's name for the same counter, so that traces line up. */
	if (r->clock_id == SLIM_CLOCK_TSC)
		name = "x86-tsc";
#endif
	snprintf(r->clock, sizeof(r->clock), "[%s]\n", name);
}

static void uname_setup(struct rec *r)
{
	struct utsname u;

	if (uname(&u))
		return;
	snprintf(r->uname, sizeof(r->uname), "%s %s %s %s", u.sysname,
		 u.nodename, u.release, u.machine);
}

static struct rec *rec_alloc(const char *path)
{
	struct rec *r = calloc(1, sizeof(*r));
	size_t len = strlen(path);
	pthread_condattr_t ca;

	if (!r)
		return NULL;
	r->name_len = len;
	r->path = strdup(path);
	r->part = malloc(len + 6);
	r->name = malloc(len + 32);
	r->stage = malloc((size_t)BATCH * PAGE);
	r->scratch = malloc(PAGE);
	r->tab = calloc(SLIM_CLOCK_CALIB_MAX, sizeof(*r->tab));
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->wake, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&r->synced, NULL);
	if (!r->path || !r->part || !r->name || !r->stage || !r->scratch ||
	    !r->tab || grow_cpus(r, 1) || grow_rings(r) || pid_grow(r)) {
		rec_free(r);
		return NULL;
	}
	memcpy(r->name, path, len + 1);
	memcpy(r->part, path, len);
	memcpy(r->part + len, ".part", 6);
	r->bufs = &slim_bufset_top;
	r->clock_id = slim_bufset_top.clock;
	clock_setup(r);
	uname_setup(r);
	return r;
}

static void at_exit(void)
{
	slim_record_stop();
}

static void at_fork_prepare(void)
{
	pthread_mutex_lock(&api_lock);
}

static void at_fork_parent(void)
{
	pthread_mutex_unlock(&api_lock);
}

/* A recording still reachable, so that leak checkers do not report it. */
static struct rec *forked_away;

static void at_fork_child(void)
{
	struct rec *r = active;
	int i;

	/* The consumer did not come along: the child leaves the files alone. */
	__atomic_store_n(&sig_rec, NULL, __ATOMIC_SEQ_CST);
	if (r) {
		remove_handlers();
		for (i = 0; i < r->cap_cpus; i++) {
			if (r->cpus[i].fd >= 0)
				close(r->cpus[i].fd);
		}
		forked_away = r;
		active = NULL;
	}
	pthread_mutex_unlock(&api_lock);
}

static void once_setup(void)
{
	atexit(at_exit);
	pthread_atfork(at_fork_prepare, at_fork_parent, at_fork_child);
}

/* Without the metadata yet, at least say now if the file cannot be made. */
static int check_writable(const char *part)
{
	int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	unlink(part);
	return 0;
}

static int check_path(const char *path)
{
	if (!path || !*path)
		return -EINVAL;
	if (strlen(path) > PATH_MAX - 32)
		return -ENAMETOOLONG;
	return 0;
}

static int start(const char *path, enum meta_lock how)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct rec *r;
	int ret = check_path(path);

	if (ret)
		return ret;
	pthread_once(&once, once_setup);
	pthread_mutex_lock(&api_lock);
	ret = -EBUSY;
	if (active)
		goto out;
	ret = -ENOMEM;
	r = rec_alloc(path);
	if (!r)
		goto out;
	/* A file that reads as an empty trace from the start, if we can. */
	ret = refresh_meta(r, how, 1);
	if (ret == -EAGAIN)
		ret = check_writable(r->part);
	if (ret) {
		rec_free(r);
		goto out;
	}
	ret = pthread_create(&r->thread, NULL, consumer, r);
	if (ret) {
		unlink(r->path);
		rec_free(r);
		ret = -ret;
		goto out;
	}
	active = r;
	__atomic_store_n(&sig_rec, r, __ATOMIC_SEQ_CST);
	install_handlers();
out:
	pthread_mutex_unlock(&api_lock);
	return ret;
}

/* After the consumer has drained for the last time: the final file. */
static int finish(struct rec *r, enum meta_lock how)
{
	int ret;

	if (!own_wait(r, OWN_CONSUMER))
		return 0;	/* a signal handler wrote it */
	ret = refresh_meta(r, how, 0);
	if (ret == -EAGAIN)
		ret = 0;	/* keep the metadata there is */
	if (!ret)
		ret = write_file(r, TAIL_FINAL);
	if (!ret)
		remove_data(r);
	__atomic_store_n(&r->finished, 1, __ATOMIC_RELEASE);
	own_release(r);
	return ret;
}

static int stop(enum meta_lock how)
{
	struct rec *r;
	int ret;

	pthread_mutex_lock(&api_lock);
	r = active;
	if (!r) {
		pthread_mutex_unlock(&api_lock);
		return -ENOENT;
	}
	pthread_mutex_lock(&r->lock);
	r->stop = 1;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	ret = finish(r, how);
	if (!ret)
		ret = r->err;
	remove_handlers();
	__atomic_store_n(&sig_rec, NULL, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&handlers_in, __ATOMIC_SEQ_CST))
		ms_sleep(1);
	active = NULL;
	pthread_mutex_unlock(&api_lock);
	rec_free(r);
	return ret;
}

SLIM_EXPORT int slim_record_start(const char *path)
{
	return start(path, META_TRY);
}

SLIM_EXPORT int slim_record_stop(void)
{
	return stop(META_WAIT);
}

SLIM_EXPORT int slim_record_env_start(void)
{
	const char *path = getenv("SLIMTRACE_OUTPUT");

	if (!path || !*path)
		return 0;
	return start(path, META_TRY);
}

SLIM_EXPORT int slim_record_sync(void)
{
	struct rec *r;
	uint64_t req;

	pthread_mutex_lock(&api_lock);
	r = active;
	if (!r) {
		pthread_mutex_unlock(&api_lock);
		return -ENOENT;
	}
	pthread_mutex_lock(&r->lock);
	req = ++r->sync_req;
	pthread_cond_signal(&r->wake);
	while (r->sync_done < req && !r->exited)
		pthread_cond_wait(&r->synced, &r->lock);
	pthread_mutex_unlock(&r->lock);
	pthread_mutex_unlock(&api_lock);
	return 0;
}

int slim_record_ctl_write(const char *text)
{
	char path[PATH_MAX];
	size_t n;
	int ret;

	while (*text == ' ' || *text == '\t' || *text == '\n')
		text++;
	n = strlen(text);
	while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n'))
		n--;
	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, text, n);
	path[n] = '\0';
	if (n && strcmp(path, "0") != 0)
		return start(path, META_HELD);
	ret = stop(META_HELD);
	return ret == -ENOENT ? 0 : ret;
}

int slim_record_ctl_read(struct slim_seq *s)
{
	int ret = 0;

	pthread_mutex_lock(&api_lock);
	if (active)
		ret = slim_seq_printf(s, "%s\n", active->path);
	pthread_mutex_unlock(&api_lock);
	return ret;
}

/* ---- recovery after SIGKILL ------------------------------------------------ */

struct reader {
	const unsigned char *p;
	size_t len, off;
	const char *path;
	const char *err;
};

static int rd_skip(struct reader *rd, uint64_t n, const char *what)
{
	if (rd->err)
		return -1;
	if (n > rd->len - rd->off) {
		rd->err = what;
		return -1;
	}
	rd->off += (size_t)n;
	return 0;
}

/* A number of 2, 4 or 8 bytes in the host's order. */
static uint64_t rd_num(struct reader *rd, size_t size, const char *what)
{
	uint16_t v2;
	uint32_t v4;
	uint64_t v8;

	if (rd->err || size > rd->len - rd->off) {
		if (!rd->err)
			rd->err = what;
		return 0;
	}
	memcpy(size == 2 ? (void *)&v2 : size == 4 ? (void *)&v4 : (void *)&v8,
	       rd->p + rd->off, size);
	rd->off += size;
	return size == 2 ? v2 : size == 4 ? v4 : v8;
}

static void rd_expect(struct reader *rd, const void *s, size_t n, const char *what)
{
	if (!rd->err && (n > rd->len - rd->off || memcmp(rd->p + rd->off, s, n)))
		rd->err = what;
	else
		rd_skip(rd, n, what);
}

/* Skip sized texts: count of them in cnt_size bytes, each sized in 8. */
static void rd_texts(struct reader *rd, const char *what)
{
	uint64_t n = rd_num(rd, 4, what);

	while (!rd->err && n--)
		rd_skip(rd, rd_num(rd, 8, what), what);
}

/* The length of the metadata a recording wrote at the start of its file. */
static size_t parse_meta(struct reader *rd)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44 };
	uint64_t nsys;
	uint32_t page = PAGE;
	char host[2] = { __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, (char)sizeof(long) };

	rd_expect(rd, magic, 3, "no trace.dat magic");
	rd_expect(rd, "tracing6", 9, "not a version 6 trace.dat");
	rd_expect(rd, host, 2, "written on a host of another byte order or long size");
	rd_expect(rd, &page, 4, "page size is not 4096");
	rd_expect(rd, "header_page", 12, "no header_page");
	rd_skip(rd, rd_num(rd, 8, "header_page size"), "header_page text");
	rd_expect(rd, "header_event", 13, "no header_event");
	rd_skip(rd, rd_num(rd, 8, "header_event size"), "header_event text");
	rd_texts(rd, "ftrace formats");
	nsys = rd_num(rd, 4, "event systems");
	while (!rd->err && nsys--) {
		const void *nul = memchr(rd->p + rd->off, 0, rd->len - rd->off);

		if (!nul) {
			rd->err = "system name";
			break;
		}
		rd->off = (size_t)((const unsigned char *)nul - rd->p) + 1;
		rd_texts(rd, "event formats");
	}
	rd_skip(rd, rd_num(rd, 4, "kallsyms size"), "kallsyms");
	rd_skip(rd, rd_num(rd, 4, "printk size"), "printk formats");
	rd_skip(rd, rd_num(rd, 8, "cmdlines size"), "cmdlines");
	return rd->err ? 0 : rd->off;
}

/* The trace clock from the rest of the header written while recording. */
static void recovered_clock(struct reader *rd, struct rec *r)
{
	uint64_t cpus, len;
	uint16_t id;

	cpus = rd_num(rd, 4, "cpus");
	rd_expect(rd, "options  ", 10, "options");
	while (!rd->err) {
		id = (uint16_t)rd_num(rd, 2, "option");
		if (!id)
			break;
		rd_skip(rd, rd_num(rd, 4, "option size"), "option");
	}
	rd_expect(rd, "flyrecord", 10, "flyrecord");
	rd_skip(rd, cpus * 16, "index");
	len = rd_num(rd, 8, "clock size");
	if (rd->err || len + 1 > sizeof(r->clock) || len > rd->len - rd->off)
		return;
	memcpy(r->clock, rd->p + rd->off, (size_t)len);
	r->clock[len] = '\0';
}

static int read_whole(const char *path, unsigned char **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size <= 0)
		ret = -EINVAL;
	else if (!(*buf = malloc((size_t)st.st_size)))
		ret = -ENOMEM;
	else if (pread(fd, *buf, (size_t)st.st_size, 0) != st.st_size)
		ret = -EIO;
	else
		*len = (size_t)st.st_size;
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
	close(fd);
	return ret;
}

/* The number N of a directory entry named base.cpuN; -1 if it is not one. */
static int cpu_number(const char *entry, const char *base)
{
	size_t n = strlen(base);
	char *end;
	long v;

	if (strncmp(entry, base, n) || strncmp(entry + n, ".cpu", 4))
		return -1;
	entry += n + 4;
	if (*entry < '0' || *entry > '9')
		return -1;
	v = strtol(entry, &end, 10);
	return *end || v > 65535 ? -1 : (int)v;
}

/* Open every PATH.cpuN there is: the number of CPUs, 0 if none, or -errno. */
static int open_data_files(struct rec *r)
{
	char *slash = strrchr(r->path, '/');
	char dir[PATH_MAX];
	const char *base = slash ? slash + 1 : r->path;
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int cpu, ret = 0;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - r->path) + 1 : 1,
		 slash ? r->path : ".");
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while (!ret && (d = readdir(dp))) {
		cpu = cpu_number(d->d_name, base);
		if (cpu < 0)
			continue;
		if (cpu >= r->cap_cpus && grow_cpus(r, cpu + 1)) {
			ret = -ENOMEM;
			break;
		}
		r->cpus[cpu].fd = open(cpu_file(r, cpu), O_RDONLY | O_CLOEXEC);
		if (r->cpus[cpu].fd < 0 || fstat(r->cpus[cpu].fd, &st)) {
			ret = -errno;
			break;
		}
		/* A page cut short by the kill is dropped. */
		r->cpus[cpu].bytes = (uint64_t)st.st_size / PAGE * PAGE;
		if (cpu >= r->nr_cpus)
			r->nr_cpus = cpu + 1;
	}
	closedir(dp);
	return ret ? ret : r->nr_cpus;
}

SLIM_EXPORT int slim_record_recover(const char *path)
{
	struct reader rd = { 0 };
	unsigned char *buf;
	struct rec *r;
	size_t len;
	int ret = check_path(path);

	if (ret)
		return ret;
	r = rec_alloc(path);
	if (!r)
		return -ENOMEM;
	ret = read_whole(path, &buf, &len);
	if (ret) {
		if (ret == -EINVAL)
			fprintf(stderr, "slimtrace: recover %s: empty file\n", path);
		rec_free(r);
		return ret;
	}
	rd.p = buf;
	rd.len = len;
	r->meta_len = parse_meta(&rd);
	r->meta = buf;
	r->meta_has_cmdlines = 1;
	if (!r->meta_len) {
		fprintf(stderr, "slimtrace: recover %s: %s (at byte %zu)\n",
			path, rd.err, rd.off);
		rec_free(r);
		return -EINVAL;
	}
	ret = open_data_files(r);
	if (ret == 0)
		ret = -ENOENT;
	if (ret > 0) {
		recovered_clock(&rd, r);
		ret = write_file(r, TAIL_RECOVERED);
	}
	if (!ret)
		remove_data(r);
	rec_free(r);
	return ret;
}
