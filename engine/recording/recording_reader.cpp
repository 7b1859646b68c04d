#include "engine/recording/recording_reader.h"

#include "engine/formats/probe_json.h"
#include "engine/recording/recording_blocks.h"
#include "engine/recording/recording_payload.h"
#include "engine/util/input_file.h"
#include "engine/util/json_fields.h"
#include "engine/util/json_text.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sys/stat.h>

namespace rtscope {

using namespace recording_blocks;

namespace {

bool validTime(int64_t t)
{
    return t >= 0 && t <= kMaxTimeNs;
}

/// The longest NMI handler a recording may say ran: a second (the kernel warns of one over 1 ms).
constexpr int64_t kMaxNmiNs = 1'000'000'000;

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
    const ParsedJson parsed = parseJsonText(text, "the header");
    if (!parsed.ok() || !parsed.value.is_object())
        return fail(parsed.error("not a JSON object"));
    const nlohmann::json& j = parsed.value;
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
    const ParsedJson parsed = parseJsonText(config, "the config");
    std::string error;
    if (!parsed.ok())
        return fail(parsed.error("config is not valid JSON"));
    if (!configFromJson(parsed.value, m.config, error))
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
    if (type > uint8_t(TraceEventType::Nmi))
        return fail(at + ": type " + std::to_string(type) + " is unknown");
    if (cpu > uint64_t(kMaxCpu))
        return fail(at + ": CPU number out of range");
    ev.type = TraceEventType(type);
    ev.cpu = uint16_t(cpu);
    switch (tracePayload(ev.type)) {
    case TracePayload::Sw:
        return task(ev.sw.prev) && task(ev.sw.next) && (p.zigzag(ev.sw.prevState) || malformed());
    case TracePayload::Wake:
        return task(ev.wake.task) && ((i32(ev.wake.targetCpu) && i32(ev.wake.origCpu)) || malformed());
    case TracePayload::Irq: {
        uint8_t vector = 0;
        if (!i32(ev.irq.number) || !i32(ev.irq.ret) || !p.u8(vector))
            return malformed();
        if (vector > uint8_t(TraceVector::CallFunctionSingle))
            return fail(at + ": vector " + std::to_string(vector) + " is unknown");
        ev.irq.vector = TraceVector(vector);
        return text(ev.irq.name, "an IRQ name");
    }
    case TracePayload::Hrtimer:
        return (p.varint(ev.hrtimer.timer) && p.varint(ev.hrtimer.function) && p.zigzag(ev.hrtimer.nowNs)) ||
               malformed();
    case TracePayload::Marker:
        return text(ev.marker.text, "a marker text");
    case TracePayload::Timerlat:
        return (p.varint(ev.timerlat.seq) && p.zigzag(ev.timerlat.latencyNs) && i32(ev.timerlat.context)) ||
               malformed();
    case TracePayload::Lost:
        if (!p.varint(ev.lost.count) || !p.zigzag(ev.lost.sinceNs))
            return malformed();
        if (ev.lost.sinceNs != 0 && !validTime(ev.lost.sinceNs))
            return fail(at + ": the lost span's start is out of range");
        return true;
    case TracePayload::Nmi:
        if (!p.varint(ev.nmi.handler) || !p.zigzag(ev.nmi.deltaNs) || !i32(ev.nmi.handled))
            return malformed();
        if (ev.nmi.deltaNs < 0 || ev.nmi.deltaNs > kMaxNmiNs)
            return fail(at + ": an NMI's duration is out of range");
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
    std::string why;
    FileInput in(path, why);
    if (!in.good()) {
        RecordingReadResult r;
        r.error = why;
        return r;
    }
    return Parser(in, visitor, progress).run();
}

bool looksLikeRecording(std::string_view head)
{
    return head.size() >= sizeof kRecordingMagic &&
           std::memcmp(head.data(), kRecordingMagic, sizeof kRecordingMagic) == 0;
}

} // namespace rtscope
