#include "engine/trace/trace_batch_queue.h"

#include <algorithm>
#include <climits>
#include <utility>

namespace rtscope {

TraceBatchQueue::TraceBatchQueue(size_t maxEvents)
    : m_maxEvents(maxEvents)
{}

void TraceBatchQueue::push(std::span<const TraceEvent> batch)
{
    std::lock_guard lock(m_mutex);
    if (m_events + batch.size() > m_maxEvents) {
        for (const TraceEvent& e : batch) {
            Dropped& d = m_dropped[e.cpu];
            d.fromNs = std::min(d.fromNs, e.ts);
            d.toNs = std::max(d.toNs, e.ts);
            ++d.events;
        }
        m_droppedEvents += batch.size();
        ++m_droppedBatches;
        return;
    }
    std::vector<TraceEvent> copy;
    if (!m_spare.empty()) {
        copy = std::move(m_spare.back());
        m_spare.pop_back();
    }
    copy.assign(batch.begin(), batch.end());
    m_batches.push_back(std::move(copy));
    m_events += batch.size();
}

size_t TraceBatchQueue::take(const std::function<void(std::span<const TraceEvent>)>& each)
{
    std::map<int, Dropped> dropped;
    {
        std::lock_guard lock(m_mutex);
        m_taken.swap(m_batches);
        m_events = 0;
        dropped.swap(m_dropped);
    }
    size_t n = 0;
    for (const std::vector<TraceEvent>& batch : m_taken) {
        each(batch);
        n += batch.size();
    }
    // What was dropped, as the kernel marks its own losses: a Lost event after the span, on its CPU.
    std::vector<TraceEvent> lost;
    for (const auto& [cpu, d] : dropped) {
        TraceEvent e{};
        e.type = TraceEventType::Lost;
        e.cpu = uint16_t(cpu);
        e.ts = d.toNs + 1;
        e.lost.sinceNs = d.fromNs - 1;
        e.lost.count = d.events;
        lost.push_back(e);
    }
    if (!lost.empty()) {
        sortTraceEvents(lost);
        each(lost);
        n += lost.size();
    }
    for (std::vector<TraceEvent>& batch : m_taken)
        batch.clear();
    std::lock_guard lock(m_mutex);
    while (!m_taken.empty() && m_spare.size() < 16) {
        m_spare.push_back(std::move(m_taken.back()));
        m_taken.pop_back();
    }
    m_taken.clear();
    return n;
}

uint64_t TraceBatchQueue::droppedEvents() const
{
    std::lock_guard lock(m_mutex);
    return m_droppedEvents;
}

uint64_t TraceBatchQueue::droppedBatches() const
{
    std::lock_guard lock(m_mutex);
    return m_droppedBatches;
}

} // namespace rtscope
