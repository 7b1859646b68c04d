#pragma once
/// @file Priority sweep: the latency experiment run over a list of settings (OTHER, FIFO 1, 50, 80, …)
/// for a fixed time each, under built-in hogs or the user's own load command.
#include "engine/experiments/latency_experiment.h"
#include "engine/experiments/sweep_config.h"
#include "engine/rt/load_process.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace rtscope {

struct SweepResult {
    SweepSetting setting;
    LatencyThreadStats stats; ///< first measured CPU; the histogram is kept for overlays
    int64_t durationNs = 0;
    std::string error; ///< e.g. the permission error of a FIFO setting; the sweep goes on
};

struct SweepSnapshot {
    std::vector<SweepResult> results; ///< settings finished so far, in order
    size_t current = 0;               ///< index of the running setting
    size_t total = 0;
    std::shared_ptr<const LatencySnapshot> live; ///< the running setting's latest snapshot
    bool running = false;
    bool cancelled = false;
    std::string loadStatus; ///< the load command's state ("running", "exited with 1", …)
};

class SweepExperiment {
public:
    SweepExperiment() = default;
    ~SweepExperiment(); ///< cancels and joins
    SweepExperiment(const SweepExperiment&) = delete;
    SweepExperiment& operator=(const SweepExperiment&) = delete;

    /// @brief Validates and starts the sweep on its own (non-RT) controller thread.
    Error start(const SweepConfig& config);
    /// @brief Tries each real-time setting of @p config as the measuring thread it would start (policy, priority,
    /// CPU) and returns the first refusal. start() does not: a refused setting runs as a failed row, which the
    /// page shows; the CLI asks first, so that a sweep it cannot complete exits 3 before anything runs.
    [[nodiscard]] static Error checkRealtimeSettings(const SweepConfig& config);
    /// @brief Stops the running setting and the load command; results so far are kept. Joins.
    void cancel();
    bool running() const { return m_running.load(); }
    SweepSnapshot snapshot() const;
    /// @brief For tests: the pid of the load process while it runs (-1 otherwise).
    pid_t loadPid() const { return m_loadPid.load(); }

private:
    void run();

    SweepConfig m_config;
    std::thread m_thread;
    std::atomic<bool> m_running{false};
    std::atomic<bool> m_cancel{false};
    std::atomic<pid_t> m_loadPid{-1};
    mutable std::mutex m_mutex; ///< guards the fields below
    std::vector<SweepResult> m_results;
    size_t m_current = 0;
    LatencyExperiment* m_live = nullptr;
    std::string m_loadStatus;
};

} // namespace rtscope
