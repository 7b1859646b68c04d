#include "engine/experiments/sweep_experiment.h"

#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <charconv>
#include <pthread.h>
#include <unistd.h>

namespace rtscope {

bool parseSweepSettings(std::string_view text, std::vector<SweepSetting>& out, std::string& error)
{
    out.clear();
    for (const std::string& item : splitList(text)) {
        const size_t colon = item.find(':');
        const std::string name = item.substr(0, colon);
        auto policy = parsePolicy(name);
        if (!policy) {
            error = "settings: '" + item + "' is not a policy; use other, batch, idle, fifo:PRIO or rr:PRIO";
            return false;
        }
        SweepSetting s{*policy, 0};
        if (colon != std::string::npos) {
            const std::string prio = item.substr(colon + 1);
            auto [p, ec] = std::from_chars(prio.data(), prio.data() + prio.size(), s.priority);
            if (ec != std::errc() || p != prio.data() + prio.size()) {
                error = "settings: '" + item + "' has no valid priority after ':'";
                return false;
            }
        } else if (isRealtime(*policy)) {
            error = "settings: '" + item + "' needs a priority, e.g. " + name + ":80";
            return false;
        }
        out.push_back(s);
    }
    if (out.empty()) {
        error = "settings must list at least one setting, e.g. other,fifo:50,fifo:80";
        return false;
    }
    return true;
}

std::vector<std::string> SweepConfig::validate(const CpuTopology& cpus) const
{
    std::vector<std::string> out;
    if (settings.empty() || settings.size() > kMaxSettings)
        out.push_back("settings must list between 1 and " + std::to_string(kMaxSettings) + " settings (got " +
                      std::to_string(settings.size()) + ")");
    if (eachNs < kMinEachNs || eachNs > kMaxEachNs)
        out.push_back("each must be between " + formatDuration(kMinEachNs) + " and " + formatDuration(kMaxEachNs) +
                      " (got " + formatDuration(eachNs) + ")");
    if (base.durationNs != 0 || base.maxSamples != 0)
        out.push_back("duration and samples are set per setting by 'each'; leave them unset");
    if (!loadCmd.empty() && base.hogs > 0)
        out.push_back("load-cmd and hogs are exclusive: choose built-in hogs or your own load");
    if (loadCmd.size() > 4096)
        out.push_back("load-cmd must be at most 4096 characters");
    for (const SweepSetting& s : settings) {
        LatencyConfig c = base;
        c.policy = s.policy;
        c.priority = s.priority;
        c.durationNs = std::clamp(eachNs, LatencyConfig::kMinDurationNs, LatencyConfig::kMaxDurationNs);
        for (const std::string& e : c.validate(cpus))
            out.push_back(s.label() + ": " + e);
    }
    return out;
}

SweepExperiment::~SweepExperiment()
{
    cancel();
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
            // The controller polls: the run has no duration of its own, so cancel stops it at once.
            while (!m_cancel && nowNs() - t0 < m_config.eachNs)
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
