#pragma once
/// @file Turns a stream of latency samples into the figures every view and report shows. Used by the
/// collector for live runs and by replays of recorded or injected samples, so both give identical numbers.
#include "engine/pipeline/decimated_series.h"
#include "engine/pipeline/histogram.h"

#include <cstdint>
#include <vector>

namespace rtscope {

/// @brief One measured wake-up (plain data: copied through the ring).
struct LatencySample {
    uint64_t seq = 0;       ///< 0, 1, 2, … per run: a gap means a sample was lost
    int64_t deadlineNs = 0; ///< CLOCK_MONOTONIC deadline
    int64_t wakeNs = 0;     ///< clock read on wake
    int64_t latencyNs = 0;  ///< wake − deadline
    uint32_t skipped = 0;   ///< periods missed entirely before this wake-up
    uint32_t epoch = 0;     ///< configuration epoch the sample was taken under
};

/// @brief Figures of one measuring thread since the last reset.
struct LatencyThreadStats {
    int cpu = -1;
    int tid = 0;
    Histogram histogram = Histogram(0);
    uint64_t samples = 0;
    uint64_t skipped = 0;               ///< missed periods (deadline advanced past them)
    uint64_t drops = 0;                 ///< samples the ring refused (full); must stay 0
    uint64_t seqGaps = 0;               ///< samples missing from the sequence, as the collector saw it
    int64_t lastNs = 0;                 ///< latency of the newest sample ("Act")
    std::vector<uint64_t> overflowSeqs; ///< first sequence numbers whose latency overflowed the µs bins
    std::vector<SeriesPoint> series;    ///< min/max per 1 ms bucket over the snapshot window
};

class LatencyAggregator {
public:
    static constexpr int64_t kSeriesBucketNs = 1'000'000; ///< 1 ms: finer than a pixel of a 10 s timeline
    static constexpr size_t kSeriesCapacity = 120'000;    ///< 120 s of buckets

    /// @param exactUsBins cyclictest-style 1 µs bins kept for export (0 = none)
    /// @param seriesStorage the timeline's buckets up front (a live run) or as samples come (a replay)
    /// @param seriesCapacity buckets kept: 120 s, or a compact run's series window (LatencyRun::setCompact)
    explicit LatencyAggregator(size_t exactUsBins = 0,
                               DecimatedSeries::Storage seriesStorage = DecimatedSeries::Storage::Upfront,
                               size_t seriesCapacity = kSeriesCapacity);

    void add(const LatencySample& s);
    /// @brief Clears histogram and counters; the timeline and the sequence tracking are kept.
    void resetStatistics();
    /// @brief Everything, including the timeline and the sequence tracking (a new run).
    void clear(size_t exactUsBins);

    /// @brief A copy of the figures, with the timeline from @p seriesSinceNs on.
    LatencyThreadStats stats(int64_t seriesSinceNs) const;
    const LatencyThreadStats& current() const { return m_stats; }
    uint64_t expectedSeq() const { return m_expectedSeq; }

private:
    LatencyThreadStats m_stats;
    DecimatedSeries m_series;
    uint64_t m_expectedSeq = 0;
    size_t m_overflowLimit = 0;
};

} // namespace rtscope
