#pragma once
/// @file What a latency run publishes (LatencySnapshot) and its parts: the data a view, a report, a recording and
/// a replay share, without the run that makes it (latency_run.h).
#include "engine/experiments/latency/latency_config.h"
#include "engine/experiments/run_status.h"
#include "engine/pipeline/anatomy_figures.h"
#include "engine/pipeline/latency_aggregator.h"
#include "engine/rt/sched_deadline.h"
#include "engine/trace/trace_session.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rtscope {

/// @brief How many markers a run keeps (live or replayed): a change a second for almost three hours.
inline constexpr size_t kMaxMarkers = 10'000;

/// @brief A labelled point on the timeline: a configuration change, a start, a reset.
struct Marker {
    int64_t tNs = 0;
    uint64_t seq = 0;
    std::string label;
};

/// @brief The state of a run's kernel tracing and what it found (docs/experiments/anatomy.md).
struct LatencyTracing {
    bool active = false;                    ///< the trace session runs (or ran, in a final snapshot)
    std::string unavailable;                ///< why it does not run: the exact reason and the fix; empty when active
    std::vector<std::string> missingEvents; ///< trace events this kernel lacks (their parts may be unknown)
    TraceStats stats;                       ///< the reader's counts: events, lost events, the kernel's overruns
    int64_t thresholdNs = 0;                ///< as configured (0 = none)
    int top = 0;                            ///< as configured
    AnatomyFigures figures;
    /// Events the reader handed on that the queue to the collector had no room for (LatencyTracer::kQueueEvents):
    /// lost to the analysis like the kernel's lost events, and marked in the window the same way (a Lost event per
    /// CPU over the span they covered), so an anatomy across that span says its events were lost and leaves the parts
    /// there unknown.
    uint64_t queueDroppedEvents = 0;
    uint64_t queueDroppedBatches = 0;
    std::string stopError; ///< the session's instance could not be removed (with the command that removes it)
    /// CLOCK_MONOTONIC when these figures were taken: while the run goes on they are refreshed every
    /// LatencyTracer::kRefreshNs (copying the kept windows at every frame would cost the collector more than they
    /// change); the final snapshot's are the final ones.
    int64_t updatedNs = 0;
};

/// finished: reached its duration or sample count. error: a worker's failure (e.g. a wait returned an error).
struct LatencySnapshot : SnapshotOf<LatencyConfig> {
    int64_t resetNs = 0; ///< CLOCK_MONOTONIC of the last statistics reset (== startNs if none)
    /// CLOCK_MONOTONIC when the run was asked to stop (0 while it runs): no counted wake-up is at or after it.
    int64_t stopRequestedNs = 0;
    std::vector<LatencyThreadStats> threads;
    /// Policy deadline: per measuring thread (index as threads), its overruns (SCHED_FLAG_DL_OVERRUN) or why they
    /// are not counted; empty for the other policies.
    std::vector<DeadlineOverrunFigure> overruns;
    std::vector<Marker> markers;
    uint64_t hogIterations = 0; ///< work done by all hogs since start (RT changes when, not how much)
    double hogIterationsPerSec = 0;
    bool dmaLatencyHeld = false;
    std::string dmaLatencyNote;
    /// The latency anatomy (config.trace): null when tracing was not asked for.
    std::shared_ptr<const LatencyTracing> tracing;
};

} // namespace rtscope
