#!/bin/sh
# One latency test for a CI job (docs/ci.md): `rtscope latency` on the chosen CPUs with CPU hogs, the JSON, the
# histfile and the printed summary kept in $RTSCOPE_OUT, and rtscope's exit code as the script's: 0 the limit held,
# 4 it was broken or could not be checked, 1 a failure, 2 bad input, 3 no real-time privilege.
#
# Settings (environment):
#   RTSCOPE_BIN         the rtscope binary (default: rtscope from PATH)
#   RTSCOPE_DURATION    how long to measure (default 300s)
#   RTSCOPE_LIMIT       the latency limit (default 100us)
#   RTSCOPE_PERCENTILE  the percentile held to it: max, or a number such as 99.99 (default max)
#   RTSCOPE_CPUS        the measured CPUs: all, or a list like 1-3 (default all)
#   RTSCOPE_HOGS        CPU hogs (SCHED_OTHER spinners) on each measured CPU (default 1)
#   RTSCOPE_PRIORITY    SCHED_FIFO priority of the measuring threads (default 95)
#   RTSCOPE_OUT         the directory for the results (default ./rtscope-results)
# Under LAVA (lava-test-case on PATH) the verdict is also reported as the test case "rtscope-latency".
set -u
bin=${RTSCOPE_BIN:-rtscope}
out=${RTSCOPE_OUT:-./rtscope-results}
mkdir -p "$out" || exit 1

"$bin" latency --policy fifo -p "${RTSCOPE_PRIORITY:-95}" --cpus "${RTSCOPE_CPUS:-all}" \
    --hogs "${RTSCOPE_HOGS:-1}" -D "${RTSCOPE_DURATION:-300s}" -q \
    --json "$out/latency.json" --histfile "$out/latency.hist" \
    --fail-above "${RTSCOPE_LIMIT:-100us}" --fail-percentile "${RTSCOPE_PERCENTILE:-max}" \
    >"$out/summary.txt" 2>&1
rc=$?
cat "$out/summary.txt"

if command -v lava-test-case >/dev/null 2>&1; then
    if [ "$rc" -eq 0 ]; then result=pass; else result=fail; fi
    lava-test-case rtscope-latency --result "$result"
fi
exit "$rc"
