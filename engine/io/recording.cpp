#include "engine/io/recording.h"

#include "engine/experiments/latency/latency_replay.h"
#include "engine/io/cyclictest_format.h"
#include "engine/io/output_file.h"
#include "engine/io/report_json.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"
#include "engine/util/helper_thread.h"
#include "engine/util/json_fields.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <pthread.h>
#include <sched.h>

namespace rtscope {

namespace {

// ---------------------------------------------------------------------------------------------------------------
// Layout constants (docs/recording-format.md)

enum class BlockType : uint8_t {
    Header = 1,
    Samples = 2,
    Marker = 3,
    Reset = 4,
    Drops = 5,
    HogWork = 6,
    Restart = 7,
    Lost = 8,
    End = 9,
    Anatomy = 10,      // version 2: the run's tracing as it ended, without its wake-ups
    TracedWakeup = 11, // version 2: one kept wake-up, its anatomy and its window of kernel events
};
// Types from here on are optional (version 2): a reader that does not know one skips it.
constexpr uint8_t kFirstOptionalBlock = 128;

constexpr size_t kBlockHeaderBytes = 5; // type u8, length u32
constexpr uint32_t kMaxHeaderBytes = 1 << 20;
constexpr uint32_t kMaxSamplesPerBlock = 65536;
// seq, deadline, latency and the wake-up correction take at most 10 varint bytes each, skipped and epoch 5.
constexpr uint32_t kMaxSampleBytes = 4 * 10 + 2 * 5;
constexpr uint32_t kMaxSamplesBlockBytes = 6 + kMaxSamplesPerBlock * kMaxSampleBytes;
constexpr size_t kMaxLabelBytes = 4096;
constexpr uint32_t kMaxConfigBytes = 64 << 10;
// A replay keeps an aggregator per measuring thread: the limit bounds what a file can make us allocate.
constexpr size_t kMaxThreads = kMaxRecordingThreads;
constexpr int kMaxCpu = 65535;
// Timestamps are CLOCK_MONOTONIC nanoseconds: never negative, and far from the int64 limits so that the timeline
// and window arithmetic of a replay cannot overflow, whatever a file says.
constexpr int64_t kMaxTimeNs = int64_t(1) << 62;
// The writer thread writes when this much is pending, or every kWriterIntervalMs.
constexpr size_t kWriteChunk = 256 << 10;
constexpr int kWriterIntervalMs = 50;
// Samples gathered into one block: at most this many, spanning at most this long.
constexpr size_t kBlockSamples = 4096;
// The anatomy blocks (docs/recording-format.md). Texts are cut to these lengths by the writer and refused beyond
// them by the reader: a reason or note is a sentence, a name a comm, an IRQ handler or a kernel symbol.
constexpr size_t kMaxTraceTextBytes = 4096;
constexpr size_t kMaxTraceNameBytes = 1024;
constexpr size_t kMaxMissingEvents = 256;
constexpr size_t kMaxAnatomyInterrupts = 4096;
constexpr size_t kMaxAnatomySlices = kMaxRecordedWindowEvents;
// A window's string table holds each distinct comm, handler name and marker text once; an event names at most two.
constexpr size_t kMaxWindowStrings = 2 * kMaxRecordedWindowEvents;
constexpr size_t kMaxEventTextBytes = 63; // the longest of TraceEvent's fixed texts, TraceMarker::text, holds 55
constexpr uint32_t kMaxAnatomyBytes = 16 << 20;
constexpr uint32_t kMaxTracedWakeupBytes = 4 << 20;
constexpr uint32_t kMaxOptionalBytes = 16 << 20;
// The fewest bytes a culprit row and an event take: a count is refused when the payload cannot hold it.
constexpr size_t kMinCulpritBytes = 1 + 8 + 2 + 4 + 8 + 8 + 8;
constexpr size_t kMinEventBytes = 5;

const char* blockName(BlockType t)
{
    switch (t) {
    case BlockType::Header:
        return "header";
    case BlockType::Samples:
        return "samples";
    case BlockType::Marker:
        return "marker";
    case BlockType::Reset:
        return "reset";
    case BlockType::Drops:
        return "drops";
    case BlockType::HogWork:
        return "hog work";
    case BlockType::Restart:
        return "restart";
    case BlockType::Lost:
        return "lost";
    case BlockType::End:
        return "end";
    case BlockType::Anatomy:
        return "anatomy";
    case BlockType::TracedWakeup:
        return "traced wake-up";
    }
    return "optional";
}

uint32_t maxPayload(BlockType t)
{
    switch (t) {
    case BlockType::Header:
        return kMaxHeaderBytes;
    case BlockType::Samples:
        return kMaxSamplesBlockBytes;
    case BlockType::Marker:
        return 8 + 8 + 2 + kMaxLabelBytes + 4 + kMaxConfigBytes;
    case BlockType::Reset:
        return 8;
    case BlockType::Drops:
        return 2 + 8;
    case BlockType::HogWork:
        return 8 + 8 + 8;
    case BlockType::Restart:
        return 8 + 2 + 4 * kMaxThreads;
    case BlockType::Lost:
        return 8;
    case BlockType::End:
        return 8 + 8 + 8;
    case BlockType::Anatomy:
        return kMaxAnatomyBytes;
    case BlockType::TracedWakeup:
        return kMaxTracedWakeupBytes;
    }
    return kMaxOptionalBytes;
}

// ---------------------------------------------------------------------------------------------------------------
// Encoding

class Encoder {
public:
    explicit Encoder(std::string& out)
        : m_out(out)
    {}
    void u8(uint8_t v) { m_out.push_back(char(v)); }
    void u16(uint16_t v) { le(v, 2); }
    void u32(uint32_t v) { le(v, 4); }
    void u64(uint64_t v) { le(v, 8); }
    void i64(int64_t v) { le(uint64_t(v), 8); }
    void i32(int32_t v) { le(uint32_t(v), 4); }
    void f64(double v)
    {
        uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        le(bits, 8);
    }
    void varint(uint64_t v)
    {
        while (v >= 0x80) {
            m_out.push_back(char(uint8_t(v) | 0x80));
            v >>= 7;
        }
        m_out.push_back(char(v));
    }
    // Zigzag keeps small negative numbers small: 0, -1, 1, -2 … → 0, 1, 2, 3 …
    void zigzag(int64_t v) { varint((uint64_t(v) << 1) ^ uint64_t(v >> 63)); }
    void bytes(std::string_view s) { m_out.append(s); }

private:
    void le(uint64_t v, int n)
    {
        for (int i = 0; i < n; ++i)
            m_out.push_back(char(uint8_t(v >> (8 * i))));
    }
    std::string& m_out;
};

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

// Deltas are taken with wrap-around arithmetic, so any sample (even one a test made up) survives the round trip
// exactly; the reader undoes them the same way and only then checks the values.
int64_t wrapDelta(int64_t a, int64_t b)
{
    return int64_t(uint64_t(a) - uint64_t(b));
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
void encodeTraceText(Encoder& e, std::string_view text, size_t max)
{
    const size_t n = std::min(text.size(), max);
    e.u16(uint16_t(n));
    e.bytes(text.substr(0, n));
}

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
    const size_t missing = std::min(t.missingEvents.size(), kMaxMissingEvents);
    e.u16(uint16_t(missing));
    for (size_t i = 0; i < missing; ++i)
        encodeTraceText(e, t.missingEvents[i], kMaxTraceNameBytes);
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
    const size_t rows = std::min(f.culprits.size(), kMaxRecordedCulprits);
    e.u32(uint32_t(rows));
    for (size_t i = 0; i < rows; ++i) {
        const CulpritRow& r = f.culprits[i];
        e.u8(uint8_t(r.kind));
        e.i64(r.id);
        encodeTraceText(e, r.name, kMaxTraceNameBytes);
        e.i32(r.prio);
        e.u64(r.wakeups);
        e.i64(r.totalNs);
        e.i64(r.worstNs);
    }
    return payload;
}

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
    switch (ev.type) {
    case TraceEventType::SchedSwitch:
        encodeTraceTask(e, strings, ev.sw.prev);
        encodeTraceTask(e, strings, ev.sw.next);
        e.zigzag(ev.sw.prevState);
        break;
    case TraceEventType::SchedWaking:
    case TraceEventType::SchedWakeup:
    case TraceEventType::SchedMigrate:
        encodeTraceTask(e, strings, ev.wake.task);
        e.zigzag(ev.wake.targetCpu);
        e.zigzag(ev.wake.origCpu);
        break;
    case TraceEventType::IrqEntry:
    case TraceEventType::IrqExit:
    case TraceEventType::SoftirqEntry:
    case TraceEventType::SoftirqExit:
    case TraceEventType::VectorEntry:
    case TraceEventType::VectorExit:
        e.zigzag(ev.irq.number);
        e.zigzag(ev.irq.ret);
        e.u8(uint8_t(ev.irq.vector));
        e.varint(strings.index(traceText(ev.irq.name)));
        break;
    case TraceEventType::HrtimerExpireEntry:
    case TraceEventType::HrtimerExpireExit:
        e.varint(ev.hrtimer.timer);
        e.varint(ev.hrtimer.function);
        e.zigzag(ev.hrtimer.nowNs);
        break;
    case TraceEventType::Marker:
        e.varint(strings.index(traceText(ev.marker.text)));
        break;
    case TraceEventType::Timerlat:
        e.varint(ev.timerlat.seq);
        e.zigzag(ev.timerlat.latencyNs);
        e.zigzag(ev.timerlat.context);
        break;
    case TraceEventType::Lost:
        e.varint(ev.lost.count);
        e.zigzag(ev.lost.sinceNs);
        break;
    }
}

// The optional parts and event times of an anatomy, in the order of the "known" bits.
template <class A> auto anatomyKnownTimes(A& a)
{
    return std::array{&a.timerNs,         &a.wakingNs, &a.wakeupNs,     &a.switchInNs,
                      &a.timerIrqDelayNs, &a.irqNs,    &a.schedulingNs, &a.returnToUserNs};
}
constexpr size_t kAnatomyKnownTimestamps = 4; // the first four are event times, the rest durations

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
    const size_t interrupts = std::min(a.interrupts.size(), kMaxAnatomyInterrupts);
    e.u16(uint16_t(interrupts));
    for (size_t i = 0; i < interrupts; ++i) {
        const AnatomyInterrupt& in = a.interrupts[i];
        e.u8(uint8_t(in.kind));
        e.i64(in.id);
        encodeTraceText(e, in.name, kMaxTraceNameBytes);
        e.u8(in.ownTimer ? 1 : 0);
        e.i64(in.ns);
        e.i32(in.count);
    }
    const size_t slices = std::min(a.tasks.size(), kMaxAnatomySlices);
    e.u16(uint16_t(slices));
    for (size_t i = 0; i < slices; ++i) {
        const AnatomySlice& t = a.tasks[i];
        e.i32(t.pid);
        encodeTraceText(e, t.comm, kMaxTraceNameBytes);
        e.i32(t.prio);
        e.i64(t.fromNs);
        e.i64(t.toNs);
        e.i64(t.ns);
        e.u8(t.switchInSeen ? 1 : 0);
    }
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

// ---------------------------------------------------------------------------------------------------------------
// Decoding

// Bounds-checked reads from one block's payload.
class Payload {
public:
    explicit Payload(std::string_view bytes)
        : m_bytes(bytes)
    {}
    bool u8(uint8_t& v) { return le(v, 1); }
    bool u16(uint16_t& v) { return le(v, 2); }
    bool u32(uint32_t& v) { return le(v, 4); }
    bool u64(uint64_t& v) { return le(v, 8); }
    bool i64(int64_t& v)
    {
        uint64_t u = 0;
        if (!le(u, 8))
            return false;
        v = int64_t(u);
        return true;
    }
    bool i32(int32_t& v)
    {
        uint32_t u = 0;
        if (!le(u, 4))
            return false;
        v = int32_t(u);
        return true;
    }
    bool f64(double& v)
    {
        uint64_t bits = 0;
        if (!le(bits, 8))
            return false;
        std::memcpy(&v, &bits, sizeof v);
        return true;
    }
    // Exactly the encoder's form: at most 10 bytes, and the 10th may only carry the top bit of 64.
    bool varint(uint64_t& v)
    {
        v = 0;
        for (int i = 0; i < 10; ++i) {
            if (m_pos >= m_bytes.size())
                return false;
            const auto b = uint8_t(m_bytes[m_pos++]);
            if (i == 9 && b > 1)
                return false;
            v |= uint64_t(b & 0x7f) << (7 * i);
            if (!(b & 0x80))
                return true;
        }
        return false;
    }
    bool zigzag(int64_t& v)
    {
        uint64_t u = 0;
        if (!varint(u))
            return false;
        v = int64_t((u >> 1) ^ (~(u & 1) + 1));
        return true;
    }
    bool bytes(size_t n, std::string_view& out)
    {
        if (n > m_bytes.size() - m_pos)
            return false;
        out = m_bytes.substr(m_pos, n);
        m_pos += n;
        return true;
    }
    size_t left() const { return m_bytes.size() - m_pos; }

private:
    template <class T> bool le(T& v, int n)
    {
        if (size_t(n) > m_bytes.size() - m_pos)
            return false;
        uint64_t x = 0;
        for (int i = 0; i < n; ++i)
            x |= uint64_t(uint8_t(m_bytes[m_pos + size_t(i)])) << (8 * i);
        m_pos += size_t(n);
        v = T(x);
        return true;
    }
    std::string_view m_bytes;
    size_t m_pos = 0;
};

// Where the bytes come from: memory (tests, fuzzing) or a file read block by block.
class Input {
public:
    virtual ~Input() = default;
    virtual bool read(char* dst, size_t n) = 0;
    uint64_t size() const { return m_size; }
    uint64_t offset() const { return m_offset; }
    uint64_t remaining() const { return m_size - m_offset; }

protected:
    uint64_t m_size = 0;
    uint64_t m_offset = 0;
};

class MemoryInput final : public Input {
public:
    explicit MemoryInput(std::string_view bytes)
        : m_bytes(bytes)
    {
        m_size = bytes.size();
    }
    bool read(char* dst, size_t n) override
    {
        if (n > remaining())
            return false;
        std::memcpy(dst, m_bytes.data() + m_offset, n);
        m_offset += n;
        return true;
    }

private:
    std::string_view m_bytes;
};

class FileInput final : public Input {
public:
    explicit FileInput(const std::string& path)
        : m_in(path, std::ios::binary)
    {
        if (!m_in)
            return;
        m_in.seekg(0, std::ios::end);
        const std::streamoff end = m_in.tellg();
        m_in.seekg(0, std::ios::beg);
        m_size = end > 0 ? uint64_t(end) : 0;
    }
    bool good() const { return bool(m_in); }
    bool read(char* dst, size_t n) override
    {
        if (n > remaining() || !m_in.read(dst, std::streamsize(n)))
            return false;
        m_offset += n;
        return true;
    }

private:
    std::ifstream m_in;
};

bool validTime(int64_t t)
{
    return t >= 0 && t <= kMaxTimeNs;
}

// Config validation without this machine's CPUs: a recording made on a 16-CPU board names CPUs this one lacks.
const CpuTopology& anyCpus()
{
    static const CpuTopology topo = [] {
        CpuTopology t;
        for (int cpu = 0; cpu <= kMaxCpu; ++cpu)
            t.online.push_back(cpu);
        t.allowed = t.online;
        return t;
    }();
    return topo;
}

bool configFromJson(const nlohmann::json& j, LatencyConfig& out, std::string& error)
{
    // Checked before the config is read: validate() compares every listed CPU with the ones before it, and a
    // megabyte of CPU numbers would keep it busy for seconds.
    if (j.is_object()) {
        const auto cpus = j.find("cpus");
        if (cpus != j.end() && cpus->is_array() && cpus->size() > kMaxThreads) {
            error = "cpus lists " + std::to_string(cpus->size()) + " CPUs; a recording holds at most " +
                    std::to_string(kMaxThreads) + " measuring threads";
            return false;
        }
    }
    std::vector<std::string> errors;
    LatencyConfig c = latencyConfigFromJson(j, errors);
    if (errors.empty())
        errors = c.validate(anyCpus());
    if (!errors.empty()) {
        error = errors.front();
        return false;
    }
    out = c;
    return true;
}

class Parser {
public:
    Parser(Input& in, RecordingVisitor& visitor, const RecordingProgress& progress)
        : m_in(in)
        , m_visitor(visitor)
        , m_progress(progress)
    {}

