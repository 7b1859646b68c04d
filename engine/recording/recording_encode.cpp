#include "engine/recording/recording_blocks.h"

#include "engine/util/clock.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <vector>

namespace rtscope::recording_blocks {

std::string block(BlockType type, const std::string& payload)
{
    std::string out;
    out.reserve(kBlockHeaderBytes + payload.size());
    Encoder e(out);
    e.u8(uint8_t(type));
    e.u32(uint32_t(payload.size()));
    e.bytes(payload);
    return out;
}

std::string encodeSamples(size_t thread, std::span<const LatencySample> batch)
{
    std::string payload;
    payload.reserve(6 + batch.size() * 10);
    Encoder e(payload);
    e.u16(uint16_t(thread));
    e.u32(uint32_t(batch.size()));
    uint64_t prevSeq = uint64_t(-1); // the first sample's delta is its sequence number
    int64_t prevDeadline = 0;
    for (const LatencySample& s : batch) {
        e.zigzag(int64_t(s.seq - prevSeq - 1));
        e.zigzag(wrapDelta(s.deadlineNs, prevDeadline));
        e.zigzag(s.latencyNs);
        e.zigzag(wrapDelta(wrapDelta(s.wakeNs, s.deadlineNs), s.latencyNs)); // 0 for every measured sample
        e.varint(s.skipped);
        e.varint(s.epoch);
        prevSeq = s.seq;
        prevDeadline = s.deadlineNs;
    }
    return payload;
}

// The anatomy blocks (docs/recording-format.md, Anatomy). A text is u16 length + bytes, cut to @p max.
namespace {
void encodeTraceText(Encoder& e, std::string_view text, size_t max)
{
    const size_t n = std::min(text.size(), max);
    e.u16(uint16_t(n));
    e.bytes(text.substr(0, n));
}

// A list cut to its first @p max items: their count, written by @p count (&Encoder::u16 …), then each item.
template <class List, class Count, class EncodeItem>
void encodeCapped(Encoder& e, const List& items, size_t max, void (Encoder::*count)(Count), EncodeItem&& encodeItem)
{
    const size_t n = std::min(items.size(), max);
    (e.*count)(Count(n));
    for (size_t i = 0; i < n; ++i)
        encodeItem(items[i]);
}

} // namespace

std::string encodeAnatomy(const LatencyTracing& t, size_t worst, size_t over)
{
    std::string payload;
    Encoder e(payload);
    e.u8(t.active ? 1 : 0);
    e.i64(t.thresholdNs);
    e.i32(t.top);
    e.i64(t.updatedNs);
    encodeTraceText(e, t.unavailable, kMaxTraceTextBytes);
    encodeTraceText(e, t.stopError, kMaxTraceTextBytes);
    encodeCapped(e, t.missingEvents, kMaxMissingEvents, &Encoder::u16,
                 [&e](const std::string& name) { encodeTraceText(e, name, kMaxTraceNameBytes); });
    const TraceStats& st = t.stats;
    for (uint64_t v : {st.events, st.subBuffers, st.bytes, st.batches, st.lostEvents, st.lossReports, st.undecoded,
                       st.handlerErrors, st.kernelOverrun, st.kernelDropped, st.unreadAtStop})
        e.u64(v);
    e.i64(st.readerStopNs);
    e.u64(t.queueDroppedEvents);
    e.u64(t.queueDroppedBatches);
    const AnatomyFigures& f = t.figures;
    for (uint64_t v : {f.wakeupsSeen, f.wakeupsAnalysed, f.wakeupsComplete, f.wakeupsWithLoss, f.wakeupsNotAnalysed,
                       f.wakeupsPending, f.eventsDropped, f.overThresholdTotal})
        e.u64(v);
    e.u16(uint16_t(worst));
    e.u16(uint16_t(over));
    encodeCapped(e, f.culprits, kMaxRecordedCulprits, &Encoder::u32, [&e](const CulpritRow& r) {
        e.u8(uint8_t(r.kind));
        e.i64(r.id);
        encodeTraceText(e, r.name, kMaxTraceNameBytes);
        e.i32(r.prio);
        e.u64(r.wakeups);
        e.i64(r.totalNs);
        e.i64(r.worstNs);
    });
    return payload;
}

namespace {

// Each distinct comm, handler name and marker text of a window once; events name them by index.
class TraceStrings {
public:
    uint64_t index(std::string_view text)
    {
        const auto [it, added] = m_index.try_emplace(std::string(text), m_list.size());
        if (added)
            m_list.push_back(&it->first);
        return it->second;
    }
    void encode(Encoder& e) const
    {
        e.u16(uint16_t(m_list.size()));
        for (const std::string* text : m_list)
            encodeTraceText(e, *text, kMaxEventTextBytes);
    }

private:
    std::map<std::string, uint64_t> m_index;
    std::vector<const std::string*> m_list;
};

void encodeTraceTask(Encoder& e, TraceStrings& strings, const TraceTask& t)
{
    e.varint(strings.index(traceText(t.comm)));
    e.zigzag(t.pid);
    e.zigzag(t.prio);
}

void encodeTraceEvent(Encoder& e, TraceStrings& strings, const TraceEvent& ev, int64_t& prevTs)
{
    e.zigzag(wrapDelta(ev.ts, prevTs));
    prevTs = ev.ts;
    e.u8(uint8_t(ev.type));
    e.u8(ev.flags);
    e.varint(ev.cpu);
    e.zigzag(ev.pid);
    switch (tracePayload(ev.type)) {
    case TracePayload::Sw:
        encodeTraceTask(e, strings, ev.sw.prev);
        encodeTraceTask(e, strings, ev.sw.next);
        e.zigzag(ev.sw.prevState);
        break;
    case TracePayload::Wake:
        encodeTraceTask(e, strings, ev.wake.task);
        e.zigzag(ev.wake.targetCpu);
        e.zigzag(ev.wake.origCpu);
        break;
    case TracePayload::Irq:
        e.zigzag(ev.irq.number);
        e.zigzag(ev.irq.ret);
        e.u8(uint8_t(ev.irq.vector));
        e.varint(strings.index(traceText(ev.irq.name)));
        break;
    case TracePayload::Hrtimer:
        e.varint(ev.hrtimer.timer);
        e.varint(ev.hrtimer.function);
        e.zigzag(ev.hrtimer.nowNs);
        break;
    case TracePayload::Marker:
        e.varint(strings.index(traceText(ev.marker.text)));
        break;
    case TracePayload::Timerlat:
        e.varint(ev.timerlat.seq);
        e.zigzag(ev.timerlat.latencyNs);
        e.zigzag(ev.timerlat.context);
        break;
    case TracePayload::Lost:
        e.varint(ev.lost.count);
        e.zigzag(ev.lost.sinceNs);
        break;
    case TracePayload::Nmi:
        e.varint(ev.nmi.handler);
        e.zigzag(ev.nmi.deltaNs);
        e.zigzag(ev.nmi.handled);
        break;
    }
}

} // namespace

// @p keep: how many of the window's events go in (its latest); the rest are counted with eventsOmitted.
std::string encodeTracedWakeup(bool over, const TracedWakeup& w, size_t keep)
{
    std::string payload;
    Encoder e(payload);
    const WakeupAnatomy& a = w.anatomy;
    e.u8(over ? 1 : 0);
    e.u16(uint16_t(w.thread));
    e.u64(w.seq);
    e.u64(uint64_t(w.eventsOmitted) + (w.events.size() - keep));
    e.i32(a.query.tid);
    e.i32(a.query.cpu);
    e.i64(a.query.deadlineNs);
    e.i64(a.query.wakeNs);
    e.i64(a.latencyNs);
    const auto known = anatomyKnownTimes(a);
    uint8_t mask = 0;
    for (size_t i = 0; i < known.size(); ++i)
        mask |= *known[i] ? uint8_t(1u << i) : 0;
    e.u8(mask);
    for (const auto* k : known)
        if (*k)
            e.i64(**k);
    e.i32(a.runCpu);
    e.i32(a.timerCpu);
    e.u64(a.timerFunction);
    e.u8(uint8_t((a.idleAtTimer ? 1 : 0) | (a.runnableAtDeadline ? 2 : 0) | (a.eventsLost ? 4 : 0) |
                 (a.consistent ? 8 : 0)));
    e.i64(a.unaccountedNs);
    encodeTraceText(e, a.note, kMaxTraceTextBytes);
    encodeCapped(e, a.interrupts, kMaxAnatomyInterrupts, &Encoder::u16, [&e](const AnatomyInterrupt& in) {
        e.u8(uint8_t(in.kind));
        e.i64(in.id);
        encodeTraceText(e, in.name, kMaxTraceNameBytes);
        e.u8(in.ownTimer ? 1 : 0);
        e.i64(in.ns);
        e.i32(in.count);
    });
    encodeCapped(e, a.tasks, kMaxAnatomySlices, &Encoder::u16, [&e](const AnatomySlice& t) {
        e.i32(t.pid);
        encodeTraceText(e, t.comm, kMaxTraceNameBytes);
        e.i32(t.prio);
        e.i64(t.fromNs);
        e.i64(t.toNs);
        e.i64(t.ns);
        e.u8(t.switchInSeen ? 1 : 0);
    });
    // The events go after the string table they name, so they are encoded first, aside.
    TraceStrings strings;
    std::string events;
    Encoder ee(events);
    int64_t prevTs = 0;
    for (size_t i = w.events.size() - keep; i < w.events.size(); ++i)
        encodeTraceEvent(ee, strings, w.events[i], prevTs);
    strings.encode(e);
    e.u32(uint32_t(keep));
    e.bytes(events);
    return payload;
}

std::string isoUtc(int64_t unixNs)
{
    const auto t = static_cast<time_t>(unixNs / kNsPerSec);
    std::tm tm{};
    if (!gmtime_r(&t, &tm))
        return {};
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

int64_t unixNowNs()
{
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return fromTimespec(ts);
}

} // namespace rtscope::recording_blocks
