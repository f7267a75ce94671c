// SPDX-License-Identifier: MIT
/*
 * Events of a shared object appear when it is opened and disappear when
 * it is closed: the kernel's module load and unload.
 */
#include <dlfcn.h>
#include <slimtrace/output.h>
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

int main(void)
{
	void (*fire)(int) = NULL;
	struct slim_event *ev;
	char line[128];
	struct slim_seq s, p;
	char scratch[128];
	void *h;
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

	/* Unload: the events go, their records too (as on module unload). */
	CHECK_EQ_INT(dlclose(h), 0);
	CHECK(slim_event_find("plugin", "plugin_ev") == NULL);
	CHECK(slim_event_by_id(id) == NULL);
	CHECK(slim_tracepoint_find("plugin_tp") == NULL);
	CHECK_EQ_INT(test_records(recs, 8), 0);

	/* Load again: back, disabled, with a fresh id and no old probes. */
	h = open_plugin(&fire);
	CHECK(h != NULL);
	if (!h)
		return check_done("dlopen");
	ev = slim_event_find("plugin", "plugin_ev");
	CHECK(ev != NULL && !(ev->flags & SLIM_EVENT_FL_ENABLED));
	fire(7);
	CHECK_EQ_INT(probe_hits, 5);
	CHECK_EQ_INT(test_records(recs, 8), 0);
	CHECK_EQ_INT(dlclose(h), 0);
	return check_done("dlopen");
}