    RecordingReadResult run();

private:
    bool fail(std::string what)
    {
        m_result.error =
            "offset " + std::to_string(m_blockOffset) + ", " + blockName(m_type) + " block: " + std::move(what);
        return false;
    }
    bool truncated(const std::string& why)
    {
        m_result.truncated = true;
        m_result.error = "truncated after " + std::to_string(m_result.samples) + " samples: " + why;
        return false;
    }
    bool header(Payload& p);
    bool samples(Payload& p);
    bool marker(Payload& p);
    bool threadIndex(Payload& p, size_t& thread);
    bool anatomy(Payload& p);
    bool tracedWakeup(Payload& p);
    bool traceText(Payload& p, size_t max, const std::string& field, std::string& out);
    bool traceCount(Payload& p, uint64_t n, uint64_t max, size_t minBytes, const std::string& field);
    bool traceEvent(Payload& p, const std::vector<std::string>& strings, int64_t& prevTs, size_t i, size_t count,
                    TraceEvent& ev);
    bool anatomyComplete();

    Input& m_in;
    RecordingVisitor& m_visitor;
    const RecordingProgress& m_progress;
    RecordingReadResult m_result;
    uint64_t m_blockOffset = 0;
    BlockType m_type = BlockType::Header;
    size_t m_threads = 0;
    std::vector<uint64_t> m_drops;
    std::vector<LatencySample> m_batch;
    int64_t m_lastWakeNs = 0;
    uint64_t m_lostSeen = 0;
    // The anatomy blocks: what the anatomy block announced, what followed it, and the events of all windows so far.
    bool m_anatomySeen = false;
    size_t m_anatomyWorst = 0;
    size_t m_anatomyOver = 0;
    size_t m_wakeupsWorst = 0;
    size_t m_wakeupsOver = 0;
    uint64_t m_traceEvents = 0;
};

bool Parser::threadIndex(Payload& p, size_t& thread)
{
    uint16_t t = 0;
    if (!p.u16(t))
        return fail("cut short");
    if (t >= m_threads)
        return fail("thread " + std::to_string(t) + " does not exist (the run has " + std::to_string(m_threads) +
                    " measuring thread" + (m_threads == 1 ? ")" : "s)"));
    thread = t;
    return true;
}

bool Parser::header(Payload& p)
{
    std::string_view text;
    p.bytes(p.left(), text);
    const nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return fail("not a JSON object");
    RecordingHeader h;
    // A header is refused for its first problem, in the order below: one sentence, as for every other block.
    std::vector<std::string> problems;
    JsonFields f(j, problems, {}, JsonWording::labels());
    std::string format;
    if (!f.string({"format", Presence::Required}, format))
        return fail(problems.front());
    if (format != "rtscope-recording")
        return fail("format: expected \"rtscope-recording\"");
    f.string("rtscope_version", h.rtscopeVersion);
    f.string("recorded_at", h.recordedAt);
    f.string("host", h.host);
    f.string("command", h.command);
    f.integer({"start_ns", Presence::Required}, h.startNs, 0, kMaxTimeNs);
    f.integer({"start_unix_ns", Presence::Required}, h.startUnixNs);
    f.integerList(
        {"cpus", Presence::Required, "expected an array of 1 to " + std::to_string(kMaxThreads) + " CPU numbers"},
        h.cpus, {0, kMaxCpu, 1, kMaxThreads, "expected CPU numbers from 0 to " + std::to_string(kMaxCpu)});
    const nlohmann::json* config = f.find({"config", Presence::Required});
    if (!problems.empty())
        return fail(problems.front());
    std::string error;
    if (!configFromJson(*config, h.config, error))
        return fail("config: " + error);
    const nlohmann::json* probe = f.find("probe");
    if (!probe || !probe->is_object())
        return fail("probe: expected an object");
    std::vector<std::string> errors;
    h.probe = systemProbeFromJson(*probe, errors);
    if (!errors.empty())
        return fail("probe: " + errors.front());
    h.probe.hostname = h.host;
    h.probeJson = *probe;
    m_threads = h.cpus.size();
    m_drops.assign(m_threads, 0);
    m_lastWakeNs = h.startNs;
    m_result.headerRead = true;
    m_visitor.header(h);
    return true;
}

bool Parser::samples(Payload& p)
{
    size_t thread = 0;
    uint32_t count = 0;
    if (!threadIndex(p, thread))
        return false;
    if (!p.u32(count))
        return fail("cut short");
    if (count == 0 || count > kMaxSamplesPerBlock)
        return fail("sample count " + std::to_string(count) + " is outside 1 … " + std::to_string(kMaxSamplesPerBlock));
    // Each sample takes at least 6 bytes: a count the payload cannot hold is refused before anything is allocated.
    if (uint64_t(count) * 6 > p.left())
        return fail(std::to_string(count) + " samples cannot fit in " + std::to_string(p.left()) + " bytes");
    m_batch.resize(count);
    uint64_t seq = uint64_t(-1);
    int64_t deadline = 0;
    for (uint32_t i = 0; i < count; ++i) {
        int64_t dSeq = 0, dDeadline = 0, latency = 0, extra = 0;
        uint64_t skipped = 0, epoch = 0;
        if (!p.zigzag(dSeq) || !p.zigzag(dDeadline) || !p.zigzag(latency) || !p.zigzag(extra) || !p.varint(skipped) ||
            !p.varint(epoch))
            return fail("sample " + std::to_string(i) + " of " + std::to_string(count) + " is cut short or malformed");
        LatencySample& s = m_batch[i];
        s.seq = seq + uint64_t(dSeq) + 1;
        s.deadlineNs = int64_t(uint64_t(deadline) + uint64_t(dDeadline));
        s.latencyNs = latency;
        s.wakeNs = int64_t(uint64_t(s.deadlineNs) + uint64_t(latency) + uint64_t(extra));
        if (!validTime(s.deadlineNs) || !validTime(s.wakeNs) || latency < -kMaxTimeNs || latency > kMaxTimeNs)
            return fail("sample " + std::to_string(i) + ": time out of range");
        if (skipped > std::numeric_limits<uint32_t>::max() || epoch > std::numeric_limits<uint32_t>::max())
            return fail("sample " + std::to_string(i) + ": skipped or epoch out of range");
        s.skipped = uint32_t(skipped);
        s.epoch = uint32_t(epoch);
        seq = s.seq;
        deadline = s.deadlineNs;
        m_lastWakeNs = std::max(m_lastWakeNs, s.wakeNs);
    }
    if (p.left())
        return fail(std::to_string(p.left()) + " bytes left over after " + std::to_string(count) + " samples");
    m_result.samples += count;
    m_visitor.samples(thread, m_batch);
    return true;
}

bool Parser::marker(Payload& p)
{
    RecordedMarker m;
    uint16_t labelBytes = 0;
    uint32_t configBytes = 0;
    std::string_view label, config;
    if (!p.i64(m.tNs) || !p.u64(m.seq) || !p.u16(labelBytes))
        return fail("cut short");
    if (!validTime(m.tNs))
        return fail("time out of range");
    if (labelBytes > kMaxLabelBytes || !p.bytes(labelBytes, label))
        return fail("label length " + std::to_string(labelBytes) + " does not fit");
    if (!p.u32(configBytes) || configBytes == 0 || configBytes > kMaxConfigBytes || !p.bytes(configBytes, config))
        return fail("config length " + std::to_string(configBytes) + " does not fit");
    if (p.left())
        return fail(std::to_string(p.left()) + " bytes left over");
    const nlohmann::json j = nlohmann::json::parse(config.begin(), config.end(), nullptr, false);
    std::string error;
    if (j.is_discarded())
        return fail("config is not valid JSON");
    if (!configFromJson(j, m.config, error))
        return fail("config: " + error);
    m.label = std::string(label);
    m_visitor.marker(m);
    return true;
}

bool Parser::traceText(Payload& p, size_t max, const std::string& field, std::string& out)
{
    uint16_t n = 0;
    std::string_view text;
    if (!p.u16(n))
        return fail(field + ": cut short");
    if (n > max)
        return fail(field + ": length " + std::to_string(n) + " exceeds the limit of " + std::to_string(max));
    if (!p.bytes(n, text))
        return fail(field + ": length " + std::to_string(n) + " does not fit in the " + std::to_string(p.left()) +
                    " bytes left");
    out.assign(text);
    return true;
}

// A count is refused before anything is allocated for it: above its limit, or more than the payload left can hold
// at @p minBytes an item.
bool Parser::traceCount(Payload& p, uint64_t n, uint64_t max, size_t minBytes, const std::string& field)
{
    if (n > max)
        return fail(field + " " + std::to_string(n) + " exceeds the limit of " + std::to_string(max));
    if (n * minBytes > p.left())
        return fail(field + " " + std::to_string(n) + " cannot fit in the " + std::to_string(p.left()) + " bytes left");
    return true;
}

bool Parser::anatomy(Payload& p)
{
    if (m_anatomySeen)
        return fail("a second anatomy block");
    LatencyTracing t;
    uint8_t active = 0;
    int32_t top = 0;
    if (!p.u8(active) || !p.i64(t.thresholdNs) || !p.i32(top) || !p.i64(t.updatedNs))
        return fail("cut short");
    if (active > 1)
        return fail("active must be 0 or 1 (got " + std::to_string(active) + ")");
    if (t.thresholdNs < 0 || t.thresholdNs > kMaxTimeNs)
        return fail("threshold_ns " + std::to_string(t.thresholdNs) + " is out of range");
    if (top < 0 || top > LatencyConfig::kMaxTraceTop)
        return fail("top " + std::to_string(top) + " is outside 0 … " + std::to_string(LatencyConfig::kMaxTraceTop));
    if (!validTime(t.updatedNs))
        return fail("updated_ns: time out of range");
    t.active = active == 1;
    t.top = top;
    uint16_t missing = 0;
    if (!traceText(p, kMaxTraceTextBytes, "unavailable reason", t.unavailable) ||
        !traceText(p, kMaxTraceTextBytes, "stop error", t.stopError))
        return false;
    if (!p.u16(missing))
        return fail("cut short");
    if (!traceCount(p, missing, kMaxMissingEvents, 2, "missing event count"))
        return false;
    t.missingEvents.resize(missing);
    for (std::string& name : t.missingEvents)
        if (!traceText(p, kMaxTraceNameBytes, "missing event name", name))
            return false;
    TraceStats& st = t.stats;
    AnatomyFigures& f = t.figures;
    uint64_t overTotal = 0;
    uint16_t worst = 0, over = 0;
    uint32_t rows = 0;
    if (!p.u64(st.events) || !p.u64(st.subBuffers) || !p.u64(st.bytes) || !p.u64(st.batches) || !p.u64(st.lostEvents) ||
        !p.u64(st.lossReports) || !p.u64(st.undecoded) || !p.u64(st.handlerErrors) || !p.u64(st.kernelOverrun) ||
        !p.u64(st.kernelDropped) || !p.u64(st.unreadAtStop) || !p.i64(st.readerStopNs) ||
        !p.u64(t.queueDroppedEvents) || !p.u64(t.queueDroppedBatches) || !p.u64(f.wakeupsSeen) ||
        !p.u64(f.wakeupsAnalysed) || !p.u64(f.wakeupsComplete) || !p.u64(f.wakeupsWithLoss) ||
        !p.u64(f.wakeupsNotAnalysed) || !p.u64(f.wakeupsPending) || !p.u64(f.eventsDropped) || !p.u64(overTotal) ||
        !p.u16(worst) || !p.u16(over) || !p.u32(rows))
        return fail("cut short");
    f.overThresholdTotal = overTotal;
    if (worst > size_t(top))
        return fail("worst wake-up count " + std::to_string(worst) + " exceeds its top of " + std::to_string(top));
    if (over > kMaxRecordedOverThreshold)
        return fail("over-threshold wake-up count " + std::to_string(over) + " exceeds the limit of " +
                    std::to_string(kMaxRecordedOverThreshold));
    if (!traceCount(p, rows, kMaxRecordedCulprits, kMinCulpritBytes, "culprit count"))
        return false;
    f.culprits.resize(rows);
    for (uint32_t i = 0; i < rows; ++i) {
        CulpritRow& r = f.culprits[i];
        uint8_t kind = 0;
        const std::string row = "culprit " + std::to_string(i);
        if (!p.u8(kind) || !p.i64(r.id))
            return fail(row + ": cut short");
        if (kind > uint8_t(CulpritKind::Hrtimer))
            return fail(row + ": kind " + std::to_string(kind) + " is unknown");
        r.kind = CulpritKind(kind);
        if (!traceText(p, kMaxTraceNameBytes, row + " name", r.name))
            return false;
        if (!p.i32(r.prio) || !p.u64(r.wakeups) || !p.i64(r.totalNs) || !p.i64(r.worstNs))
            return fail(row + ": cut short");
    }
    if (p.left())
        return fail(std::to_string(p.left()) + " bytes left over after " + std::to_string(rows) + " culprits");
    m_anatomySeen = true;
    m_anatomyWorst = worst;
    m_anatomyOver = over;
    m_visitor.tracing(t);
    return true;
}

bool Parser::traceEvent(Payload& p, const std::vector<std::string>& strings, int64_t& prevTs, size_t i, size_t count,
                        TraceEvent& ev)
{
    const std::string at = "event " + std::to_string(i) + " of " + std::to_string(count);
    const auto malformed = [&] {
        return fail(at + " is cut short or malformed");
    };
    const auto i32 = [&](int32_t& dst) {
        int64_t v = 0;
        if (!p.zigzag(v) || v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
            return false;
        dst = int32_t(v);
        return true;
    };
    // A string of the window's table, into a fixed char array that must hold it whole.
    const auto text = [&]<size_t N>(char(&dst)[N], const char* field) {
        uint64_t index = 0;
        if (!p.varint(index))
            return malformed();
        if (index >= strings.size())
            return fail(at + ": string " + std::to_string(index) + " does not exist (the window has " +
                        std::to_string(strings.size()) + ")");
        if (strings[index].size() > N - 1)
            return fail(at + ": " + field + " of " + std::to_string(strings[index].size()) + " bytes (at most " +
                        std::to_string(N - 1) + ")");
        setTraceText(dst, strings[index]);
        return true;
    };
    const auto task = [&](TraceTask& t) {
        return text(t.comm, "a comm") && (i32(t.pid) || malformed()) && (i32(t.prio) || malformed());
    };

    int64_t dTs = 0;
    uint8_t type = 0;
    uint64_t cpu = 0;
    if (!p.zigzag(dTs) || !p.u8(type) || !p.u8(ev.flags) || !p.varint(cpu) || !i32(ev.pid))
        return malformed();
    ev.ts = int64_t(uint64_t(prevTs) + uint64_t(dTs));
    if (!validTime(ev.ts))
        return fail(at + ": time out of range");
    prevTs = ev.ts;
    if (type > uint8_t(TraceEventType::Lost))
        return fail(at + ": type " + std::to_string(type) + " is unknown");
    if (cpu > uint64_t(kMaxCpu))
        return fail(at + ": CPU number out of range");
    ev.type = TraceEventType(type);
    ev.cpu = uint16_t(cpu);
    switch (ev.type) {
    case TraceEventType::SchedSwitch:
        return task(ev.sw.prev) && task(ev.sw.next) && (p.zigzag(ev.sw.prevState) || malformed());
    case TraceEventType::SchedWaking:
    case TraceEventType::SchedWakeup:
    case TraceEventType::SchedMigrate:
        return task(ev.wake.task) && ((i32(ev.wake.targetCpu) && i32(ev.wake.origCpu)) || malformed());
    case TraceEventType::IrqEntry:
    case TraceEventType::IrqExit:
    case TraceEventType::SoftirqEntry:
    case TraceEventType::SoftirqExit:
    case TraceEventType::VectorEntry:
    case TraceEventType::VectorExit: {
        uint8_t vector = 0;
        if (!i32(ev.irq.number) || !i32(ev.irq.ret) || !p.u8(vector))
            return malformed();
        if (vector > uint8_t(TraceVector::CallFunctionSingle))
            return fail(at + ": vector " + std::to_string(vector) + " is unknown");
        ev.irq.vector = TraceVector(vector);
        return text(ev.irq.name, "an IRQ name");
    }
    case TraceEventType::HrtimerExpireEntry:
    case TraceEventType::HrtimerExpireExit:
        return (p.varint(ev.hrtimer.timer) && p.varint(ev.hrtimer.function) && p.zigzag(ev.hrtimer.nowNs)) ||
               malformed();
    case TraceEventType::Marker:
        return text(ev.marker.text, "a marker text");
    case TraceEventType::Timerlat:
        return (p.varint(ev.timerlat.seq) && p.zigzag(ev.timerlat.latencyNs) && i32(ev.timerlat.context)) ||
               malformed();
    case TraceEventType::Lost:
        if (!p.varint(ev.lost.count) || !p.zigzag(ev.lost.sinceNs))
            return malformed();
        if (ev.lost.sinceNs != 0 && !validTime(ev.lost.sinceNs))
            return fail(at + ": the lost span's start is out of range");
        return true;
    }
    return malformed();
}

bool Parser::tracedWakeup(Payload& p)
{
    if (!m_anatomySeen)
        return fail("comes before the anatomy block");
    TracedWakeup w;
    WakeupAnatomy& a = w.anatomy;
    uint8_t list = 0;
    uint64_t omitted = 0;
    if (!p.u8(list))
        return fail("cut short");
    if (list > 1)
        return fail("list must be 0 (worst) or 1 (over the threshold), got " + std::to_string(list));
    const bool over = list == 1;
    if (over ? m_wakeupsOver == m_anatomyOver : m_wakeupsWorst == m_anatomyWorst)
        return fail(std::string("more ") + (over ? "over-threshold" : "worst") + " wake-ups than the anatomy block " +
                    "announced (" + std::to_string(over ? m_anatomyOver : m_anatomyWorst) + ")");
    if (!threadIndex(p, w.thread))
        return false;
    uint8_t mask = 0, flags = 0;
    if (!p.u64(w.seq) || !p.u64(omitted) || !p.i32(a.query.tid) || !p.i32(a.query.cpu) || !p.i64(a.query.deadlineNs) ||
        !p.i64(a.query.wakeNs) || !p.i64(a.latencyNs) || !p.u8(mask))
        return fail("cut short");
    w.eventsOmitted = size_t(omitted);
    if (!validTime(a.query.deadlineNs) || !validTime(a.query.wakeNs) || a.latencyNs < -kMaxTimeNs ||
        a.latencyNs > kMaxTimeNs)
        return fail("deadline, wake time or latency out of range");
    const auto known = anatomyKnownTimes(a);
    for (size_t i = 0; i < known.size(); ++i) {
        if (!(mask & (1u << i)))
            continue;
        int64_t v = 0;
        if (!p.i64(v))
            return fail("cut short");
        const bool ok = i < kAnatomyKnownTimestamps ? validTime(v) : v >= -kMaxTimeNs && v <= kMaxTimeNs;
        if (!ok)
            return fail("an event time or part of its anatomy is out of range");
        *known[i] = v;
    }
    if (!p.i32(a.runCpu) || !p.i32(a.timerCpu) || !p.u64(a.timerFunction) || !p.u8(flags) || !p.i64(a.unaccountedNs))
        return fail("cut short");
    if (flags > 15)
        return fail("flags " + std::to_string(flags) + " has unknown bits");
    a.idleAtTimer = flags & 1;
    a.runnableAtDeadline = flags & 2;
    a.eventsLost = flags & 4;
    a.consistent = flags & 8;
    if (!traceText(p, kMaxTraceTextBytes, "note", a.note))
        return false;

    uint16_t interrupts = 0;
    if (!p.u16(interrupts))
        return fail("cut short");
    if (!traceCount(p, interrupts, kMaxAnatomyInterrupts, 1 + 8 + 2 + 1 + 8 + 4, "interrupt count"))
        return false;
    a.interrupts.resize(interrupts);
    for (size_t i = 0; i < a.interrupts.size(); ++i) {
        AnatomyInterrupt& in = a.interrupts[i];
        const std::string row = "interrupt " + std::to_string(i);
        uint8_t kind = 0, own = 0;
        if (!p.u8(kind) || !p.i64(in.id))
            return fail(row + ": cut short");
        if (kind > uint8_t(CulpritKind::Hrtimer))
            return fail(row + ": kind " + std::to_string(kind) + " is unknown");
        in.kind = CulpritKind(kind);
        if (!traceText(p, kMaxTraceNameBytes, row + " name", in.name))
            return false;
        if (!p.u8(own) || !p.i64(in.ns) || !p.i32(in.count))
            return fail(row + ": cut short");
        in.ownTimer = own != 0;
    }
    uint16_t slices = 0;
    if (!p.u16(slices))
        return fail("cut short");
    if (!traceCount(p, slices, kMaxAnatomySlices, 4 + 2 + 4 + 8 + 8 + 8 + 1, "task slice count"))
        return false;
    a.tasks.resize(slices);
    for (size_t i = 0; i < a.tasks.size(); ++i) {
        AnatomySlice& t = a.tasks[i];
        const std::string row = "task slice " + std::to_string(i);
        uint8_t seen = 0;
        if (!p.i32(t.pid))
            return fail(row + ": cut short");
        if (!traceText(p, kMaxTraceNameBytes, row + " comm", t.comm))
            return false;
        if (!p.i32(t.prio) || !p.i64(t.fromNs) || !p.i64(t.toNs) || !p.i64(t.ns) || !p.u8(seen))
            return fail(row + ": cut short");
        if (!validTime(t.fromNs) || !validTime(t.toNs))
            return fail(row + ": time out of range");
        t.switchInSeen = seen != 0;
    }

    uint16_t stringCount = 0;
    if (!p.u16(stringCount))
        return fail("cut short");
    if (!traceCount(p, stringCount, kMaxWindowStrings, 2, "string count"))
        return false;
    std::vector<std::string> strings(stringCount);
    for (std::string& text : strings)
        if (!traceText(p, kMaxEventTextBytes, "window string", text))
            return false;
    uint32_t events = 0;
    if (!p.u32(events))
        return fail("cut short");
    if (!traceCount(p, events, kMaxRecordedWindowEvents, kMinEventBytes, "event count"))
        return false;
    if (m_traceEvents + events > kMaxRecordedTraceEvents)
        return fail("its " + std::to_string(events) + " events bring the file's traced events to " +
                    std::to_string(m_traceEvents + events) + ", above the limit of " +
                    std::to_string(kMaxRecordedTraceEvents));
    m_traceEvents += events;
    w.events.resize(events);
    int64_t prevTs = 0;
    for (size_t i = 0; i < w.events.size(); ++i)
        if (!traceEvent(p, strings, prevTs, i, events, w.events[i]))
            return false;
    if (p.left())
        return fail(std::to_string(p.left()) + " bytes left over after " + std::to_string(events) + " events");
    ++(over ? m_wakeupsOver : m_wakeupsWorst);
    m_visitor.tracedWakeup(over, std::move(w));
    return true;
}

// At the end block: every wake-up the anatomy block announced came.
bool Parser::anatomyComplete()
{
    if (m_wakeupsWorst == m_anatomyWorst && m_wakeupsOver == m_anatomyOver)
        return true;
    return fail("the anatomy block announced " + std::to_string(m_anatomyWorst) + " worst and " +
                std::to_string(m_anatomyOver) + " over-threshold wake-ups, the file holds " +
                std::to_string(m_wakeupsWorst) + " and " + std::to_string(m_wakeupsOver));
}

RecordingReadResult Parser::run()
{
    char magic[sizeof kRecordingMagic];
    if (!m_in.read(magic, sizeof magic) || std::memcmp(magic, kRecordingMagic, sizeof magic) != 0) {
        m_result.error = "not an rtscope recording (it does not start with the RTSCREC signature)";
        return m_result;
    }
    char version[4];
    if (!m_in.read(version, sizeof version)) {
        truncated("the file ends inside its signature");
        return m_result;
    }
    uint32_t v = 0;
    Payload(std::string_view(version, 4)).u32(v);
    if (v < kRecordingOldestVersion || v > kRecordingVersion) {
        m_result.error = "recording format version " + std::to_string(v) + " is not supported (this rtscope reads " +
                         "versions " + std::to_string(kRecordingOldestVersion) + " to " +
                         std::to_string(kRecordingVersion) + ")";
        return m_result;
    }
    std::string payload;
    for (;;) {
        m_blockOffset = m_in.offset();
        if (m_in.remaining() == 0) {
            truncated("the file ends without its end block (the recorder stopped before the run did)");
            break;
        }
        char head[kBlockHeaderBytes];
        if (!m_in.read(head, sizeof head)) {
            truncated("the file ends inside a block header at offset " + std::to_string(m_blockOffset));
            break;
        }
        Payload hp(std::string_view(head, sizeof head));
        uint8_t type = 0;
        uint32_t length = 0;
        hp.u8(type);
        hp.u32(length);
        // Optional types (128 and up) are skipped below, within their length limit; an unknown core type is refused.
        if (type < uint8_t(BlockType::Header) ||
            (type > uint8_t(BlockType::TracedWakeup) && type < kFirstOptionalBlock)) {
            m_result.error = "offset " + std::to_string(m_blockOffset) + ": unknown block type " + std::to_string(type);
            break;
        }
        m_type = BlockType(type);
        if (!m_result.headerRead && m_type != BlockType::Header) {
            fail("expected the header block first");
            break;
        }
        if (m_result.headerRead && m_type == BlockType::Header) {
            fail("a second header block");
            break;
        }
        if (length > maxPayload(m_type)) {
            fail("length " + std::to_string(length) + " exceeds the limit of " + std::to_string(maxPayload(m_type)));
            break;
        }
        if (length > m_in.remaining()) {
            truncated("the " + std::string(blockName(m_type)) + " block at offset " + std::to_string(m_blockOffset) +
                      " needs " + std::to_string(length) + " bytes, " + std::to_string(m_in.remaining()) + " remain");
            break;
        }
        payload.resize(length);
        if (!m_in.read(payload.data(), length)) {
            truncated("read error at offset " + std::to_string(m_blockOffset));
            break;
        }
        Payload p(payload);
        bool ok = true;
        switch (m_type) {
        case BlockType::Header:
            ok = header(p);
            break;
        case BlockType::Samples:
            ok = samples(p);
            break;
        case BlockType::Marker:
            ok = marker(p);
            break;
        case BlockType::Anatomy:
            ok = anatomy(p);
            break;
        case BlockType::TracedWakeup:
            ok = tracedWakeup(p);
            break;
        case BlockType::Reset: {
            int64_t t = 0;
            ok = p.i64(t) && !p.left() && validTime(t);
            if (ok)
                m_visitor.reset(t);
            else
                fail("expected an 8-byte time");
            break;
        }
        case BlockType::Drops: {
            size_t thread = 0;
            uint64_t total = 0;
            ok = threadIndex(p, thread);
            if (ok && (!p.u64(total) || p.left()))
                ok = fail("expected a thread and a count");
            else if (ok && total < m_drops[thread])
                ok = fail("the drop count of thread " + std::to_string(thread) + " went down");
            if (ok) {
                m_drops[thread] = total;
                m_visitor.drops(thread, total);
            }
            break;
        }
        case BlockType::HogWork: {
            int64_t t = 0;
            uint64_t iterations = 0;
            double rate = 0;
            ok = p.i64(t) && p.u64(iterations) && p.f64(rate) && !p.left();
            if (!ok)
                ok = fail("expected time, count and rate");
            else if (!validTime(t) || !std::isfinite(rate) || rate < 0)
                ok = fail("time or rate out of range");
            else
                m_visitor.hogWork(t, iterations, rate);
            break;
        }
        case BlockType::Restart: {
            int64_t t = 0;
            uint16_t count = 0;
            ok = p.i64(t) && p.u16(count);
            if (!ok || !validTime(t) || count == 0 || count > kMaxThreads || p.left() != size_t(count) * 4) {
                ok = fail("expected a time and 1 to " + std::to_string(kMaxThreads) + " CPU numbers");
                break;
            }
            std::vector<int> cpus(count);
            for (auto& c : cpus) {
                int32_t cpu = 0;
                p.i32(cpu);
                if (cpu < 0 || cpu > kMaxCpu)
                    ok = false;
                c = cpu;
            }
            if (!ok) {
                fail("CPU number out of range");
                break;
            }
            m_threads = cpus.size();
            m_drops.assign(m_threads, 0);
            m_visitor.restart(t, cpus);
            break;
        }
        case BlockType::Lost: {
            uint64_t n = 0;
            ok = p.u64(n) && !p.left() && n > 0 && !__builtin_add_overflow(m_lostSeen, n, &m_lostSeen);
            if (!ok)
                ok = fail("expected a non-zero count");
            else
                m_visitor.lost(n);
            break;
        }
        case BlockType::End: {
            int64_t t = 0;
            uint64_t samples = 0, lost = 0;
            ok = p.i64(t) && p.u64(samples) && p.u64(lost) && !p.left();
            if (!ok) {
                fail("expected time, sample count and lost count");
            } else if (!validTime(t)) {
                ok = fail("time out of range");
            } else if (!anatomyComplete()) {
                ok = false;
            } else if (samples != m_result.samples || lost != m_lostSeen) {
                ok = fail("it counts " + std::to_string(samples) + " samples and " + std::to_string(lost) +
                          " lost, the file holds " + std::to_string(m_result.samples) + " and " +
                          std::to_string(m_lostSeen));
            } else if (m_in.remaining() != 0) {
                ok = fail(std::to_string(m_in.remaining()) + " bytes follow the end block");
            } else {
                m_result.ok = true;
                m_result.endNs = t;
            }
            break;
        }
        default: // an optional block this reader does not know: its length was checked, its bytes are not read
            break;
        }
        if (ok && !m_visitor.refusal().empty())
            ok = fail(m_visitor.refusal());
        if (!ok || m_result.ok)
            break;
        if (m_progress && !m_progress(m_in.offset(), m_in.size())) {
            m_result.cancelled = true;
            m_result.error = "stopped after " + std::to_string(m_result.samples) + " samples (" +
                             std::to_string(m_in.offset()) + " of " + std::to_string(m_in.size()) + " bytes read)";
            break;
        }
    }
    m_result.lost = m_lostSeen;
    if (!m_result.ok)
        m_result.endNs = m_lastWakeNs;
    return m_result;
}

} // namespace

RecordingReadResult readRecording(std::string_view bytes, RecordingVisitor& visitor, const RecordingProgress& progress)
{
    MemoryInput in(bytes);
    return Parser(in, visitor, progress).run();
}

RecordingReadResult readRecordingFile(const std::string& path, RecordingVisitor& visitor,
                                      const RecordingProgress& progress)
{
    FileInput in(path);
    if (!in.good()) {
        RecordingReadResult r;
        r.error = "cannot open '" + path + "': " + std::strerror(errno);
        return r;
    }
    return Parser(in, visitor, progress).run();
}

bool looksLikeRecording(std::string_view head)
{
    return head.size() >= sizeof kRecordingMagic &&
           std::memcmp(head.data(), kRecordingMagic, sizeof kRecordingMagic) == 0;
}

SystemProbe systemProbeFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    // "preempt_rt has the wrong type": one phrase for every problem of a field.
    static constexpr JsonWording wording{" ",
                                         "is missing",
                                         "expected an object",
                                         "has the wrong type",
                                         "has the wrong type",
                                         "has the wrong type",
                                         "has the wrong type",
                                         "has the wrong type",
                                         "has the wrong type",
                                         "has the wrong type",
                                         "has the wrong type"};
    SystemProbe p;
    JsonFields f(j, errors, {}, wording);
    if (!f.ok())
        return p;
    const auto cpus = [&](const char* key, std::vector<int>& dst) {
        f.integerList({key, Presence::Optional, wording.notList}, dst, {0, kMaxCpu});
    };
    // The keys of toJson(SystemProbe), in its order.
    f.string("kernel_release", p.kernelRelease);
    f.string("kernel_version", p.kernelVersion);
    f.string("machine", p.machine);
    f.string("preempt_model", p.preemptModel);
    f.boolean("preempt_rt", p.preemptRt);
    f.string("scheduler", p.scheduler);
    f.boolean("fair_server", p.fairServer);
    f.string("clocksource", p.clocksource);
    f.integer("clock_resolution_ns", p.clockResolutionNs);
    f.integer("timer_slack_ns", p.timerSlackNs);
    f.integer("sched_rt_runtime_us", p.rtRuntimeUs);
    f.integer("sched_rt_period_us", p.rtPeriodUs);
    f.integer("rlimit_rtprio", p.rlimitRtprioSoft);
    f.boolean("cap_sys_nice", p.capSysNice);
    f.boolean("root", p.isRoot);
    f.boolean("rt_available", p.rtAvailable);
    f.string("rt_unavailable_reason", p.rtUnavailableReason);
    cpus("online_cpus", p.onlineCpus);
    cpus("allowed_cpus", p.allowedCpus);
    cpus("isolated_cpus", p.isolatedCpus);
    cpus("nohz_full_cpus", p.nohzFullCpus);
    f.boolean("virtual_machine", p.virtualMachine);
    f.string("hypervisor", p.hypervisor);
    f.boolean("cpu_dma_latency_available", p.dmaLatencyAvailable);
    f.string("cpu_model", p.cpuModel);
    return p;
}

