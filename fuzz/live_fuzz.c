// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the control endpoint's server side: the input is
 * the byte stream a client sends (its first byte picks how it is cut into
 * reads), fed to the protocol's state machine (src/live/conn.c) over the
 * whole library, with the live test target's events loaded.  Every reply
 * must be a well-formed frame (anything else aborts: a finding), and the
 * settings are put back after each input so that inputs stay independent.
 *
 * Inputs naming `record` (it writes files wherever a path says) or
 * `buffer_size_kb` (gigabytes on request) are skipped: those are the
 * control calls' business, not the protocol's.
 *
 * Built and run by `make fuzz-live` (fuzz/fuzz.mk), without
 * src/live/endpoint.c: no thread, no socket.
 */
#define CREATE_TRACE_POINTS
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <slimtrace/ctl.h>
#include "target_events.h"
#include "live/conn.h"
#include "live/proto.h"

/* What the registry refers to so that static links keep the endpoint. */
const char slim_endpoint_linked = 1;

static void check_replies(struct live_conn *c)
{
	while (c->out.len) {
		struct slim_live_hdr h;

		if (c->out.len < SLIM_LIVE_HDR_SIZE)
			abort();
		slim_live_hdr_unpack(&h, c->out.data + c->out.head);
		if (c->out.len < SLIM_LIVE_HDR_SIZE + h.len || h.flags ||
		    (h.op != SLIM_LIVE_DATA && h.op != SLIM_LIVE_DONE) ||
		    (h.op == SLIM_LIVE_DATA && h.len > SLIM_LIVE_MAX_CHUNK) ||
		    h.status > 0 || h.status < -4095)
			abort();
		live_conn_sent(c, SLIM_LIVE_HDR_SIZE + h.len);
	}
}

static void reset(void)
{
	slim_ctl_write("set_event", "");
	slim_ctl_write("events/live/filter", "0");
	slim_ctl_write("tracing_on", "1");
	slim_ctl_write("trace_clock", "mono");
	slim_ctl_write("trace_options", "noraw");
	slim_ctl_write("trace_options", "nohex");
	slim_ctl_write("trace_options", "nobin");
	slim_ctl_write("trace", "");
	slim_ctl_write("error_log", "");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct live_conn c;
	size_t step, off = 0;

	if (!size || memmem(data, size, "record", 6) || memmem(data, size, "buffer_size", 11))
		return 0;
	step = data[0] % 64 + 1;
	data++;
	size--;
	live_conn_init(&c, 1);
	trace_live_tick(1, 2);
	while (off < size && c.state != LIVE_CLOSING) {
		size_t n = step < size - off ? step : size - off;
		unsigned char *p = live_conn_in_space(&c, &n);

		if (!p)
			break;
		memcpy(p, data + off, n);
		live_conn_received(&c, n);
		off += n;
		for (;;) {
			live_conn_process(&c);
			trace_live_parse((int)off, 3);
			live_conn_stream(&c);
			if (!c.out.len)
				break;
			check_replies(&c);
		}
	}
	live_conn_free(&c);
	reset();
	return 0;
}
