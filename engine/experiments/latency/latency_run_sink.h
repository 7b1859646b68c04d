#pragma once
/// @file The raw-sample tap of a latency run (recordings, exports, the agent's stream).
#include "engine/experiments/latency/latency_config.h"
#include "engine/experiments/latency/latency_snapshot.h"

#include <cstdint>
#include <span>
#include <vector>

namespace rtscope {

struct LatencyRunInfo {
    LatencyConfig config;  ///< as started (cpu resolved)
    int64_t startNs = 0;   ///< CLOCK_MONOTONIC, the snapshots' startNs
    std::vector<int> cpus; ///< measuring thread i runs on cpus[i]
    int quietCpu = -1;     ///< a CPU without measuring threads or hogs (the collector's), -1 if none
};

/// @brief Receives everything the aggregators see, in the order they see it: the raw-sample tap for recordings
/// and exports. onRunStart and onRunEnd run on the thread that calls start() and stop(); every other call runs
/// on the collector thread (or on the control thread while it keeps the collector out: a restart of the measuring
/// threads, the final drain of a stop), never concurrently and never on a measuring thread, so a sink may allocate
/// and block briefly, at the price of a fuller ring.
class LatencyRunSink {
public:
    virtual ~LatencyRunSink() = default;
    virtual void onRunStart(const LatencyRunInfo& info) = 0;
    /// A drained batch of measuring thread @p thread, in sequence order.
    virtual void onSamples(size_t thread, std::span<const LatencySample> batch) = 0;
    /// A marker (the start, a live change) and the config in force from it on.
    virtual void onMarker(const Marker& marker, const LatencyConfig& config) = 0;
    /// Statistics were cleared here: samples after this call count from zero.
    virtual void onReset(int64_t tNs) = 0;
    /// The ring of @p thread has refused @p total samples since the thread started (sent when it changes).
    virtual void onDrops(size_t thread, uint64_t total) = 0;
    /// The hogs' work counter (sent when the rate is resampled, every 250 ms, and once more at the end).
    virtual void onHogWork(int64_t tNs, uint64_t iterations, double perSecond) = 0;
    /// The measuring threads were replaced (a CPU change): new aggregates, thread i now on @p cpus[i].
    virtual void onRestart(int64_t tNs, const std::vector<int>& cpus) = 0;
    /// The run's tracing as its last snapshot carried it (LatencySnapshot::tracing), just before onRunEnd; only when
    /// that snapshot had one. Recordings keep it so that a replay shows the anatomy (docs/recording-format.md).
    virtual void onTracing(const LatencyTracing& tracing) { (void)tracing; }
    virtual void onRunEnd(int64_t stopNs) = 0;
};

} // namespace rtscope