// ---------------------------------------------------------------------------------------------------------------
// Writer

RecordingWriter::RecordingWriter(const SystemProbe& probe, std::string path, Limits limits)
    : m_probeJson(toJson(probe))
    , m_host(probe.hostname)
    , m_limits(limits)
    , m_command("rtscope")
    , m_path(std::move(path))
{}

RecordingWriter::RecordingWriter(const SystemProbe& probe, std::string path)
    : RecordingWriter(probe, std::move(path), Limits{})
{}

RecordingWriter::RecordingWriter(const SystemProbe& probe, ByteSink sink, Limits limits)
    : RecordingWriter(probe, std::string(), limits)
{
    m_sink = std::move(sink);
}

RecordingWriter::~RecordingWriter()
{
    // A run that never ended (its experiment was destroyed without stop()) stays without its end block: a
    // reader then says the file is truncated, which is the truth.
    finish();
}

void RecordingWriter::setPath(std::string path)
{
    std::lock_guard lock(m_mutex);
    if (!m_recording)
        m_path = std::move(path);
}

void RecordingWriter::setCommand(std::string command)
{
    std::lock_guard lock(m_mutex);
    m_command = std::move(command);
}

RecordingWriter::Status RecordingWriter::status() const
{
    std::lock_guard lock(m_mutex);
    return {m_path, m_recording, m_complete, m_samples, m_lost, m_bytes, m_error};
}

