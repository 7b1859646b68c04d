#pragma once
// Where the latency page (and the per-CPU page) gets its snapshots: the live experiment, or a replay fed by the
// caller (tests, recordings). The page only ever calls this interface, from the GUI thread.
#include "engine/experiments/latency/latency_experiment.h"
#include "engine/experiments/latency/latency_replay.h"
#include "engine/rt/cpu_topology.h"

#include <memory>
#include <vector>

namespace rtscope {

class LatencySource {
public:
    virtual ~LatencySource() = default;
    /// Validates @p config against @p cpus and starts; the error names the cause (InvalidConfig, Permission, …).
    virtual Error start(const LatencyConfig& config, const CpuTopology& cpus) = 0;
    /// Stops and joins every worker; idempotent.
    virtual void stop() = 0;
    virtual Error reconfigure(const LatencyConfig& config) = 0;
    virtual void resetStatistics() = 0;
    virtual bool running() const = 0;
    /// The config of the run in progress (or the last one): as run, CPUs resolved, where the source knows it.
    virtual LatencyConfig config() const = 0;
    /// Whether the run ended by itself (its duration or sample count reached), as the newest snapshot says.
    virtual bool finished() const
    {
        const std::shared_ptr<const LatencySnapshot> s = snapshot();
        return s && s->finished;
    }
    virtual void setSeriesWindow(int64_t ns) = 0;
    /// The latest snapshot, null before the first start.
    virtual std::shared_ptr<const LatencySnapshot> snapshot() const = 0;
    /// CPUs the running workers occupy (to keep the GUI thread off them); empty when nothing runs.
    virtual std::vector<int> busyCpus() const = 0;
    /// The machine the last run was measured on when it is not this one (a remote target, docs/remote.md), for the
    /// labels of what is held from it; empty for this machine.
    virtual std::string measuredOn() const { return {}; }
};

/// The real thing: a LatencyExperiment with its threads.
class LiveLatencySource final : public LatencySource {
public:
    LiveLatencySource();
    Error start(const LatencyConfig& config, const CpuTopology& cpus) override;
    void stop() override;
    Error reconfigure(const LatencyConfig& config) override;
    void resetStatistics() override;
    bool running() const override { return m_experiment.running(); }
    LatencyConfig config() const override { return m_experiment.config(); }
    void setSeriesWindow(int64_t ns) override { m_experiment.setSeriesWindow(ns); }
    std::shared_ptr<const LatencySnapshot> snapshot() const override { return m_experiment.snapshot(); }
    std::vector<int> busyCpus() const override { return m_experiment.busyCpus(); }

    /// A frame every 16 ms (LatencyPage::kRefreshMs, both window modes) needs a snapshot newer than the last one at
    /// each: published at twice the frame rate (docs/BENCHMARKS.md, "The desktop app fed at 20 kHz").
    static constexpr int64_t kLivePublishNs = 8'000'000;

    LatencyExperiment& experiment() { return m_experiment; }

private:
    LatencyExperiment m_experiment;
};

/// No threads: the caller adds samples to replay() and publishes; configs go through the same validate().
class ReplayLatencySource : public LatencySource {
public:
    ReplayLatencySource();

    Error start(const LatencyConfig& config, const CpuTopology& cpus) override;
    void stop() override;
    Error reconfigure(const LatencyConfig& config) override;
    void resetStatistics() override;
    bool running() const override { return m_replay.running(); }
    LatencyConfig config() const override { return m_replay.config(); }
    void setSeriesWindow(int64_t ns) override { m_replay.setSeriesWindow(ns); }
    std::shared_ptr<const LatencySnapshot> snapshot() const override { return m_replay.snapshot(); }
    std::vector<int> busyCpus() const override { return {}; }

    LatencyReplay& replay() { return m_replay; }
    /// Publishes a snapshot as of @p nowNs (default: the clock now).
    void publish(int64_t nowNs = 0);

private:
    LatencyReplay m_replay;
    CpuTopology m_cpus; ///< as given to the last start(): reconfigure() validates against it
};

} // namespace rtscope
