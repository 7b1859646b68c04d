#pragma once
// Turns latency snapshots into the plain data the charts and the tables take: timeline columns at relative seconds,
// configuration markers, one summary per run (histograms: histogram_data.h). The latency page and the workbench's
// per-CPU and sweep pages share it.
#include "engine/experiments/latency/latency_experiment.h"
#include "ui/common/histogram_data.h"
#include "ui/plot/plot_data.h"

#include <QString>

#include <cstdint>
#include <string>
#include <vector>

namespace rtscope {

/// One row of the statistics table.
struct LatencyRunSummary {
    QString label; ///< the config that produced the figures
    uint64_t samples = 0;
    int64_t minNs = 0;
    double avgNs = 0;
    int64_t p50Ns = 0;
    int64_t p90Ns = 0;
    int64_t p99Ns = 0;
    int64_t p999Ns = 0;
    int64_t maxNs = 0;
    uint64_t skipped = 0;
    uint64_t drops = 0;
    uint64_t seqGaps = 0;
};

LatencyRunSummary summarizeRun(const LatencyThreadStats& stats, const std::string& configLabel);

/// Thread @p thread's timeline at seconds relative to the snapshot's publish time (oldest first).
std::vector<TimelinePoint> timelinePoints(const LatencySnapshot& snapshot, size_t thread = 0);
/// Markers inside the last @p windowSeconds; a "reset" right after a change (the automatic reset) is left out.
std::vector<VerticalMarker> timelineMarkers(const LatencySnapshot& snapshot, double windowSeconds);

/// "FIFO 80, 16 hogs": what a viewer compares, short enough for a legend.
QString shortConfigLabel(const LatencyConfig& config);
/// The frozen run's maximum as a marker in the reference colour ("ref. max 15.9 ms").
VerticalMarker referenceMaxMarker(const Histogram& histogram);

} // namespace rtscope
