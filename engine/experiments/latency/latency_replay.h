#pragma once
/// @file Replays given latency samples through the same aggregator as the live experiment and produces the
/// same LatencySnapshot objects, without any thread: views and tests can be fed known data.
#include "engine/experiments/latency/latency_experiment.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rtscope {

/// @brief A snapshot source driven by the caller: start a run, add samples, record changes, publish.
///
/// Every call happens on the caller's thread. Snapshots carry the same fields, computed the same way, as
/// LatencyExperiment's: statistics from LatencyAggregator, a timeline window ending at the publish time,
/// markers labelled with the live experiment's wording. The timeline's buffer grows with the samples given
/// rather than being allocated whole up front, so a replay costs memory in proportion to what it is fed.
class LatencyReplay {
public:
    LatencyReplay();

    /// @brief How much of the timeline each snapshot carries (1 s … 120 s, default 10 s).
    void setSeriesWindow(int64_t ns);
    /// @brief Whether markers are kept (default true). A recording's replay keeps them on its first thread only:
    /// every thread would hold the same list.
    void setKeepMarkers(bool keep) { m_keepMarkers = keep; }

    /// @brief Begins a new run under @p config at @p startNs: clears everything and records "start: <label>".
    void start(const LatencyConfig& config, int64_t startNs);
    /// @brief Ends the run: later snapshots say running = false. Samples may still be added.
    void stop();

    void add(const LatencySample& sample);
    void add(const std::vector<LatencySample>& samples);

    /// @brief Records a configuration change at @p tNs with a marker describing it ("FIFO 80", "16 hogs");
    /// no marker when nothing a marker would name changed. Run limits stay those of start().
    void reconfigure(const LatencyConfig& next, int64_t tNs);
    /// @brief Clears histogram and counters (the timeline stays) and records a "reset" marker.
    void resetStatistics(int64_t tNs);
    void addMarker(int64_t tNs, std::string label);
    /// @brief Samples the ring refused, as the live experiment would report them (counted since the last reset).
    void setDrops(uint64_t drops);
    /// @brief Hog work counters carried in the snapshot.
    void setHogIterations(uint64_t total, double perSecond);

    /// @brief Makes a new snapshot (generation + 1) whose timeline window ends at @p nowNs, and keeps it.
    std::shared_ptr<const LatencySnapshot> publish(int64_t nowNs);
    /// @brief The last published snapshot; null before the first publish().
    std::shared_ptr<const LatencySnapshot> snapshot() const { return m_snapshot; }

    bool running() const { return m_running; }
    const LatencyConfig& config() const { return m_config; }
    /// @brief The sequence number the next sample is expected to carry.
    uint64_t nextSeq() const { return m_agg.expectedSeq(); }

private:
    LatencyConfig m_config;
    LatencyAggregator m_agg;
    std::vector<Marker> m_markers;
    bool m_running = false;
    bool m_keepMarkers = true;
    int64_t m_startNs = 0;
    int64_t m_resetNs = 0;
    int64_t m_seriesWindowNs = 10'000'000'000;
    uint64_t m_drops = 0;
    uint64_t m_hogIterations = 0;
    double m_hogRate = 0;
    uint64_t m_generation = 0;
    std::shared_ptr<const LatencySnapshot> m_snapshot;
};

/// @brief The marker text for a live change from @p prev to @p next, in the live experiment's words:
/// "FIFO 80", "period 500.0 us", "16 hogs", "waiter timerfd", "CPU 0", joined by ", "; empty if none.
std::string latencyChangeLabel(const LatencyConfig& prev, const LatencyConfig& next);

} // namespace rtscope
