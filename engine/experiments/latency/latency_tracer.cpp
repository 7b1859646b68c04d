#include "engine/experiments/latency/latency_tracer.h"

#include "engine/rt/cpu_topology.h"
#include "engine/trace/trace_batch_queue.h"
#include "engine/util/clock.h"

#include <algorithm>
#include <climits>
#include <map>
#include <utility>

namespace rtscope {

LatencyTracer::LatencyTracer() = default;

LatencyTracer::~LatencyTracer()
{
    stop();
}

void LatencyTracer::start(const std::vector<int>& cpus, const CpuTopology& topology, const LatencyConfig& config)
{
    stop();
    (void)TraceSession::functionName(0); // reads /proc/kallsyms (some 100 ms) here, not on the collector
    auto queue = std::make_shared<TraceBatchQueue>(kQueueEvents);
    auto session = std::make_unique<TraceSession>();
    TraceConfig tc;
    tc.cpus = cpus;
    tc.tracingDir = m_tracingDir;
    tc.capture = m_capture;
    const Error e = session->start(tc, topology, [queue](std::span<const TraceEvent> batch) { queue->push(batch); });
    // Recording is on by now: a window that starts before this instant may miss events, so the anatomy counts a
    // wake-up whose window does as not analysed.
    const int64_t sinceNs = nowNs();
    {
        std::lock_guard guard(m_collectMutex);
        m_anatomy.start(sinceNs);
        m_queue = e ? nullptr : queue;
        m_tracing.reset();
    }
    configure(config);
    std::lock_guard lock(m_stateMutex);
    m_state = {};
    if (e) {
        m_state.unavailable = e.message;
        return;
    }
    m_state.active = true;
    m_state.missingEvents = session->missingEvents();
    m_state.live = session.get();
    m_session = std::move(session);
}

void LatencyTracer::stop()
{
    if (!m_session)
        return;
    {
        // From here on the snapshots show these counts, not the session's (stats() races with its stop()).
        std::lock_guard lock(m_stateMutex);
        m_state.stats = m_session->stats();
        m_state.live = nullptr;
    }
    const Error e = m_session->stop();
    const TraceStats last = m_session->stats();
    m_session.reset();
    std::lock_guard lock(m_stateMutex);
    m_state.stats = last;
    m_state.stopError = e.message;
}

void LatencyTracer::drop()
{
    stop();
    {
        std::lock_guard guard(m_collectMutex);
        m_queue.reset();
        m_anatomy.clear();
        m_tracing.reset();
    }
    std::lock_guard lock(m_stateMutex);
    m_state = {};
}

void LatencyTracer::configure(const LatencyConfig& config)
{
    std::lock_guard guard(m_collectMutex);
    m_anatomy.setOptions({[](uint64_t address) {
        return TraceSession::functionName(address);
    }});
    m_anatomy.configure(config.traceThresholdNs, config.traceTop, anatomyLookbackNs(config.periodNs));
    m_tracing.reset();
}

void LatencyTracer::resetStatistics()
{
    std::lock_guard guard(m_collectMutex);
    if (!m_queue)
        return;
    m_anatomy.resetStatistics();
    m_tracing.reset();
}

void LatencyTracer::addWakeups(size_t thread, int tid, int cpu, std::span<const LatencySample> batch)
{
    std::lock_guard guard(m_collectMutex);
    if (m_queue)
        m_anatomy.addWakeups(thread, tid, cpu, batch);
}

void LatencyTracer::takeEvents()
{
    std::lock_guard guard(m_collectMutex);
    if (m_queue)
        takeEventsLocked();
}

void LatencyTracer::takeEventsLocked()
{
    m_queue->take([&](std::span<const TraceEvent> batch) { m_anatomy.addEvents(batch); });
}

std::shared_ptr<const LatencyTracing> LatencyTracer::snapshot(const LatencyConfig& config, bool running, int64_t now)
{
    std::lock_guard guard(m_collectMutex);
    if (!running && m_queue) {
        // The session was stopped before this (LatencyRun::stop): every event it recorded is in the queue or the
        // window.
        takeEventsLocked();
        m_anatomy.finish();
        m_tracing.reset();
    }
    if (m_tracing && now - m_tracing->updatedNs < kRefreshNs)
        return m_tracing;
    auto t = std::make_shared<LatencyTracing>();
    {
        std::lock_guard lock(m_stateMutex);
        t->active = m_state.active;
        t->unavailable = m_state.unavailable;
        t->missingEvents = m_state.missingEvents;
        t->stats = m_state.live ? m_state.live->stats() : m_state.stats;
        t->stopError = m_state.stopError;
    }
    t->thresholdNs = config.traceThresholdNs;
    t->top = config.traceTop;
    if (m_queue) {
        t->queueDroppedEvents = m_queue->droppedEvents();
        t->queueDroppedBatches = m_queue->droppedBatches();
    }
    t->figures = m_anatomy.figures();
    t->updatedNs = now;
    m_tracing = t;
    return t;
}

std::shared_ptr<const LatencyTracing> LatencyTracer::lastPublished() const
{
    std::lock_guard guard(m_collectMutex);
    return m_tracing;
}

} // namespace rtscope
