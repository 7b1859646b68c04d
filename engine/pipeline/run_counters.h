#pragma once
/// @file The collector-side figures of a run besides its samples' aggregates: the rate of a work counter, and which
/// per-thread totals changed since they were last reported. Thread-free, like every aggregator in this layer: the
/// collector thread feeds them what it read from the workers' atomics.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rtscope {

/// @brief The rate of a counter that only grows (the latency experiment's hog iterations, docs/science.md: "RT
/// changes when, not how much"), taken over windows of at least the interval: over a single 16 ms publish it would
/// mostly show which scheduler slices happened to fall inside the window.
class CounterRate {
public:
    static constexpr int64_t kDefaultIntervalNs = 250'000'000; ///< 250 ms: four new figures a second

    /// @param startNs when the counter was 0 (the run's start): the first window begins there
    /// @param intervalNs the shortest window (at least 1 ns)
    explicit CounterRate(int64_t startNs = 0, int64_t intervalNs = kDefaultIntervalNs);

    /// @brief Takes the counter's @p total at @p tNs. When at least the interval has passed since the last resample
    /// (or the start), the rate becomes the growth since then per second, this sample opens the next window, and it
    /// returns true. Otherwise the previous rate stays and it returns false. A total below the last resample's
    /// counts as no growth.
    bool sample(int64_t tNs, uint64_t total);
    /// @brief Per second over the last whole window; 0 before the first one ended.
    double perSecond() const { return m_rate; }

private:
    int64_t m_intervalNs;
    int64_t m_lastNs;
    uint64_t m_lastTotal = 0;
    double m_rate = 0;
};

/// @brief The total last reported for each of a run's threads (a ring's drops): a sink hears of a total only when it
/// changed, so a run without drops reports none.
class ReportedTotals {
public:
    /// @brief Forgets what was reported: @p count threads, each last reported as 0 (a new run, new threads).
    void reset(size_t count) { m_sent.assign(count, 0); }
    /// @brief Whether @p total differs from the total last reported for thread @p index; if it does, it is
    /// remembered as reported. A thread past the end is added, last reported as 0.
    bool changed(size_t index, uint64_t total);
    size_t size() const { return m_sent.size(); }

private:
    std::vector<uint64_t> m_sent;
};

} // namespace rtscope
