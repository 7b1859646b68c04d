#pragma once
/// @file The latency run's kernel tracing (config.trace, docs/experiments/anatomy.md): a trace session on the
/// measured CPUs, the queue of its reader's batches, and the anatomy aggregator that explains late wake-ups from them.
#include "engine/experiments/latency/latency_config.h"
#include "engine/experiments/latency/latency_snapshot.h"
#include "engine/pipeline/anatomy_aggregator.h"
#include "engine/pipeline/anatomy_figures.h"
#include "engine/pipeline/latency_aggregator.h"
#include "engine/trace/trace_session.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace rtscope {

struct CpuTopology;
class TraceBatchQueue;

/// @brief The tracing of one latency run. The control thread owns the session (start, stop, drop, configure); the
/// collector thread feeds the aggregator (addWakeups, takeEvents) and takes the figures (snapshot). Each side's
/// state has its own mutex, so the run may call the collector side with its own locks held.
class LatencyTracer {
public:
    /// @brief Trace events waiting between the reader and the collector before whole batches are dropped (and
    /// counted, and marked lost): 18.9 MB, seconds of events even on a loaded CPU.
    static constexpr size_t kQueueEvents = size_t(1) << 18;
    /// @brief How often the snapshots' tracing figures are taken again while the run goes on.
    static constexpr int64_t kRefreshNs = 100'000'000;

    LatencyTracer();
    /// Stops the session if it still runs.
    ~LatencyTracer();
    LatencyTracer(const LatencyTracer&) = delete;
    LatencyTracer& operator=(const LatencyTracer&) = delete;

    /// @brief Where every session looks for tracefs (TraceConfig::tracingDir; empty: the mounted one).
    void setTracingDir(std::string dir) { m_tracingDir = std::move(dir); }
    /// @brief Where every session also keeps its raw sub-buffers (TraceConfig::capture).
    void setCapture(std::shared_ptr<TraceDatCapture> capture) { m_capture = std::move(capture); }

    /// @brief Control thread: a new session on @p cpus with fresh figures and @p config's threshold, top and period.
    /// A failure is not returned: it is kept as the reason (LatencyTracing::unavailable) and the run goes on.
    void start(const std::vector<int>& cpus, const CpuTopology& topology, const LatencyConfig& config);
    /// @brief Control thread: stops the session (its last events reach the queue), keeps its figures and final
    /// counts.
    void stop();
    /// @brief Control thread: tracing off: stops the session and forgets its figures (the snapshots' tracing is null).
    void drop();
    /// @brief Control thread: the aggregator takes @p config's threshold, top and period.
    void configure(const LatencyConfig& config);
    /// @brief Control thread: a session is running.
    bool sessionRunning() const { return m_session != nullptr; }

    /// @brief Collector: clears the anatomy's figures (a statistics reset); nothing while untraced.
    void resetStatistics();
    /// @brief Collector: a drained batch of measuring thread @p thread (tid @p tid on CPU @p cpu); nothing while
    /// untraced.
    void addWakeups(size_t thread, int tid, int cpu, std::span<const LatencySample> batch);
    /// @brief Collector: the reader's batches (and a Lost event where the queue dropped some) into the aggregator.
    void takeEvents();
    /// @brief Collector: the snapshot's tracing, taken again when kRefreshNs old; with @p running false the final
    /// one (the session was stopped before: every event it recorded is analysed first).
    std::shared_ptr<const LatencyTracing> snapshot(const LatencyConfig& config, bool running, int64_t now);
    /// @brief The tracing the last snapshot carried (null before any).
    std::shared_ptr<const LatencyTracing> lastPublished() const;

private:
    struct State {
        bool active = false;
        std::string unavailable;
        std::vector<std::string> missingEvents;
        TraceStats stats; ///< the last session's final counts (or the last taken)
        std::string stopError;
        const TraceSession* live = nullptr; ///< the running session, for its live counts
    };

    void takeEventsLocked(); ///< takeEvents(), with m_collectMutex held

    std::string m_tracingDir;
    std::shared_ptr<TraceDatCapture> m_capture;
    std::unique_ptr<TraceSession> m_session; ///< the control thread's

    // The collector's side, changed by the control thread only with m_collectMutex held.
    mutable std::mutex m_collectMutex;
    std::shared_ptr<TraceBatchQueue> m_queue; ///< null while untraced; the reader's handler holds it too
    AnatomyAggregator m_anatomy;
    std::shared_ptr<const LatencyTracing> m_tracing; ///< the last one published

    std::mutex m_stateMutex;
    State m_state;
};

} // namespace rtscope
