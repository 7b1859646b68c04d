#include "engine/experiments/sweep_experiment.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_threads.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <charconv>
#include <pthread.h>
#include <unistd.h>

namespace rtscope {

SweepExperiment::~SweepExperiment()
{
    cancel();
}

Error SweepExperiment::checkRealtimeSettings(const SweepConfig& config)
{
    const int cpu = config.base.resolvedCpus(CpuTopology::current()).front();
    for (const SweepSetting& s : config.settings) {
        if (!isRealtime(s.policy))
            continue;
        ThreadSpec spec;
        spec.policy = s.policy;
        spec.priority = s.priority;
        spec.cpu = cpu;
        spec.name = kMeasuringThreadName;
        if (Error e = tryThreadSpec(spec))
            return e;
    }
    return {};
}

Error SweepExperiment::start(const SweepConfig& config)
{
    if (m_running)
        return {ErrorKind::InvalidConfig, "a sweep is already running"};
    if (m_thread.joinable())
        m_thread.join();
    if (auto errors = config.validate(CpuTopology::current()); !errors.empty()) {
        std::string msg;
        for (const auto& e : errors)
            msg += (msg.empty() ? "" : "\n") + e;
        return {ErrorKind::InvalidConfig, msg};
    }
    m_config = config;
    m_cancel = false;
    {
        std::lock_guard lock(m_mutex);
        m_results.clear();
        m_current = 0;
        m_loadStatus.clear();
    }
    m_running = true;
    m_thread = std::thread([this] { run(); });
    pthread_setname_np(m_thread.native_handle(), "rtscope-sweep");
    return {};
}

void SweepExperiment::cancel()
{
    m_cancel = true;
    if (m_thread.joinable())
        m_thread.join();
    m_running = false;
}

SweepSnapshot SweepExperiment::snapshot() const
{
    SweepSnapshot s;
    std::lock_guard lock(m_mutex);
    s.results = m_results;
    s.current = m_current;
    s.total = m_config.settings.size();
    s.live = m_live ? m_live->snapshot() : nullptr;
    s.running = m_running;
    s.cancelled = m_cancel;
    s.loadStatus = m_loadStatus;
    return s;
}

void SweepExperiment::run()
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
        LatencyConfig c = m_config.base;
        c.policy = setting.policy;
        c.priority = setting.priority;
        LatencyExperiment exp;
        SweepResult result;
        result.setting = setting;
        const int64_t t0 = nowNs();
        if (Error e = exp.start(c)) {
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
            if (snap && !snap->threads.empty())
                result.stats = snap->threads.front();
            if (snap && !snap->error.empty())
                result.error = snap->error;
        }
        result.durationNs = nowNs() - t0;
        std::lock_guard lock(m_mutex);
        m_live = nullptr;
        if (!m_cancel || result.stats.samples > 0)
            m_results.push_back(std::move(result));
    }
    load.stop();
    m_loadPid = -1;
    {
        std::lock_guard lock(m_mutex);
        if (!load.status().empty())
            m_loadStatus = load.status();
    }
    m_running = false;
}

} // namespace rtscope
