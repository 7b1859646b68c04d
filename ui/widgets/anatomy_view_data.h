#pragma once
// The view data of the latency anatomy (docs/experiments/anatomy.md): what turns one traced wake-up (TracedWakeup:
// its anatomy and the kernel's events around it) into the swimlane and the stacked bar of ui/plot/, and the run's
// tracing status line. Plain functions of their arguments, without widgets, so that tests call them directly.
#include "engine/experiments/latency/latency_snapshot.h"
#include "ui/plot/anatomy_breakdown_bar.h"
#include "ui/plot/anatomy_swimlane.h"

#include <QString>

#include <vector>

namespace rtscope {

/// The swimlane of @p wakeup: its CPU from shortly before the deadline to shortly after the wake-up, in four lanes —
/// the parts of the latency, the measuring thread's states, the task holding the CPU, the interrupts — read from
/// its events (the switches the kernel did not record are inferred as wakeup_anatomy.h does, and drawn so); time
/// in µs from the deadline. What no event tells (before the first, after the last, a span the kernel lost) is
/// Unknown.
AnatomySwimlaneData anatomySwimlaneData(const TracedWakeup& wakeup);
/// The top lane of the swimlane: the parts of @p anatomy's latency that it found, in time order from the deadline
/// to the wake-up, and Unknown pieces (saying why, from its note) for what they leave uncovered in between; only
/// Unknown when the anatomy is not consistent.
std::vector<SwimSegment> latencyPartsLane(const WakeupAnatomy& anatomy);
/// The stacked bar of @p anatomy: its four parts in time order (an unknown one without a size), and what the known
/// ones leave unaccounted (exactly latency − their sum), when anything is.
AnatomyBreakdownData anatomyBreakdownData(const WakeupAnatomy& anatomy);
/// One line on the run's tracing, HTML: events per second, lost events (red when any), the wake-ups analysed, the
/// events this kernel lacks; or why tracing does not run. @p snapshot gives the elapsed time.
QString tracingStatusHtml(const LatencyTracing& tracing, const LatencySnapshot& snapshot);

} // namespace rtscope