void RecordingWriter::onRunStart(const LatencyRunInfo& info)
{
    finish();
    std::lock_guard lock(m_mutex);
    m_samples = m_lost = m_lostUnwritten = m_bytes = 0;
    m_batch.clear();
    m_complete = false;
    m_ended = false;
    m_error.clear();
    m_pending.clear();
    if (info.cpus.empty() || info.cpus.size() > kMaxThreads) {
        m_error = "a recording holds 1 to " + std::to_string(kMaxThreads) + " measuring threads, this run has " +
                  std::to_string(info.cpus.size());
        return;
    }
    if (!m_sink) {
        auto file = std::make_unique<AtomicOutputFile>();
        if (const Error e = file->open(m_path)) {
            m_error = e.message;
            return;
        }
        m_file = std::move(file);
    }
    const int64_t unixNs = unixNowNs() - (nowNs() - info.startNs);
    const nlohmann::json header{{"format", "rtscope-recording"}, {"rtscope_version", RTSCOPE_VERSION},
                                {"recorded_at", isoUtc(unixNs)}, {"start_unix_ns", unixNs},
                                {"start_ns", info.startNs},      {"host", m_host},
                                {"command", m_command},          {"cpus", info.cpus},
                                {"config", toJson(info.config)}, {"probe", m_probeJson}};
    m_pending.assign(kRecordingMagic, sizeof kRecordingMagic);
    Encoder(m_pending).u32(kRecordingVersion);
    m_pending += block(BlockType::Header, header.dump());
    m_bytes = m_pending.size();
    m_recording = true;
    m_stop = false;
    m_writer = std::thread([this] { writerLoop(); });
    nameAndPlaceHelper(m_writer, "rtscope-record", info.quietCpu); // best effort, like the collector
}

