/* The shared object: defines its events and fires them on request. */
#define CREATE_TRACE_POINTS
#include "plugin_events.h"

__attribute__((visibility("default"))) void plugin_fire(int v)
{
	trace_plugin_ev(v, "plugin");
	trace_plugin_tp(v);
}
