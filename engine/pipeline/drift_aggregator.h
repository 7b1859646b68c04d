#pragma once
/// @file Turns the drift experiment's wake-ups into cumulative drift, lateness and missed-tick figures per method
/// (docs/experiments/drift.md). A plain class: the collector thread feeds it what it drains from the methods' rings
/// and asks it for figures when it makes a snapshot; it knows methods only by their index, never the timing kinds.
#include "engine/pipeline/append_log.h"
#include "engine/pipeline/histogram.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace rtscope {

/// @brief One wake-up of one method, as the worker saw it (plain data: copied through the ring).
struct DriftSample {
    int64_t wakeNs = 0;     ///< clock read right after the wait returned
    int64_t deadlineNs = 0; ///< t0 + k·P; for the naive loop what its sleep aimed at (sleep start + P)
    int64_t tick = 0;       ///< index k of the tick this wake-up answers, 1-based
};

/// @brief One tick of one method, as kept for the curves and the CSV.
struct DriftTick {
    int64_t tick = 0;       ///< k, 1-based; gaps are missed ticks
    int64_t driftNs = 0;    ///< cumulative drift: wake − (t0 + k·P)
    int64_t latenessNs = 0; ///< this wake-up's own lateness: wake − the deadline it aimed at
    uint32_t missed = 0;    ///< ticks that expired unanswered just before this one (timerfd/POSIX overruns, ...)
};

/// @brief What the wake-ups of one method add up to. The experiment's DriftMethodStats adds what only the method's
/// thread knows (its kind, tid, slack, ring drops, how it ended).
struct DriftMethodFigures {
    uint64_t wakes = 0;       ///< wake-ups received
    int64_t lastTick = 0;     ///< index of the latest tick answered ("after N ticks")
    uint64_t missedTicks = 0; ///< ticks counted as expired but never woken for: never lost
    int64_t driftNs = 0;      ///< drift of the latest wake-up
    int64_t minDriftNs = 0;
    int64_t maxDriftNs = 0;
    double slopeNsPerTick = 0; ///< least-squares slope of drift against tick (0 before two ticks)
    double rateHz = 0;         ///< wake-ups per second since t0
    double ratePercent = 0;    ///< rateHz as a percentage of the nominal rate 1/P
    int64_t latenessP50Ns = 0;
    int64_t latenessP99Ns = 0;
    int64_t latenessMaxNs = 0;

    /// Every tick so far, shared with the aggregator without copying (see AppendLog).
    std::shared_ptr<const AppendLog<DriftTick>> log;
    size_t logCount = 0;
    std::span<const DriftTick> ticks() const { return log ? log->prefix(logCount) : std::span<const DriftTick>(); }
};

/// @brief The per-method aggregates of one drift run. Tick k of every method is due at t0 + k·P (setOrigin()).
class DriftAggregator {
public:
    /// @param methods how many methods feed it; add() names one by its index
    /// @param periodNs the period P (> 0)
    /// @param ticksPerMethod the capacity of each method's tick log: the run's tick count, since a method answers
    ///        each tick at most once. Wake-ups past it still count in the figures; the log refuses and counts them.
    DriftAggregator(size_t methods, int64_t periodNs, size_t ticksPerMethod);

    /// @brief The shared origin t0, known once every method's thread is ready; before any add().
    void setOrigin(int64_t t0Ns) { m_t0Ns = t0Ns; }
    int64_t originNs() const { return m_t0Ns; }
    int64_t periodNs() const { return m_periodNs; }
    double nominalHz() const { return 1e9 / double(m_periodNs); }
    size_t methods() const { return m_methods.size(); }

    /// @brief One wake-up of method @p method (false, and nothing counted, for an index out of range). Ticks come in
    /// increasing order from a method; one that is not past the latest is counted as a wake-up but misses nothing.
    bool add(size_t method, const DriftSample& s);

    /// @brief The figures of method @p method so far (empty ones for an index out of range).
    DriftMethodFigures figures(size_t method) const;

private:
    // What the least-squares slope needs, in long double: k² reaches 4·10¹⁰ and k·drift 10¹⁸.
    struct SlopeSums {
        long double n = 0, k = 0, kk = 0, d = 0, kd = 0;
        void add(int64_t tick, int64_t drift);
        double slope() const;
    };
    struct Method {
        Histogram lateness;
        SlopeSums sums;
        std::shared_ptr<AppendLog<DriftTick>> log;
        uint64_t wakes = 0;
        uint64_t missed = 0;
        int64_t lastTick = 0;
        int64_t lastDrift = 0;
        int64_t minDrift = 0;
        int64_t maxDrift = 0;
        int64_t lastWake = 0;
    };

    int64_t m_periodNs;
    int64_t m_t0Ns = 0;
    std::vector<Method> m_methods;
};

} // namespace rtscope
