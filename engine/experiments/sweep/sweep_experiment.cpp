#include "engine/experiments/sweep/sweep_experiment.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/load_process.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_threads.h"
#include "engine/util/clock.h"
#include "engine/util/helper_thread.h"
#include "engine/util/units.h"

#include <algorithm>
#include <pthread.h>
#include <string>
#include <unistd.h>

namespace rtscope {

namespace {

// The CPUs the sweep loads, the same for every setting: the measured ones and, with built-in hogs, the hogs' ones.
std::vector<int> sweepBusyCpus(const SweepConfig& c, const CpuTopology& topology)
{
    std::vector<int> cpus = c.base.resolvedCpus(topology);
    if (c.base.hogs > 0) {
        const std::vector<int> hogCpus = c.base.resolvedHogCpus(topology);
        cpus.insert(cpus.end(), hogCpus.begin(), hogCpus.end());
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

} // namespace

SweepRun::SweepRun(const SweepConfig& config, const RunEnvironment& env)
    : m_config(config)
    , m_topology(env.topology)
    , m_busyCpus(sweepBusyCpus(config, env.topology))
    , m_collectorCpu(env.topology.otherThan(m_busyCpus))
{}

SweepRun::~SweepRun()
{
    stop();
}

Error SweepRun::start()
{
    m_thread = std::thread([this] { run(); });
    // Off the settings' busy CPUs, like the collector: this thread starts and stops every setting's workers.
    nameAndPlaceHelper(m_thread, "rtscope-sweep", m_collectorCpu);
    return {};
}

void SweepRun::stop()
{
    m_cancel = true;
    if (m_thread.joinable())
        m_thread.join();
}

std::shared_ptr<SweepSnapshot> SweepRun::makeSnapshot(bool running)
{
    auto s = std::make_shared<SweepSnapshot>();
    s->config = m_config;
    std::lock_guard lock(m_mutex);
    s->results = m_results;
    s->current = m_current;
    s->total = m_config.settings.size();
    // The setting's own latest snapshot, as fresh as the setting's collector made it.
    s->live = m_live ? m_live->snapshot() : nullptr;
    s->running = running && !m_ended;
    s->finished = m_ended && m_finished.load();
    s->cancelled = m_cancel.load();
    s->loadStatus = m_loadStatus;
    return s;
}

void SweepRun::run()
{
    LoadProcess load;
    if (!m_config.loadCmd.empty()) {
        Error e = load.start(m_config.loadCmd);
        std::lock_guard lock(m_mutex);
        m_loadStatus = e ? e.message : "running (pid " + std::to_string(load.pid()) + ")";
        if (!e)
            m_loadPid = load.pid();
    }
    for (size_t i = 0; i < m_config.settings.size() && !m_cancel; ++i) {
        const SweepSetting& setting = m_config.settings[i];
        const LatencyConfig c = setting.applyTo(m_config.base);
        LatencyExperiment exp;
        // The sweep draws no timeline: the shortest window keeps each publish's copy small, here and on the wire.
        exp.setSeriesWindow(kNsPerSec);
        SweepResult result;
        result.setting = setting;
        const int64_t t0 = nowNs();
        if (Error e = exp.start(c, m_topology)) {
            result.error = e.message;
        } else {
            {
                std::lock_guard lock(m_mutex);
                m_current = i;
                m_live = &exp;
            }
            // The controller polls: the run has no duration of its own, so cancel stops it at once. The time of a
            // setting counts from when its threads run: starting many hogs takes a while, and that must not eat
            // into what is measured.
            const int64_t started = nowNs();
            while (!m_cancel && nowNs() - started < m_config.eachNs)
                usleep(10'000);
            exp.stop();
            auto snap = exp.snapshot();
            if (snap && !snap->threads.empty()) {
                result.stats = snap->threads.front();
                result.stats.series.clear(); // kept: the figures and the histogram; every publish copies them
            }
            if (snap && !snap->error.empty())
                result.error = snap->error;
        }
        result.durationNs = nowNs() - t0;
        std::lock_guard lock(m_mutex);
        m_live = nullptr; // before exp is destroyed: the collector thread reads the live snapshot through it
        if (!m_cancel || result.stats.samples > 0)
            m_results.push_back(std::move(result));
    }
    const bool cut = m_cancel.load();
    load.stop();
    m_loadPid = -1;
    {
        // The snapshot that says the sweep is over has every result and the load command's end in it.
        std::lock_guard lock(m_mutex);
        if (!load.status().empty())
            m_loadStatus = load.status();
        m_ended = true;
        m_finished = !cut;
    }
}

Error SweepExperiment::checkRealtimeSettings(const SweepConfig& config, const CpuTopology& topology)
{
    const int cpu = config.base.resolvedCpus(topology).front();
    for (const SweepSetting& s : config.settings) {
        if (!isRealtime(s.policy) && !isDeadline(s.policy))
            continue;
        ThreadSpec spec;
        spec.policy = s.policy;
        spec.priority = s.priority;
        spec.deadline = s.applyTo(config.base).deadlineParams();
        spec.cpu = cpu;
        spec.name = kMeasuringThreadName;
        if (Error e = tryThreadSpec(spec))
            return e;
    }
    return {};
}

} // namespace rtscope