void RecordingWriter::flushLostLocked()
{
    if (!m_lostUnwritten)
        return;
    std::string payload;
    Encoder(payload).u64(m_lostUnwritten);
    const std::string b = block(BlockType::Lost, payload);
    m_pending += b;
    m_bytes += b.size();
    m_lostUnwritten = 0;
}

bool RecordingWriter::append(const std::string& b, bool droppable)
{
    std::lock_guard lock(m_mutex);
    if (!m_recording)
        return false;
    if (droppable && (!m_error.empty() || m_pending.size() + b.size() > m_limits.bufferBytes ||
                      (m_limits.maxFileBytes && m_bytes + b.size() > m_limits.maxFileBytes)))
        return false;
    flushLostLocked();
    m_pending += b;
    m_bytes += b.size();
    if (m_limits.writeEachBlock)
        m_writeNow = true;
    if (m_pending.size() >= kWriteChunk || m_writeNow)
        m_wake.notify_one();
    return true;
}

void RecordingWriter::onSamples(size_t thread, std::span<const LatencySample> batch)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_recording)
            return;
    }
    if (!m_batch.empty() && thread != m_batchThread)
        flushSamples();
    m_batchThread = thread;
    for (const LatencySample& s : batch) {
        m_batch.push_back(s);
        if (m_batch.size() >= kBlockSamples ||
            wrapDelta(m_batch.back().wakeNs, m_batch.front().wakeNs) >= m_limits.blockSpanNs)
            flushSamples();
    }
}

