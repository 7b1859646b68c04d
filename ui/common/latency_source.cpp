#include "ui/common/latency_source.h"

#include "engine/util/clock.h"

namespace rtscope {

namespace {
Error invalid(const std::vector<std::string>& problems)
{
    std::string text;
    for (const auto& p : problems)
        text += (text.empty() ? "" : "\n") + p;
    return {ErrorKind::InvalidConfig, text};
}
} // namespace

LiveLatencySource::LiveLatencySource()
{
    m_experiment.setCollectorPace(CollectorPace().drainNs, kLivePublishNs);
}

Error LiveLatencySource::start(const LatencyConfig& config, const CpuTopology& cpus)
{
    return m_experiment.start(config, cpus);
}

void LiveLatencySource::stop()
{
    m_experiment.stop();
}

Error LiveLatencySource::reconfigure(const LatencyConfig& config)
{
    return m_experiment.reconfigure(config);
}

void LiveLatencySource::resetStatistics()
{
    m_experiment.resetStatistics();
}

ReplayLatencySource::ReplayLatencySource() = default;

Error ReplayLatencySource::start(const LatencyConfig& config, const CpuTopology& cpus)
{
    if (m_replay.running())
        return {ErrorKind::InvalidConfig, "the latency experiment is already running"};
    m_cpus = cpus;
    if (auto problems = config.validate(m_cpus); !problems.empty())
        return invalid(problems);
    m_replay.start(config, nowNs());
    m_replay.publish(nowNs());
    return {};
}

void ReplayLatencySource::stop()
{
    if (!m_replay.running())
        return;
    m_replay.stop();
    m_replay.publish(nowNs());
}

Error ReplayLatencySource::reconfigure(const LatencyConfig& config)
{
    if (!m_replay.running())
        return {ErrorKind::InvalidConfig, "the latency experiment is not running"};
    if (auto problems = config.validate(m_cpus); !problems.empty())
        return invalid(problems);
    m_replay.reconfigure(config, nowNs());
    return {};
}

void ReplayLatencySource::resetStatistics()
{
    m_replay.resetStatistics(nowNs());
}

void ReplayLatencySource::publish(int64_t nowNsValue)
{
    m_replay.publish(nowNsValue ? nowNsValue : nowNs());
}

} // namespace rtscope
