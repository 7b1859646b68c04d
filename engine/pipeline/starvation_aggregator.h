#pragma once
/// @file The starvation lab's figures (docs/experiments/starvation.md, "How it is measured"): what the collector
/// drains from the spinner, the sampler and the counters, turned into per-counter progress and rates, the lead-in,
/// one record per burst and the windows in which a starved counter advanced anyway. A plain class with no thread and
/// no atomic: the experiment feeds it on the collector thread, the tests feed it synthetic runs.
#include "engine/pipeline/decimated_series.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace rtscope {

/// @brief The most counter threads of one run: StarvationConfig::kMaxCounters (8) counters plus the control one.
/// Fixed, so that events and samples are plain data of one size that a ring copies.
inline constexpr int kStarvationMaxThreads = 9;

/// @brief A stretch of time in which one counter thread ran with no break longer than
/// StarvationAggregator::kStallNs (CLOCK_MONOTONIC ns).
struct RunSegment {
    int64_t startNs = 0;
    int64_t endNs = 0;
};

/// @brief A stretch of a burst in which a starved counter advanced although the spinner wanted the CPU:
/// the kernel's safety net (RT throttling, or the fair server on kernels >= 6.12) at work.
struct ThrottleWindow {
    int64_t startNs = 0; ///< CLOCK_MONOTONIC
    int64_t endNs = 0;
    int64_t offsetNs = 0;  ///< from the start of its burst
    int64_t spacingNs = 0; ///< start to start from the previous window of the same burst; 0 for the first
    int64_t lengthNs() const { return endNs - startNs; }
};

/// @brief The windows of one burst from the counters' run segments: each segment is clipped to the burst,
/// then segments closer than @p mergeGapNs are joined (counters and other tasks take turns inside one
/// window). A segment that ended before the burst began is the counter's work before it was preempted.
std::vector<ThrottleWindow> findThrottleWindows(int64_t burstStartNs, int64_t burstEndNs,
                                                std::vector<RunSegment> segments, int64_t mergeGapNs);

/// @brief One counter thread, for the big live numbers and the rate lines.
struct CounterStats {
    std::string label; ///< "counter 1", ..., "control"
    int cpu = -1;
    bool control = false; ///< runs on another CPU than the spinner: the bursts must not touch it
    int nice = 0;
    pid_t tid = 0;
    uint64_t ops = 0;              ///< operations (increments) since start
    double opsPerSec = 0;          ///< over the last 100 ms
    std::vector<SeriesPoint> rate; ///< ops/s per sampler interval (values in ops/s, not ns), oldest first
};

/// @brief One burst of the spinner and the gap after it.
struct BurstRecord {
    int index = 0;        ///< 1-based
    int64_t startNs = 0;  ///< the spinner's clock when it began spinning
    int64_t endNs = 0;    ///< when it stopped spinning; 0 while it spins
    int64_t gapEndNs = 0; ///< end of the gap after it (next burst or end of run); 0 while that gap runs
    /// @brief Operations per counter (snapshot order) while the spinner spun: 0 for the starved counters
    /// unless the kernel's safety net let them in.
    std::array<uint64_t, kStarvationMaxThreads> during{};
    std::array<uint64_t, kStarvationMaxThreads> after{}; ///< per counter, in the gap after the burst
    std::vector<ThrottleWindow> windows;                 ///< where the starved counters advanced during the burst
    bool windowsFinal = false;    ///< every starved counter has run since the burst ended: no window can appear
    bool watchdogDemoted = false; ///< the watchdog had to demote the spinner in this burst
    bool interrupted = false;     ///< stopped while spinning

    bool spinning() const { return endNs == 0; }
    int64_t spinnerNs() const { return endNs ? endNs - startNs : 0; }
    int64_t gapNs() const { return gapEndNs && endNs ? gapEndNs - endNs : 0; }
    /// @brief Sum over the first @p n counters (the starved ones).
    uint64_t duringSum(int n) const;
    uint64_t afterSum(int n) const;
};

/// @brief What the spinner reports at the edges of its run and of each burst, with every counter's operations read
/// at that instant (plain data: copied through the ring).
struct StarvationSpinnerEvent {
    enum Kind : uint8_t { RunStart, BurstStart, BurstEnd, RunEnd };
    Kind kind = RunStart;
    bool demoted = false;     ///< BurstEnd: the watchdog demoted the spinner in this burst; RunEnd: in the last one
    bool interrupted = false; ///< BurstEnd: stopped while spinning; RunEnd: stopped before the planned end
    int32_t burst = 0;        ///< 1-based for BurstStart and BurstEnd, 0 otherwise
    int64_t tNs = 0;          ///< the spinner's clock (CLOCK_MONOTONIC)
    uint64_t counts[kStarvationMaxThreads] = {};
};

/// @brief The sampler's reading of every counter, every StarvationConfig::kSampleIntervalNs (plain data).
struct StarvationProgressSample {
    int64_t tNs = 0;
    uint64_t counts[kStarvationMaxThreads] = {};
};