void RecordingWriter::flushSamples()
{
    if (m_batch.empty())
        return;
    const bool kept = append(block(BlockType::Samples, encodeSamples(m_batchThread, m_batch)), true);
    std::lock_guard lock(m_mutex);
    if (kept) {
        m_samples += m_batch.size();
    } else if (m_recording) {
        m_lost += m_batch.size();
        m_lostUnwritten += m_batch.size();
    }
    m_batch.clear();
}

void RecordingWriter::onMarker(const Marker& marker, const LatencyConfig& config)
{
    flushSamples();
    std::string payload;
    Encoder e(payload);
    const std::string label = marker.label.substr(0, kMaxLabelBytes);
    const std::string json = toJson(config).dump();
    e.i64(marker.tNs);
    e.u64(marker.seq);
    e.u16(uint16_t(label.size()));
    e.bytes(label);
    e.u32(uint32_t(json.size()));
    e.bytes(json);
    append(block(BlockType::Marker, payload), false);
}

void RecordingWriter::onReset(int64_t tNs)
{
    flushSamples();
    std::string payload;
    Encoder(payload).i64(tNs);
    append(block(BlockType::Reset, payload), false);
}

void RecordingWriter::onDrops(size_t thread, uint64_t total)
{
    flushSamples();
    std::string payload;
    Encoder e(payload);
    e.u16(uint16_t(thread));
    e.u64(total);
    append(block(BlockType::Drops, payload), false);
}

