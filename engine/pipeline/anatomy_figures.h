#pragma once
/// @file What a traced latency run knows about *why* its wake-ups were late (docs/experiments/anatomy.md): the worst
/// wake-ups and those over a threshold, each with its anatomy and the raw kernel events around it, and the culprit
/// table over every wake-up analysed. Plain data, produced on the collector thread by the anatomy aggregator and
/// carried in LatencySnapshot::tracing for the CLI, the GUI and recordings.
#include "engine/pipeline/trace_event.h"
#include "engine/pipeline/wakeup_anatomy.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rtscope {

/// @brief One measured wake-up explained.
struct TracedWakeup {
    WakeupAnatomy anatomy;          ///< its parts; anatomy.latencyNs is the measured latency
    uint64_t seq = 0;               ///< the LatencySample's sequence number
    size_t thread = 0;              ///< index of its measuring thread in the snapshot's threads
    std::vector<TraceEvent> events; ///< every traced CPU's events of its window, in time order (for the swimlane)
    /// Events of the window left out at its start, to keep at most AnatomyAggregator::Limits::maxWindowEvents
    /// (the anatomy itself saw them all); 0 almost always.
    size_t eventsOmitted = 0;
};

/// @brief The anatomy figures of a run so far. Counts say what the lists leave out: nothing is dropped silently.
struct AnatomyFigures {
    uint64_t wakeupsSeen = 0;     ///< measured wake-ups offered for analysis
    uint64_t wakeupsAnalysed = 0; ///< whose event window had arrived (the rest were still waiting, or too old)
    uint64_t wakeupsComplete = 0; ///< analysed with every part known
    uint64_t wakeupsWithLoss = 0; ///< analysed where the kernel reported lost events inside the window
    /// Never analysed: their window reached back before the events held (tracing had not begun, or the window's
    /// bound had discarded them), or their CPU recorded nothing after them before tracing stopped, or the bound
    /// on waiting wake-ups pushed them out. wakeupsSeen = wakeupsAnalysed + wakeupsNotAnalysed + wakeupsPending.
    uint64_t wakeupsNotAnalysed = 0;
    uint64_t wakeupsPending = 0; ///< still waiting for their CPU's events (the reader's lag: a poll period or two)
    /// Events pushed out of the window by its bound (AnatomyAggregator::Limits::maxEvents), or that arrived older
    /// than the window's start; not those stamped before tracing began. The wake-ups that needed them are counted
    /// in wakeupsNotAnalysed, never analysed without them.
    uint64_t eventsDropped = 0;
    std::vector<TracedWakeup> worst;         ///< the top N by latency (LatencyConfig::traceTop), worst first
    std::vector<TracedWakeup> overThreshold; ///< the latest ones over LatencyConfig::traceThresholdNs, oldest first
    uint64_t overThresholdTotal = 0;         ///< how many crossed the threshold (the list keeps the latest)
    std::vector<CulpritRow> culprits;        ///< CulpritTable::rows() over every analysed wake-up
};

} // namespace rtscope
