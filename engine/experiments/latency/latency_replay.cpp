#include "engine/experiments/latency/latency_replay.h"

#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>

namespace rtscope {

namespace {
// The live experiment's limit, so a long replay cannot grow the marker list without bound either.
} // namespace

LatencyReplay::LatencyReplay()
    : m_agg(0, DecimatedSeries::Storage::OnDemand)
{
    m_agg.clear(0);
}

void LatencyReplay::setSeriesWindow(int64_t ns)
{
    m_seriesWindowNs = std::clamp<int64_t>(ns, kNsPerSec, 120 * kNsPerSec);
}

void LatencyReplay::start(const LatencyConfig& config, int64_t startNs)
{
    m_config = config;
    m_agg.clear(size_t(std::max(0, config.histogramUs)));
    m_markers.clear();
    m_running = true;
    m_startNs = startNs;
    m_resetNs = startNs;
    m_drops = 0;
    m_hogIterations = 0;
    m_hogRate = 0;
    addMarker(startNs, "start: " + config.label());
}

void LatencyReplay::stop()
{
    m_running = false;
}

void LatencyReplay::add(const LatencySample& sample)
{
    m_agg.add(sample);
}

void LatencyReplay::add(const std::vector<LatencySample>& samples)
{
    for (const LatencySample& s : samples)
        m_agg.add(s);
}

void LatencyReplay::reconfigure(const LatencyConfig& requested, int64_t tNs)
{
    LatencyConfig next = requested;
    next.durationNs = m_config.durationNs;
    next.maxSamples = m_config.maxSamples;
    next.histogramUs = m_config.histogramUs;
    next.dmaLatency = m_config.dmaLatency;
    const std::string label = latencyChangeLabel(m_config, next);
    m_config = next;
    if (!label.empty())
        addMarker(tNs, label);
}

void LatencyReplay::resetStatistics(int64_t tNs)
{
    m_agg.resetStatistics();
    m_drops = 0;
    m_resetNs = tNs;
    addMarker(tNs, "reset");
}

void LatencyReplay::addMarker(int64_t tNs, std::string label)
{
    if (m_keepMarkers && m_markers.size() < kMaxMarkers)
        m_markers.push_back({tNs, m_agg.expectedSeq(), std::move(label)});
}

void LatencyReplay::setDrops(uint64_t drops)
{
    m_drops = drops;
}

void LatencyReplay::setHogIterations(uint64_t total, double perSecond)
{
    m_hogIterations = total;
    m_hogRate = perSecond;
}

std::shared_ptr<const LatencySnapshot> LatencyReplay::publish(int64_t nowNs)
{
    auto snap = std::make_shared<LatencySnapshot>();
    snap->config = m_config;
    snap->generation = ++m_generation;
    snap->running = m_running;
    snap->startNs = m_startNs;
    snap->resetNs = m_resetNs;
    snap->publishedNs = nowNs;
    snap->markers = m_markers;
    LatencyThreadStats t = m_agg.stats(nowNs - m_seriesWindowNs);
    t.cpu = m_config.cpu;
    t.drops = m_drops;
    snap->threads.push_back(std::move(t));
    snap->hogIterations = m_hogIterations;
    snap->hogIterationsPerSec = m_hogRate;
    snap->memoryLock = "replay: no memory locked";
    snap->dmaLatencyNote = "replay";
    m_snapshot = std::move(snap);
    return m_snapshot;
}

std::string latencyChangeLabel(const LatencyConfig& prev, const LatencyConfig& next)
{
    // The same order and words as LatencyExperiment::reconfigure, so a replayed run reads like a live one.
    std::vector<std::string> changes;
    if (next.policy != prev.policy || next.priority != prev.priority || next.nice != prev.nice)
        changes.push_back(policyLabel(next.policy, next.priority, next.nice));
    if (next.periodNs != prev.periodNs)
        changes.push_back("period " + formatDuration(next.periodNs));
    const bool hogsMove =
        next.hogCpu != prev.hogCpu || next.hogPolicy != prev.hogPolicy || next.hogNice != prev.hogNice;
    if (hogsMove)
        changes.push_back("hogs " + std::string(policyName(next.hogPolicy)) + " on CPU " + std::to_string(next.hogCpu));
    if (next.hogs != prev.hogs || (hogsMove && next.hogs > 0))
        changes.push_back(std::to_string(next.hogs) + (next.hogs == 1 ? " hog" : " hogs"));
    if (next.waiter != prev.waiter)
        changes.push_back(std::string("waiter ") + waiterName(next.waiter));
    if (next.cpu != prev.cpu)
        changes.push_back("CPU " + std::to_string(next.cpu));
    std::string label;
    for (const auto& c : changes)
        label += (label.empty() ? "" : ", ") + c;
    return label;
}

} // namespace rtscope
