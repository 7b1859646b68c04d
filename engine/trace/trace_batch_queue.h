#pragma once
/// @file The bounded queue between a trace session's reader thread and the collector that analyses its batches. The
/// reader must never wait for the collector, nor the collector for the reader: whole batches that do not fit are
/// dropped and counted, and the span they covered comes out of take() as a Lost event on each CPU, as the kernel
/// marks its own losses, so the analysis knows those events are missing.
#include "engine/pipeline/trace_event.h"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <vector>

namespace rtscope {

class TraceBatchQueue {
public:
    /// @param maxEvents events waiting before whole batches are dropped.
    explicit TraceBatchQueue(size_t maxEvents);

    /// @brief Reader thread (the TraceBatchHandler): a copy of @p batch, or a counted drop when it does not fit.
    void push(std::span<const TraceEvent> batch);
    /// @brief Collector: hands every waiting batch to @p each, in the order they came, then one sorted batch of Lost
    /// events (one per CPU) for what was dropped since the last take. Returns the events handed on.
    size_t take(const std::function<void(std::span<const TraceEvent>)>& each);

    uint64_t droppedEvents() const;
    uint64_t droppedBatches() const;

private:
    struct Dropped {
        int64_t fromNs = INT64_MAX;
        int64_t toNs = INT64_MIN;
        uint64_t events = 0;
    };
    const size_t m_maxEvents;
    mutable std::mutex m_mutex;
    std::vector<std::vector<TraceEvent>> m_batches;
    std::vector<std::vector<TraceEvent>> m_spare; ///< emptied by the collector, for the reader to fill again
    size_t m_events = 0;
    std::map<int, Dropped> m_dropped; ///< by CPU, since the last take
    uint64_t m_droppedEvents = 0;
    uint64_t m_droppedBatches = 0;
    std::vector<std::vector<TraceEvent>> m_taken; ///< the collector's
};

} // namespace rtscope
