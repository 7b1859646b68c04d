#pragma once
/// @file Turns the sleep-floor experiment's waits into exact figures per requested length and method
/// (docs/experiments/sleep-floor.md). A plain class: the collector thread feeds it what it drains from the ring and
/// asks it for figures when it makes a snapshot; it knows requests and methods only by their index.
#include "engine/pipeline/append_log.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace rtscope {

/// @brief One wait (plain data: copied through the ring and kept for the CSV).
struct SleepSample {
    uint16_t request = 0; ///< index into the config's requests
    uint8_t method = 0;   ///< index into the config's methods
    uint32_t sample = 0;  ///< 0 … samples − 1
    int64_t actualNs = 0; ///< wall time the wait took (CLOCK_MONOTONIC)
    int64_t cpuNs = 0; ///< CPU time the thread consumed meanwhile (CLOCK_THREAD_CPUTIME_ID), less the clock's own cost
};

/// @brief Figures of one requested length with one method. The experiment's SleepFloorCell adds the method itself.
struct SleepCellFigures {
    int64_t requestNs = 0;
    uint64_t samples = 0;
    int64_t minNs = 0;
    int64_t p50Ns = 0; ///< median actual duration
    int64_t p99Ns = 0;
    int64_t maxNs = 0;
    double meanNs = 0;
    int64_t overshootNs = 0;   ///< p50 − request
    double overshootRatio = 0; ///< p50 / request; 0 for a 0 ns request (no ratio)
    double cpuPerWaitNs = 0;   ///< median CPU time per wait
    double cpuShare = 0;       ///< median CPU time / median wall time: 1 for busy-wait, ~0 for a real sleep
};

/// @brief The cells of one sleep-floor run: requests × methods, request-major. Every sample of a cell is kept for
/// exact percentiles: the log-bucketed Histogram's 0.4 % is 40 µs at 10 ms, more than the overshoot being measured.
class SleepFloorAggregator {
public:
    /// A cell that is still filling and holds more than this many samples is recomputed at most every
    /// kBigCellIntervalNs while the run lasts: a pass over its samples per snapshot would cost the collector more
    /// than the view gains.
    static constexpr size_t kBigCell = 5000;
    static constexpr int64_t kBigCellIntervalNs = 100'000'000;

    /// @param requestsNs the requested lengths, in the config's order (a sample's request index)
    /// @param methods how many methods take turns (a sample's method index)
    /// @param samplesPerCell the planned samples per cell: the room reserved per cell and in the raw-sample log
    SleepFloorAggregator(std::vector<int64_t> requestsNs, size_t methods, size_t samplesPerCell);

    /// @brief The nearest-rank percentile of @p values (the smallest value with at least @p percent % of them at
    /// or below it; the smallest for 0, 0 when empty), through @p scratch so that the collector allocates only as
    /// the cells grow.
    static int64_t nearestRank(const std::vector<int64_t>& values, double percent, std::vector<int64_t>& scratch);

    /// @brief One wait; false, and nothing counted, when its request or method is outside the grid.
    bool add(const SleepSample& s);

    /// @brief Recomputes the figures of the cells that changed since, at @p nowNs. While @p live, a big cell still
    /// short of its samples waits kBigCellIntervalNs between recomputations; the last call (not live) computes all.
    void update(int64_t nowNs, bool live);

    size_t requests() const { return m_requestsNs.size(); }
    size_t methods() const { return m_methods; }
    /// @brief The figures as of the last update() (request and nothing else before the first sample).
    const SleepCellFigures& cell(size_t request, size_t method) const;
    /// @brief Median of the smallest request (the first, if two are equal), per method: the measured floor. Empty
    /// without requests.
    std::vector<int64_t> floorNs() const;

    uint64_t samplesDone() const { return m_samplesDone; }
    /// @brief The request of the latest sample, -1 before the first.
    int currentRequest() const { return m_currentRequest; }
    /// @brief Every sample in arrival order, shared with snapshots without copying (see AppendLog).
    std::shared_ptr<const AppendLog<SleepSample>> log() const { return m_log; }

private:
    struct Cell {
        std::vector<int64_t> actual;
        std::vector<int64_t> cpu;
        int64_t minNs = 0;
        int64_t maxNs = 0;
        long double wallSum = 0;
        bool dirty = false;
        int64_t computedNs = 0;
        SleepCellFigures figures;
    };

    std::vector<int64_t> m_requestsNs;
    size_t m_methods;
    size_t m_samplesPerCell;
    std::vector<Cell> m_cells;
    std::vector<int64_t> m_scratch;
    std::shared_ptr<AppendLog<SleepSample>> m_log;
    uint64_t m_samplesDone = 0;
    int m_currentRequest = -1;
};

} // namespace rtscope
