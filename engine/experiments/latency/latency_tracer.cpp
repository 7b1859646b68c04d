#include "engine/experiments/latency/latency_tracer.h"

#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"

#include <algorithm>
#include <climits>
#include <map>
#include <utility>

namespace rtscope {

/// The reader thread's batches on their way to the collector. Neither side is real-time: a mutex is enough. Bounded
/// by kQueueEvents; a batch that does not fit is dropped, counted, and its span remembered per CPU, so that the
/// collector can put a Lost event where it was (the analysis then knows those events are missing).
struct LatencyTracer::Queue {
    struct Gap {
        int64_t fromNs = INT64_MAX;
        int64_t toNs = INT64_MIN;
        uint64_t events = 0;
    };
    std::mutex mutex;
    std::vector<std::vector<TraceEvent>> batches;
    std::vector<std::vector<TraceEvent>> spare; ///< emptied by the collector, for the reader to fill again
    size_t events = 0;
    std::map<int, Gap> gaps; ///< by CPU: what was dropped since the collector last took the batches
    uint64_t droppedEvents = 0;
    uint64_t droppedBatches = 0;

    void push(std::span<const TraceEvent> batch)
    {
        std::lock_guard lock(mutex);
        if (events + batch.size() > kQueueEvents) {
            for (const TraceEvent& e : batch) {
                Gap& g = gaps[e.cpu];
                g.fromNs = std::min(g.fromNs, e.ts);
                g.toNs = std::max(g.toNs, e.ts);
                ++g.events;
            }
            droppedEvents += batch.size();
            ++droppedBatches;
            return;
        }
        std::vector<TraceEvent> copy;
        if (!spare.empty()) {
            copy = std::move(spare.back());
            spare.pop_back();
        }
        copy.assign(batch.begin(), batch.end());
        batches.push_back(std::move(copy));
        events += batch.size();
    }
};

LatencyTracer::LatencyTracer() = default;

LatencyTracer::~LatencyTracer()
{
    stop();
}

void LatencyTracer::start(const std::vector<int>& cpus, const CpuTopology& topology, const LatencyConfig& config)
{
    stop();
    (void)TraceSession::functionName(0); // reads /proc/kallsyms (some 100 ms) here, not on the collector
    auto queue = std::make_shared<Queue>();
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
    std::map<int, Queue::Gap> gaps;
    {
        std::lock_guard lock(m_queue->mutex);
        m_taken.swap(m_queue->batches);
        m_queue->events = 0;
        gaps.swap(m_queue->gaps);
    }
    for (const std::vector<TraceEvent>& batch : m_taken)
        m_anatomy.addEvents(batch);
    // What the queue dropped, as the kernel marks its own losses: a Lost event after the gap, on its CPU.
    std::vector<TraceEvent> lost;
    for (const auto& [cpu, gap] : gaps) {
        TraceEvent e{};
        e.type = TraceEventType::Lost;
        e.cpu = uint16_t(cpu);
        e.ts = gap.toNs + 1;
        e.lost.sinceNs = gap.fromNs - 1;
        e.lost.count = gap.events;
        lost.push_back(e);
    }
    if (!lost.empty()) {
        sortTraceEvents(lost);
        m_anatomy.addEvents(lost);
    }
    for (std::vector<TraceEvent>& batch : m_taken)
        batch.clear();
    std::lock_guard lock(m_queue->mutex);
    while (!m_taken.empty() && m_queue->spare.size() < 16) {
        m_queue->spare.push_back(std::move(m_taken.back()));
        m_taken.pop_back();
    }
    m_taken.clear();
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
        std::lock_guard lock(m_queue->mutex);
        t->queueDroppedEvents = m_queue->droppedEvents;
        t->queueDroppedBatches = m_queue->droppedBatches;
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
