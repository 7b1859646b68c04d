#pragma once
// Turns contention snapshots into the figures the page shows: one summary per lock kind (throughput, wait
// percentiles, context switches per acquisition, CPU cost, fairness, acquisition paths), the order of the
// throughput ranking, and the plain data of the chart. The table, the tiles and the chart all read these, so
// a figure is computed once and reads the same everywhere.
#include "engine/experiments/locks/contention_experiment.h"
#include "ui/plot/contention_chart.h"

#include <QString>

#include <vector>

namespace rtscope {

struct ContentionKindSummary {
    LockKind kind = LockKind::Mutex;
    int colorIndex = 0; ///< the kind's place in ContentionConfig::contentionKinds(): one colour per kind
    KindRunState state = KindRunState::Pending;
    double elapsedSec = 0;
    uint64_t acquisitions = 0;
    double acquisitionsPerSec = 0;
    double vsMutex = 0;       ///< throughput / the plain mutex's; 0 when there is no mutex figure
    uint64_t waitSamples = 0; ///< acquisitions whose wait reached the histogram
    int64_t waitP50Ns = 0;
    int64_t waitP99Ns = 0;
    int64_t waitMaxNs = 0;
    uint64_t voluntarySwitches = 0;
    uint64_t involuntarySwitches = 0;
    double voluntaryPer1k = 0; ///< per 1000 acquisitions
    double involuntaryPer1k = 0;
    double cpuNsPerAcquisition = 0;
    double fairness = 0; ///< Jain's index
    double minShare = 0;
    double maxShare = 0;
    double uncontendedPercent = 0; ///< of all acquisitions
    double spunPercent = 0;        ///< spun (or retried) and won without sleeping
    double sleptPercent = 0;
    AcquisitionCounts counts;
    uint64_t samplesDropped = 0;
    QString error;

    bool hasFigures() const { return acquisitions > 0; }
};

/// One summary per kind of the snapshot, in the run's order.
std::vector<ContentionKindSummary> summarizeContention(const ContentionSnapshot& snapshot);

/// Indices into @p kinds, fastest first; kinds without figures (pending, failed early) last, in run order.
std::vector<size_t> throughputRanking(const std::vector<ContentionKindSummary>& kinds);

/// The chart's bars (in ranking order) and one wait histogram per kind that has one.
ContentionChartData contentionChartData(const ContentionSnapshot& snapshot,
                                        const std::vector<ContentionKindSummary>& kinds);

/// "174.5 k/s", "1.23 M/s", "950 /s".
QString formatRate(double perSecond);
/// "1.58×".
QString formatRatio(double ratio);
/// "96.6 %".
QString formatPercent(double percent);

} // namespace rtscope