void RecordingWriter::onHogWork(int64_t tNs, uint64_t iterations, double perSecond)
{
    flushSamples();
    std::string payload;
    Encoder e(payload);
    e.i64(tNs);
    e.u64(iterations);
    e.f64(std::isfinite(perSecond) && perSecond >= 0 ? perSecond : 0);
    append(block(BlockType::HogWork, payload), false);
}

void RecordingWriter::onRestart(int64_t tNs, const std::vector<int>& cpus)
{
    flushSamples();
    std::string payload;
    Encoder e(payload);
    e.i64(tNs);
    e.u16(uint16_t(std::min(cpus.size(), kMaxThreads)));
    for (size_t i = 0; i < cpus.size() && i < kMaxThreads; ++i)
        e.i32(cpus[i]);
    append(block(BlockType::Restart, payload), false);
}

void RecordingWriter::onTracing(const LatencyTracing& tracing)
{
    flushSamples();
    const AnatomyFigures& f = tracing.figures;
    // The live run keeps fewer than these bounds (top 100, the latest 100 over the threshold, 2048 events a window);
    // a larger list is cut to what a reader accepts, its earliest events counted as omitted, never refused whole.
    const size_t worst = std::min(f.worst.size(), size_t(std::max(0, tracing.top)));
    const size_t over = std::min(f.overThreshold.size(), kMaxRecordedOverThreshold);
    append(block(BlockType::Anatomy, encodeAnatomy(tracing, worst, over)), false);
    uint64_t budget = kMaxRecordedTraceEvents;
    const auto wakeup = [&](bool isOver, const TracedWakeup& t) {
        const size_t keep = size_t(std::min<uint64_t>({t.events.size(), kMaxRecordedWindowEvents, budget}));
        budget -= keep;
        append(block(BlockType::TracedWakeup, encodeTracedWakeup(isOver, t, keep)), false);
    };
    for (size_t i = 0; i < worst; ++i)
        wakeup(false, f.worst[i]);
    for (size_t i = f.overThreshold.size() - over; i < f.overThreshold.size(); ++i)
        wakeup(true, f.overThreshold[i]);
}

void RecordingWriter::onRunEnd(int64_t stopNs)
{
    flushSamples();
    {
        std::lock_guard lock(m_mutex);
        if (!m_recording)
            return;
        flushLostLocked();
        std::string payload;
        Encoder e(payload);
        e.i64(stopNs);
        e.u64(m_samples);
        e.u64(m_lost);
        const std::string b = block(BlockType::End, payload);
        m_pending += b;
        m_bytes += b.size();
        m_ended = true;
    }
    finish();
}

void RecordingWriter::writerLoop()
{
    std::string batch;
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait_for(lock, std::chrono::milliseconds(kWriterIntervalMs),
                        [this] { return m_stop || m_writeNow || m_pending.size() >= kWriteChunk; });
        batch.swap(m_pending);
        m_writeNow = false;
        const bool stop = m_stop;
        const bool failed = !m_error.empty();
        lock.unlock();
        std::string error;
        if (!batch.empty() && !failed)
            if (const Error e = m_sink ? m_sink(batch) : m_file->write(batch))
                error = e.message;
        batch.clear();
        lock.lock();
        if (!error.empty() && m_error.empty())
            m_error = error;
        if (stop && m_pending.empty())
            return;
    }
}

void RecordingWriter::finish()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_one();
    if (m_writer.joinable())
        m_writer.join();
    std::unique_ptr<AtomicOutputFile> file;
    {
        std::lock_guard lock(m_mutex);
        file = std::move(m_file);
    }
    // Outside the lock: the fsync of a long run's file may take a while, and status() must not wait for it. A run
    // without its end block (its experiment went without stop()) is put in place too; a reader then says it is
    // truncated, which is the truth. One that failed to write is not: the file there before is kept.
    Error committed;
    if (file) {
        bool failed = false;
        {
            std::lock_guard lock(m_mutex);
            failed = !m_error.empty();
        }
        if (failed)
            file->discard();
        else
            committed = file->commit();
    }
    std::lock_guard lock(m_mutex);
    if (file || (m_sink && m_recording)) {
        if (committed && m_error.empty())
            m_error = committed.message;
        // Complete only when the end block made it to the file.
        m_complete = m_error.empty() && m_pending.empty() && m_ended;
    }
    m_recording = false;
}

// ---------------------------------------------------------------------------------------------------------------
// Replay

namespace {

class Replayer final : public RecordingReplayer {
public:
    explicit Replayer(const RecordingReplayOptions& options, ReplayedRun& out)
        : m_options(options)
        , m_out(out)
    {}

