#pragma once
/// @file The latency experiment (docs/science.md, Latency under load; cyclictest's method): a periodic measuring thread
/// and N CPU hogs on one CPU, reconfigurable while it runs, streaming samples through a ring to the collector. The run
/// itself, and the snapshot and sink types, are in latency_run.h; this is its host with the live verbs.
#include "engine/experiments/experiment_host.h"
#include "engine/experiments/latency/latency_run.h"

#include <cstdint>
#include <string>

namespace rtscope {

class LatencyExperiment : public ExperimentHost<LatencyRun> {
public:
    LatencyExperiment() = default;
    ~LatencyExperiment();

    /// @brief How often the collector drains the rings (default 1 ms) and publishes a snapshot (default 16 ms, one
    /// per frame for the GUI). Each pass wakes the collector's CPU and publishing copies the histograms; a headless
    /// run that looks once a second asks for less, so the instrument disturbs the machine less. Drain is clamped to
    /// 1 … 100 ms (the ring holds 1.3 s at the shortest period), publish to drain … 10 s; the drain applies at the next
    /// start(), the publish interval also to a running run (the GUI's presentation mode).
    void setCollectorPace(int64_t drainNs, int64_t publishNs);
    /// @brief How much of the timeline each snapshot carries (1 s … 120 s, default 10 s); also the running run's.
    void setSeriesWindow(int64_t ns);
    /// @brief LatencyRun::setCompact for the next start(): for a run that is never reconfigured (the command line).
    void setCompact(bool compact) { m_compact = compact; }
    /// @brief Hands every run's samples, markers, resets and drops to @p sink (null: none). Only while not
    /// running; the sink must outlive every later run.
    void setRunSink(LatencyRunSink* sink);
    /// @brief Tests only: where the trace session of the next runs looks for tracefs (empty, the default: the
    /// mounted one). A directory that is no tracefs makes tracing unavailable while the run goes on.
    void setTraceDirForTest(std::string dir);
    /// @brief Keeps the raw kernel trace of the next runs' trace sessions in @p capture (null: none), for a
    /// trace-cmd .dat file (engine/trace/trace_dat.h). Only while not running.
    void setTraceCapture(std::shared_ptr<TraceDatCapture> capture);

    /// @brief Applies a new configuration to the running experiment without restarting the process and
    /// records a marker. Period, policy, priority and hog count change in place; a new waiter or CPU
    /// restarts the measuring threads (each thread's sequence numbers continue). The CPUs are checked against the
    /// topology the run was started with. A refused change leaves the run as it was; when even that cannot be put
    /// back, the run stops, and the error and the snapshot say so.
    Error reconfigure(const LatencyConfig& config);
    /// @brief Clears histogram and counters (the timeline is kept) and records a "reset" marker. Only while running.
    void resetStatistics();

    /// @brief Samples the ring can hold before it drops (for tests and the benchmark).
    static constexpr size_t kRingCapacity = LatencyRun::kRingCapacity;

protected:
    void configureRun(LatencyRun& run) override;

private:
    CollectorPace m_pace;
    int64_t m_seriesWindowNs = 10'000'000'000;
    bool m_compact = false;
    LatencyRunSink* m_sink = nullptr;
    std::string m_traceDir;
    std::shared_ptr<TraceDatCapture> m_traceCapture;
};

// The host finds a run's pace and its end by their shape (experiment_host.h): a misspelt one would be ignored
// without a word, and the run would drain at the GUI's pace or never tell its sink that it ended.
static_assert(PacedRun<LatencyRun> && EndingRun<LatencyRun>);

} // namespace rtscope
