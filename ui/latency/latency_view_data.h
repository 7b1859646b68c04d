#pragma once
// Turns latency snapshots into the plain data the charts and the table take: histogram buckets in µs,
// percentile markers, timeline columns at relative seconds, configuration markers, one summary per run.
#include "engine/experiments/latency_experiment.h"
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

HistogramCurve histogramCurve(const Histogram& histogram, const QString& name);
/// p50, p99, p99.9 and max of @p histogram (none when it is empty).
std::vector<VerticalMarker> percentileMarkers(const Histogram& histogram);

/// Thread @p thread's timeline at seconds relative to the snapshot's publish time (oldest first).
std::vector<TimelinePoint> timelinePoints(const LatencySnapshot& snapshot, size_t thread = 0);
/// Markers inside the last @p windowSeconds; a "reset" right after a change (the automatic reset) is left out.
std::vector<VerticalMarker> timelineMarkers(const LatencySnapshot& snapshot, double windowSeconds);

/// "FIFO 80, 16 hogs": what a viewer compares, short enough for a legend.
QString shortConfigLabel(const LatencyConfig& config);
/// The frozen run's maximum as a marker in the reference colour ("ref. max 15.9 ms").
VerticalMarker referenceMaxMarker(const Histogram& histogram);

/// "850 ns", "12.3 µs", "3.90 ms", "1.20 s".
QString formatLatency(double ns);
/// A latency in µs for a table cell: "4.21", "57.3", "3901".
QString formatMicros(double ns);

} // namespace rtscope
