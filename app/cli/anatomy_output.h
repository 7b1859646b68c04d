#pragma once
// The latency anatomy on the command line (docs/experiments/anatomy.md, docs/cli.md): what `rtscope latency
// --trace` prints after the summary — the trace status line, the table of who delayed the measuring thread and one
// paragraph per worst wake-up with its parts — and the sentence on stderr when tracing could not run. Any
// subcommand that runs the latency experiment (latency, run --preset, sweep) can print it the same way. The text
// is built as strings (tests/cli/tst_anatomy_cli.cpp checks it on hand-made figures); only print* write.
#include <string>

namespace rtscope {
struct LatencySnapshot;
struct LatencyTracing;
} // namespace rtscope

namespace rtscope::cli {

/// "Tracing: private tracefs instance on CPU 1 · 123456 events in 2.00 s (61728 events/s) · lost events 0 …":
/// what the trace session did, with the lost events always shown. Empty when tracing was not asked for.
std::string anatomyStatusText(const LatencySnapshot& snapshot);
/// "Who delayed the measuring thread": one row per culprit (kind, name, pid/irq, prio, wake-ups delayed, total,
/// worst), most total time first; a line saying so when no wake-up was delayed by anyone.
std::string culpritTableText(const LatencySnapshot& snapshot);
/// The worst wake-ups, worst first: each anatomyVerdict() and its parts (timer IRQ delay, interrupts by handler,
/// scheduling delay by task, return to user, unaccounted), "unknown" where a part is; then the threshold's count.
std::string worstWakeupsText(const LatencySnapshot& snapshot);
/// The three above, separated by blank lines; empty when tracing was not asked for or did not run.
std::string anatomyText(const LatencySnapshot& snapshot);
/// "rtscope CMD: tracing is not available: REASON; the run goes on untraced (…)" when tracing was asked for and
/// could not run; empty otherwise.
std::string tracingUnavailableText(const std::string& command, const LatencySnapshot& snapshot);

/// Prints anatomyText() on stdout (nothing when it is empty).
void printAnatomy(const LatencySnapshot& snapshot);
/// Prints tracingUnavailableText() on stderr once: true when it printed now or had been printed before, so a
/// caller that watches snapshots while the run goes on can stop asking (@p printed keeps that state).
bool printTracingUnavailable(const std::string& command, const LatencySnapshot& snapshot, bool& printed);
/// "rtscope CMD: warning: tracing: …" on stderr when the trace session's instance could not be removed at the end.
void printTracingStopError(const std::string& command, const LatencySnapshot& snapshot);

} // namespace rtscope::cli
