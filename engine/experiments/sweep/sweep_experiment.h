#pragma once
/// @file Priority sweep: the latency experiment run over a list of settings (OTHER, FIFO 1, 50, 80, …)
/// for a fixed time each, under built-in hogs or the user's own load command (docs/science.md, Priority sweeps).
#include "engine/experiments/experiment_host.h"
#include "engine/experiments/latency/latency_experiment.h"
#include "engine/experiments/run_status.h"
#include "engine/experiments/sweep/sweep_config.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace rtscope {

struct SweepResult {
    SweepSetting setting;
    LatencyThreadStats stats; ///< first measured CPU; the histogram is kept for overlays
    int64_t durationNs = 0;
    std::string error; ///< e.g. the permission error of a FIFO setting; the sweep goes on
};

/// running: the sweep still goes on (false once every setting ran). finished: every setting ran (a refused one as a
/// failed row); false when a stop cut it short. memoryLock: empty (each setting locks its own, in `live`).
struct SweepSnapshot : SnapshotOf<SweepConfig> {
    std::vector<SweepResult> results; ///< settings finished so far, in order
    size_t current = 0;               ///< index of the running setting
    size_t total = 0;
    /// The running setting's latest snapshot. Its timeline (series) covers the last second only: the sweep draws
    /// none, and keeps only each setting's figures and histogram (results[i].stats has no series).
    std::shared_ptr<const LatencySnapshot> live;
    bool cancelled = false; ///< stop() was asked
    std::string loadStatus; ///< the load command's state ("running", "exited with 1", …)
    /// Why the sweep could not go on, other than one setting's refusal (which is that row's error); empty if none.
    /// A sweep on this computer always goes on; a sweep on a remote target ends here when the link is lost.
};

/// @brief One sweep (the ExperimentRun of SweepExperiment). It has no real-time thread and no ring of its own: its
/// non-RT controller thread runs each setting's LatencyExperiment in turn (whose threads keep their own pinning and
/// 100 ms stop) and the load command, and its results arrive whole, one per setting. So drain() has nothing to do,
/// and makeSnapshot() copies the results so far under the run's own mutex.
class SweepRun {
public:
    using Config = SweepConfig;
    using Snapshot = SweepSnapshot;
    static constexpr std::string_view kName = "sweep";

    SweepRun(const SweepConfig& config, const RunEnvironment& env);
    ~SweepRun(); ///< stops and joins
    SweepRun(const SweepRun&) = delete;
    SweepRun& operator=(const SweepRun&) = delete;

    /// @brief Starts the controller thread, which inherits the calling thread's affinity (the GUI's own, not a
    /// parked one) and starts the load command, so that the command ends with it (PR_SET_PDEATHSIG).
    Error start();
    /// @brief Cancels and joins the controller: the running setting's LatencyExperiment stops (its threads within
    /// kJoinBudgetMs), the load command is stopped and reaped; results so far are kept. Idempotent.
    void stop();
    size_t drain() { return 0; }
    /// @brief The results so far, the running setting's latest latency snapshot (`live`) and the load's state.
    /// @p running is the host's: the snapshot's `running` is false as soon as the sweep is over, before any stop().
    std::shared_ptr<SweepSnapshot> makeSnapshot(bool running);
    /// @brief Every setting ran (a refused one as a failed row); false when stop() cut the sweep short.
    bool finished() const { return m_finished.load(); }
    /// @brief The CPUs every setting loads, the same for all of them: the measured ones and, with built-in hogs,
    /// the hogs' ones (a load command goes where the scheduler puts it).
    std::vector<int> busyCpus() const { return m_busyCpus; }
    const SweepConfig& config() const { return m_config; }
    /// @brief A CPU without measuring threads or hogs: a publish copies every finished setting's histogram.
    int collectorCpu() const { return m_collectorCpu; }
    /// @brief There is nothing to drain, and a publish copies every finished setting's figures: a pass every 50 ms,
    /// each one a publish. The Sweep page polls every 100 ms (SweepPage::kRefreshMs), so every poll finds a snapshot
    /// newer than the one before, at most half a poll old, and the live setting's figures move at every poll.
    CollectorPace pace() const { return {50'000'000, 50'000'000}; }
    /// @brief The host publishes the first snapshot in start(): a view that looks right after a start sees this
    /// sweep running, never the last sweep's final snapshot (which the page would take for this one's end).
    static constexpr bool kPublishAtStart = true;

    /// @brief The pid of the load process while it runs (-1 otherwise).
    pid_t loadPid() const { return m_loadPid.load(); }

private:
    void run();

    const SweepConfig m_config;
    const CpuTopology m_topology; ///< every setting's latency run is validated against it
    std::vector<int> m_busyCpus;
    int m_collectorCpu = -1;
    std::thread m_thread;
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_finished{false};
    std::atomic<pid_t> m_loadPid{-1};
    std::mutex m_mutex; ///< guards the fields below (controller thread and collector thread)
    std::vector<SweepResult> m_results;
    size_t m_current = 0;
    LatencyExperiment* m_live = nullptr;
    std::string m_loadStatus;
    bool m_ended = false; ///< the controller is done: every setting ran or the sweep was cancelled
};

/// @brief The priority sweep on the experiment host: start(config, topology), stop(), running(), finished(),
/// busyCpus() and snapshot() as every experiment. running() stays true until stop() (finished() says when every
/// setting ran); the snapshot's `running` says whether the sweep still goes on.
class SweepExperiment : public ExperimentHost<SweepRun> {
public:
    /// @brief Tries each real-time setting of @p config as the measuring thread it would start (policy, priority,
    /// CPU in @p topology) and returns the first refusal. start() does not: a refused setting runs as a failed row,
    /// which the page shows; the CLI asks first, so that a sweep it cannot complete exits 3 before anything runs.
    [[nodiscard]] static Error checkRealtimeSettings(const SweepConfig& config, const CpuTopology& topology);
    /// @brief For tests: the pid of the load process while it runs (-1 otherwise).
    pid_t loadPid() const { return run() ? run()->loadPid() : -1; }
};

} // namespace rtscope