/// @brief The gap before the first burst: how fast the counters go when nothing starves them.
struct StarvationLeadIn {
    int64_t ns = 0; ///< its length so far (the whole gap once the first burst began); 0 before the run started
    std::array<uint64_t, kStarvationMaxThreads> counts{}; ///< operations per counter in it
};

class StarvationAggregator {
public:
    static constexpr int64_t kStallNs = 1'000'000;        ///< a counter off the CPU longer than this ends a segment
    static constexpr int64_t kWindowMergeNs = 20'000'000; ///< breaks inside one throttling window are shorter
    static constexpr size_t kMaxBurstRecords = 1000;      ///< a longer repeating run keeps the newest
    /// Segments kept per counter at most: a counter closes a few hundred segments a second, so only a collector
    /// that has not published for minutes comes near; then the older half goes.
    static constexpr size_t kMaxSegmentsKept = 200'000;
    /// Segments that can no longer touch an unsettled burst are kept this long, then forgotten.
    static constexpr int64_t kSegmentKeepNs = 1'000'000'000;
    static constexpr int kLiveRateSamples = 10;   ///< the live rate spans this many sampler intervals (100 ms)
    static constexpr size_t kHistorySamples = 16; ///< the latest samples kept, for the live rate
    static_assert(size_t(kLiveRateSamples) < kHistorySamples);

    /// @brief An aggregator of no counter (before a run).
    StarvationAggregator();
    /// @param threads counters including the control one, 1 .. kStarvationMaxThreads
    /// @param starved the first @p starved counters share the spinner's CPU; the rest is the control counter
    /// @param seriesWindowNs how much of the rate lines may be asked for; with @p sampleIntervalNs (the sampler's
    /// period) it sizes them, allocated here: adding a sample never allocates
    StarvationAggregator(int threads, int starved, int64_t seriesWindowNs, int64_t sampleIntervalNs);

    /// @brief One spinner event: opens or closes the lead-in, a burst or its gap.
    void addEvent(const StarvationSpinnerEvent& ev);
    /// @brief One sampler reading: a point of each counter's rate line and the latest operation counts.
    void addSample(const StarvationProgressSample& s);
    /// @brief Closed run segments of counter @p counter, in the order it closed them; the oldest half is dropped
    /// when more than kMaxSegmentsKept are kept.
    void addSegments(int counter, const RunSegment* segments, size_t n);
    /// @brief Recomputes the windows of every burst that is not final, as of @p nowNs. @p open holds each starved
    /// counter's segment running now ({INT64_MAX, …} for none), read before its closed segments were drained: a
    /// counter announces a new open segment only after pushing the one it closed. A burst whose counters have all
    /// opened a segment after its end is final; segments older than every unsettled burst and kSegmentKeepNs are
    /// forgotten.
    void updateWindows(int64_t nowNs, const std::array<RunSegment, kStarvationMaxThreads>& open);

    int threads() const { return m_threads; }
    int starved() const { return m_starved; }
    /// @brief Oldest first, the one spinning now last; at most kMaxBurstRecords.
    const std::vector<BurstRecord>& bursts() const { return m_bursts; }
    uint64_t burstsDropped() const { return m_burstsDropped; }
    /// @brief The lead-in so far: up to the first burst once it began, else up to the latest sample.
    StarvationLeadIn leadIn() const;
    /// @brief One entry per counter with label, control, ops (the latest sample's), opsPerSec (over the last
    /// kLiveRateSamples intervals) and the rate line from @p seriesSinceNs on; the caller adds cpu, nice and tid.
    std::vector<CounterStats> counterStats(int64_t seriesSinceNs) const;
    int64_t runStartNs() const { return m_runStartNs; }
    int64_t runEndNs() const { return m_runEndNs; } ///< 0 until the spinner's RunEnd
    bool interrupted() const { return m_interrupted; }
    /// @brief Closed segments kept for counter @p counter (tests: the memory bound).
    size_t segmentsKept(int counter) const { return m_counters[size_t(counter)].segments.size(); }

private:
    struct Counter {
        DecimatedSeries rate;
        uint64_t ops = 0;
        std::vector<RunSegment> segments; ///< closed segments that may still matter to an unsettled burst
    };
    const StarvationProgressSample* latestSample() const;

    int m_threads = 0;
    int m_starved = 0;
    std::vector<Counter> m_counters;
    std::array<StarvationProgressSample, kHistorySamples> m_history{}; ///< the latest samples, for the live rate
    size_t m_historyCount = 0;
    std::vector<BurstRecord> m_bursts;
    uint64_t m_burstsDropped = 0;
    std::array<uint64_t, kStarvationMaxThreads> m_runStartCounts{};
    std::array<uint64_t, kStarvationMaxThreads> m_burstStartCounts{};
    std::array<uint64_t, kStarvationMaxThreads> m_burstEndCounts{};
    std::array<uint64_t, kStarvationMaxThreads> m_leadIn{};
    int64_t m_runStartNs = 0;
    int64_t m_leadInEndNs = 0;
    int64_t m_runEndNs = 0;
    bool m_interrupted = false;
};

} // namespace rtscope
