#pragma once
// The per-CPU heat strip's memory: the largest latency and the number of wake-ups per CPU and time interval,
// gathered from successive latency snapshots. A snapshot carries only the last few seconds of each CPU's timeline
// (min/max per 1 ms), so the history keeps what scrolls out of it, for up to kKeepNs.
#include "engine/experiments/latency/latency_experiment.h"
#include "ui/plot/heat_strip.h"

#include <climits>
#include <cstdint>
#include <map>
#include <vector>

namespace rtscope {

class HeatHistory {
public:
    static constexpr int64_t kKeepNs = 120'000'000'000; ///< 2 min
    static constexpr int64_t kDefaultIntervalNs = 250'000'000;

    /// The shortest interval of the 250 ms, 500 ms, 1 s … 10 s ladder that holds at least one period, so a slow
    /// period does not leave every other cell empty.
    static int64_t intervalFor(int64_t periodNs);

    /// Forgets everything; intervals are [k·intervalNs, (k+1)·intervalNs) of CLOCK_MONOTONIC.
    void reset(int64_t intervalNs = kDefaultIntervalNs);
    int64_t intervalNs() const { return m_intervalNs; }

    /// Merges one snapshot whose threads carry their timeline from @p seriesSinceNs on. Every interval that lies
    /// wholly inside that window is recomputed from it (so overlapping snapshots never count a wake-up twice);
    /// samples lost since the previous snapshot are charged to the interval holding the publish time. Intervals
    /// before a CPU's first wake-up (its thread was still starting) and the newest one, still filling, count as
    /// measured only once they hold a sample.
    void add(const LatencySnapshot& snapshot, int64_t seriesSinceNs);

    /// CPUs seen so far, ascending.
    std::vector<int> cpus() const;
    /// The @p columns intervals ending with the newest one for @p cpu, oldest first.
    std::vector<HeatCell> cells(int cpu, int columns) const;
    /// CLOCK_MONOTONIC at the end of the newest interval seen (the strip's "0 s"); 0 before any snapshot.
    int64_t endNs() const;
    int64_t startNs() const { return m_startNs; }

private:
    struct Cpu {
        std::map<int64_t, HeatCell> cells; ///< interval index → figures
        std::map<int64_t, uint64_t> lost;  ///< interval index → samples lost
        uint64_t lastLost = 0;             ///< drops + gaps in the previous snapshot
        int64_t firstSample = INT64_MAX;   ///< the first interval with a wake-up: before it, the thread was starting
    };
    int64_t index(int64_t tNs) const;
    void prune(Cpu& cpu);

    int64_t m_intervalNs = kDefaultIntervalNs;
    int64_t m_startNs = 0;
    int64_t m_newest = -1; ///< index of the newest interval seen
    std::map<int, Cpu> m_cpus;
};

} // namespace rtscope
