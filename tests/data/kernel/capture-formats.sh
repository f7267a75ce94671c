#!/bin/sh
# Regenerate the kernel reference format files in tests/data/kernel/formats/.
# Needs root and a kernel with tracefs. The empty `trace` header is taken from a
# scratch instance so that events recorded by others in the top-level buffer do
# not leak into it (the header text is the same for instances).
set -eu

T=/sys/kernel/tracing
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$HERE/formats

if [ ! -e "$T/trace" ]; then
	mount -t tracefs nodev "$T"
fi

mkdir -p "$OUT"
for ev in sched/sched_switch sched/sched_wakeup irq/irq_handler_entry \
	  sched/sched_process_fork kmem/kmalloc signal/signal_generate \
	  signal/signal_deliver ipi/ipi_send_cpumask; do
	cat "$T/events/$ev/format" > "$OUT/${ev#*/}.format"
done
cat "$T/events/header_page" > "$OUT/header_page"
cat "$T/events/header_event" > "$OUT/header_event"
cat "$T/trace_clock" > "$OUT/trace_clock"

inst=$T/instances/slimcap_formats.$$
mkdir "$inst"
trap 'rmdir "$inst" 2>/dev/null || true' EXIT
cat "$inst/trace" > "$OUT/trace_header.txt"

uname -r > "$HERE/KERNEL"
