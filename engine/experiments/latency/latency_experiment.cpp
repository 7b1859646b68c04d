#include "engine/experiments/latency/latency_experiment.h"

#include "engine/util/units.h"

#include <algorithm>
#include <utility>

namespace rtscope {

LatencyExperiment::~LatencyExperiment()
{
    // Stopped here, while the settings it was configured from still exist (the host's destructor would stop it
    // too, but only after them).
    stop();
}

void LatencyExperiment::setCollectorPace(int64_t drainNs, int64_t publishNs)
{
    static_assert(kRingCapacity * LatencyConfig::kMinPeriodNs > 1'000'000'000,
                  "a ring must hold a second at the shortest period");
    m_pace.drainNs = std::clamp<int64_t>(drainNs, kNsPerMs, 100 * kNsPerMs);
    m_pace.publishNs = std::clamp<int64_t>(publishNs, m_pace.drainNs, 10 * kNsPerSec);
    setRunningPublishInterval(m_pace.publishNs); // the drain interval waits for the next start()
}

void LatencyExperiment::setSeriesWindow(int64_t ns)
{
    m_seriesWindowNs = std::clamp<int64_t>(ns, kNsPerSec, 120 * kNsPerSec);
    if (LatencyRun* r = run())
        r->setSeriesWindow(m_seriesWindowNs);
}

void LatencyExperiment::setRunSink(LatencyRunSink* sink)
{
    if (!running())
        m_sink = sink;
}

void LatencyExperiment::setTraceDirForTest(std::string dir)
{
    m_traceDir = std::move(dir);
}

void LatencyExperiment::setTraceCapture(std::shared_ptr<TraceDatCapture> capture)
{
    if (!running())
        m_traceCapture = std::move(capture);
}

void LatencyExperiment::configureRun(LatencyRun& run)
{
    run.setPace(m_pace);
    run.setSeriesWindow(m_seriesWindowNs);
    run.setCompact(m_compact);
    run.setSink(m_sink);
    run.setTracingDir(m_traceDir);
    run.setTraceCapture(m_traceCapture);
}

Error LatencyExperiment::reconfigure(const LatencyConfig& config)
{
    LatencyRun* r = run();
    if (!r)
        return {ErrorKind::InvalidConfig, "the latency experiment is not running"};
    const LatencyRun::Change change = r->reconfigure(config, topology());
    if (change.endRun)
        stop(); // the run already holds the error its last snapshot carries
    else if (change.publish)
        publishNow();
    return change.error;
}

void LatencyExperiment::resetStatistics()
{
    if (LatencyRun* r = run())
        r->resetStatistics();
}

} // namespace rtscope