    void header(const RecordingHeader& h) override
    {
        m_out.header = h;
        m_config = h.config;
        if (m_options.histogramUs > 0)
            m_config.histogramUs =
                std::clamp(std::max(m_config.histogramUs, m_options.histogramUs), 0, LatencyConfig::kMaxHistogramUs);
        m_histogramAsked = m_config.histogramUs > h.config.histogramUs;
        if (!withinBudget(h.cpus.size(), "cpus"))
            return;
        m_cpus = h.cpus;
        activate(m_cpus.size(), h.startNs);
    }
    void samples(size_t thread, std::span<const LatencySample> batch) override
    {
        catchUp(thread);
        LatencyReplay& r = *m_threads[thread].replay;
        for (const LatencySample& s : batch)
            r.add(s);
    }
    void marker(const RecordedMarker& m) override
    {
        if (m_out.markers.size() < 10'000)
            m_out.markers.push_back(m);
        // A replay names the change itself, in the live experiment's words; the start config changes nothing. Only
        // the first thread's markers and config reach the snapshot, so only it is told: a marker costs the same
        // whatever the number of threads.
        LatencyReplay& first = *m_threads.front().replay;
        first.reconfigure(m.config, m.tNs);
        m_config = first.config();
    }
    void reset(int64_t tNs) override
    {
        // The other threads clear their figures when they are next used (catchUp): a reset block of 13 bytes must
        // not cost a pass over every thread's histogram. The first thread clears at once, for its "reset" marker.
        ++m_resets;
        m_resetNs = tNs;
        catchUp(0);
    }
    void drops(size_t thread, uint64_t total) override
    {
        catchUp(thread);
        Thread& t = m_threads[thread];
        t.drops = total;
        t.replay->setDrops(total - std::min(total, t.dropsAtReset));
    }
    void hogWork(int64_t, uint64_t iterations, double perSecond) override
    {
        m_threads.front().replay->setHogIterations(iterations, perSecond); // the snapshot carries the first's
    }
    void tracing(const LatencyTracing& t) override { m_tracing = std::make_shared<LatencyTracing>(t); }
    void tracedWakeup(bool overThreshold, TracedWakeup w) override
    {
        // The reader delivers wake-ups only after the anatomy block.
        AnatomyFigures& f = m_tracing->figures;
        (overThreshold ? f.overThreshold : f.worst).push_back(std::move(w));
    }
    void restart(int64_t tNs, const std::vector<int>& cpus) override
    {
        if (!withinBudget(cpus.size(), "restart"))
            return;
        // The live experiment gave the new threads fresh figures: so does the replay (the timeline goes on).
        m_cpus = cpus;
        m_active = std::min(m_active, cpus.size());
        activate(cpus.size(), tNs);
        reset(tNs);
        for (size_t i = 0; i < m_active; ++i)
            m_threads[i].drops = m_threads[i].dropsAtReset = 0;
    }

    std::shared_ptr<LatencySnapshot> snapshotSoFar(int64_t nowNs) override
    {
        auto merged = merge(nowNs, false);
        // A live remote run's anatomy blocks come just before its end block (docs/remote.md): shown as they arrive,
        // a copy, since more of its wake-up blocks may follow.
        if (merged && m_tracing)
            merged->tracing = std::make_shared<const LatencyTracing>(*m_tracing);
        return merged;
    }

    std::shared_ptr<const LatencySnapshot> finish(int64_t endNs)
    {
        auto merged = merge(endNs, true);
        if (!merged)
            return nullptr;
        m_active = 0;
        m_threads.clear();
        merged->finished = true;
        merged->tracing = std::move(m_tracing); // the live run's last snapshot carried this one
        return merged;
    }

private:
    // The threads' snapshots as one (the first thread's, with every thread's row); @p final stops the threads and
    // frees their copies, as the end of a replay does.
    std::shared_ptr<LatencySnapshot> merge(int64_t nowNs, bool final)
    {
        if (m_active == 0)
            return nullptr;
        auto merged = std::make_shared<LatencySnapshot>();
        for (size_t i = 0; i < m_active; ++i) {
            catchUp(i);
            if (final)
                m_threads[i].replay->stop();
            auto snap = m_threads[i].replay->publish(nowNs);
            if (i == 0)
                *merged = *snap;
            if (i > 0)
                merged->threads.push_back(snap->threads.front());
            merged->threads.back().cpu = m_cpus[i];
            if (!final)
                continue;
            m_out.samplesSinceReset += snap->threads.front().samples;
            // Its histogram now lives in the merged snapshot: the thread's own copies can go.
            m_threads[i].replay.reset();
        }
        return merged;
    }

    struct Thread {
        std::unique_ptr<LatencyReplay> replay;
        uint64_t drops = 0;        ///< the last drops block's total
        uint64_t dropsAtReset = 0; ///< the total at the last reset it caught up with
        uint64_t resets = 0;       ///< the m_resets it caught up with
    };

    // A recording can restart its threads thousands of times (every CPU change): the threads beyond the current
    // count are kept and started anew when a restart needs them again, so a restart costs the threads it names
    // plus what they recorded since, never fresh histograms and timelines.
    void activate(size_t n, int64_t tNs)
    {
        for (size_t i = m_active; i < n; ++i) {
            if (i == m_threads.size()) {
                Thread t;
                t.replay = std::make_unique<LatencyReplay>();
                t.replay->setSeriesWindow(m_options.seriesWindowNs);
                t.replay->setKeepMarkers(i == 0);
                m_threads.push_back(std::move(t));
            }
            Thread& t = m_threads[i];
            t.replay->start(m_config, tNs);
            t.drops = t.dropsAtReset = 0;
            t.resets = m_resets;
        }
        m_active = n;
    }

    void catchUp(size_t i)
    {
        Thread& t = m_threads[i];
        if (t.resets == m_resets)
            return;
        t.resets = m_resets;
        t.replay->resetStatistics(m_resetNs);
        t.dropsAtReset = t.drops;
    }

    // Every thread keeps config.histogramUs exact bins: a file names the threads and the bins, so their product is
    // bounded before anything is allocated for them.
    bool withinBudget(size_t threads, const char* field)
    {
        const auto us = uint64_t(std::max(0, m_config.histogramUs));
        const uint64_t bins = uint64_t(threads) * us;
        if (bins <= kMaxReplayHistogramBins)
            return true;
        const std::string histogram = m_histogramAsked
                                          ? "a replay histogram (--histogram) of " + std::to_string(us) + " us"
                                          : "histogram_us " + std::to_string(us);
        refuse(std::string(field) + ": " + std::to_string(threads) + " measuring threads × " + histogram + " = " +
               std::to_string(bins) + " exact 1 us histogram bins; a replay holds at most " +
               std::to_string(kMaxReplayHistogramBins) + " bins for all threads together (with " +
               std::to_string(threads) + " threads, a histogram of at most " +
               std::to_string(kMaxReplayHistogramBins / threads) + " us)");
        return false;
    }

    RecordingReplayOptions m_options;
    ReplayedRun& m_out;
    LatencyConfig m_config;
    bool m_histogramAsked = false; ///< the replay's histogram is larger than the recorded one
    std::vector<int> m_cpus;
    std::vector<Thread> m_threads; ///< the first m_active are the run's threads now
    size_t m_active = 0;
    uint64_t m_resets = 0;                     ///< reset blocks so far (restarts included)
    int64_t m_resetNs = 0;                     ///< the last one's time
    std::shared_ptr<LatencyTracing> m_tracing; ///< the anatomy blocks, when the file holds them
};

template <class Read> ReplayedRun replayWith(const RecordingReplayOptions& options, Read&& read)
{
    ReplayedRun run;
    Replayer replayer(options, run);
    run.read = read(replayer);
    // A cancelled replay is not shown, and a refused one may not be: no figures are computed for either.
    if (run.read.headerRead && !run.read.cancelled && replayer.refusal().empty())
        run.snapshot = replayer.finish(run.read.endNs);
    return run;
}

} // namespace

std::unique_ptr<RecordingReplayer> makeRecordingReplayer(const RecordingReplayOptions& options, ReplayedRun& out)
{
    return std::make_unique<Replayer>(options, out);
}

ReplayedRun replayRecordingFile(const std::string& path, const RecordingReplayOptions& options)
{
    return replayWith(options, [&](RecordingVisitor& v) { return readRecordingFile(path, v, options.progress); });
}

ReplayedRun replayRecording(std::string_view bytes, const RecordingReplayOptions& options)
{
    return replayWith(options, [&](RecordingVisitor& v) { return readRecording(bytes, v, options.progress); });
}

// ---------------------------------------------------------------------------------------------------------------
// Exports

namespace {

// Every field is an integer, so no quoting is ever needed; CsvWriter would hold the whole text in memory, and a
// recording's rows can outgrow it.
class CsvRows final : public RecordingVisitor {
public:
    explicit CsvRows(std::ostream& out)
        : m_out(out)
    {}
    void header(const RecordingHeader& h) override
    {
        m_startNs = h.startNs;
        m_cpus = h.cpus;
    }
    void restart(int64_t, const std::vector<int>& cpus) override { m_cpus = cpus; }
    void samples(size_t thread, std::span<const LatencySample> batch) override
    {
        std::string text;
        text.reserve(batch.size() * 48);
        char line[160];
        for (const LatencySample& s : batch) {
            const int n = std::snprintf(line, sizeof line, "%d,%llu,%lld,%lld,%lld,%u,%u\n", m_cpus[thread],
                                        (unsigned long long)s.seq, (long long)(s.deadlineNs - m_startNs),
                                        (long long)(s.wakeNs - m_startNs), (long long)s.latencyNs, s.skipped, s.epoch);
            text.append(line, size_t(std::clamp(n, 0, int(sizeof line) - 1)));
        }
        m_out << text;
    }

private:
    std::ostream& m_out;
    int64_t m_startNs = 0;
    std::vector<int> m_cpus;
};

} // namespace

RecordingReadResult writeRecordingCsv(const std::string& recordingPath, std::ostream& out)
{
    // A first pass learns whether anything is missing, so that the warning can be the first line.
    RecordingVisitor nothing;
    const RecordingReadResult check = readRecordingFile(recordingPath, nothing);
    if (!check.headerRead)
        return check;
    if (check.lost || !check.ok)
        out << "# rtscope: this CSV does not hold every sample of the run: "
            << (check.lost ? std::to_string(check.lost) + " samples were not kept by the recorder" : std::string())
            << (check.lost && !check.ok ? "; " : "") << (check.ok ? "" : check.error) << "\n";
    out << "cpu,seq,deadline_ns,wake_ns,latency_ns,skipped_periods,epoch\n";
    CsvRows rows(out);
    RecordingReadResult r = readRecordingFile(recordingPath, rows);
    if (!out && r.error.empty()) {
        r.ok = false;
        r.error = "writing the CSV failed";
    }
    return r;
}

namespace {
std::string incompleteNote(const ReplayedRun& run)
{
    std::string note;
    if (run.read.lost)
        note = std::to_string(run.read.lost) + " samples of the run were not kept by the recorder";
    if (!run.read.ok)
        note += (note.empty() ? "" : "; ") + run.read.error;
    return note;
}
} // namespace

std::string replayedHistogramText(const ReplayedRun& run)
{
    if (!run.snapshot)
        return {};
    CyclictestData data = cyclictestDataFrom(*run.snapshot);
    if (const std::string note = incompleteNote(run); !note.empty())
        data.preamble.push_back("# rtscope: incomplete: " + note);
    return writeCyclictestHistogram(data);
}

nlohmann::json replayedRunJson(const ReplayedRun& run, const std::string& fileName)
{
    if (!run.snapshot)
        return nullptr;
    const LatencySnapshot& s = *run.snapshot;
    const int64_t startUnix = run.header.startUnixNs / kNsPerSec;
    const int64_t endUnix = startUnix + (s.publishedNs - s.startNs) / kNsPerSec;
    nlohmann::json j = latencyExportJson(s, run.header.probeJson, run.header.command, startUnix, endUnix);
    describeMeasuredMachine(j, run.header.probeJson, run.header.host);
    j["rtscope"]["recording"] = {{"file", fileName},
                                 {"recorded_at", run.header.recordedAt},
                                 {"samples_not_kept", run.read.lost},
                                 {"complete", run.read.ok},
                                 {"error", run.read.ok ? std::string() : run.read.error}};
    return j;
}

void describeMeasuredMachine(nlohmann::json& report, const nlohmann::json& probe, const std::string& host)
{
    // A field the probe lacks (or has with another type) is left empty rather than filled from this machine.
    const auto text = [&probe](const char* key) {
        return probe.is_object() && probe.contains(key) && probe[key].is_string() ? probe[key].get<std::string>()
                                                                                  : std::string();
    };
    nlohmann::json& sysinfo = report["sysinfo"];
    sysinfo["nodename"] = host;
    sysinfo["release"] = text("kernel_release");
    sysinfo["version"] = text("kernel_version");
    sysinfo["machine"] = text("machine");
    sysinfo["realtime"] = probe.is_object() && probe.contains("preempt_rt") && probe["preempt_rt"] == true ? 1 : 0;
}

nlohmann::json latencyExportJson(const LatencySnapshot& snapshot, const nlohmann::json& probe,
                                 const std::string& commandLine, int64_t startUnixSec, int64_t endUnixSec)
{
    nlohmann::json j = cyclictestJson(cyclictestDataFrom(snapshot), commandLine, startUnixSec, endUnixSec);
    nlohmann::json report = latencyReportJson(snapshot);
    report["probe"] = probe;
    j["rtscope"] = std::move(report);
    return j;
}

} // namespace rtscope
