// ctest: parallel. Recording blocks made in code.
// The anatomy blocks of a recording (docs/recording-format.md, Anatomy): a traced run's tracing status, culprit
// table and kept wake-ups with their windows of kernel events are written at the run's end and come back from a
// replay field by field; hostile anatomy blocks (counts above their limits or beyond the payload, a wake-up without
// its anatomy block, a missing wake-up, an unknown string) are refused with a sentence naming the block and field.
#include "engine/export/report_json.h"
#include "engine/recording/recording_replay.h"
#include "engine/recording/recording_writer.h"
#include "engine/util/clock.h"
#include "tests/common/recording_bytes.h"

#include "tests/common/test_main.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace rtscope;
using rtscope::test::RecordingBytes;

namespace {

constexpr int64_t kRaT0 = RecordingBytes::kStartNs;

TraceTask raTask(const char* comm, int32_t pid, int32_t prio)
{
    TraceTask t{};
    setTraceText(t.comm, comm);
    t.pid = pid;
    t.prio = prio;
    return t;
}

// One event of every type, on two CPUs, with values at the edges of their fields (negative pids and prios, a
// hrtimer address above 2^63, a lost span that starts at 0).
std::vector<TraceEvent> raEveryEvent(int64_t t)
{
    std::vector<TraceEvent> v;
    const auto add = [&](TraceEventType type, int64_t dt, uint16_t cpu, int32_t pid) -> TraceEvent& {
        TraceEvent e{};
        e.ts = t + dt;
        e.type = type;
        e.flags = uint8_t(dt & 0xff);
        e.cpu = cpu;
        e.pid = pid;
        v.push_back(e);
        return v.back();
    };
    TraceEvent& sw = add(TraceEventType::SchedSwitch, 0, 1, 4242);
    sw.sw = {raTask("stress-ng-cpu", 4242, 120), raTask("rtscope-measure", 777, 19), 0};
    add(TraceEventType::SchedWaking, 10, 1, 0).wake = {raTask("rtscope-measure", 777, 19), 1, -1};
    add(TraceEventType::SchedWakeup, 20, 1, 0).wake = {raTask("rtscope-measure", 777, 19), 1, -1};
    add(TraceEventType::SchedMigrate, 30, 0, 12).wake = {raTask("kworker/0:1", 12, 120), 0, 1};
    TraceEvent& irq = add(TraceEventType::IrqEntry, 40, 1, 4242);
    irq.irq = {24, 0, TraceVector::LocalTimer, {}};
    setTraceText(irq.irq.name, "virtio0-input.0");
    add(TraceEventType::IrqExit, 50, 1, 4242).irq = {24, 1, TraceVector::LocalTimer, {}};
    add(TraceEventType::SoftirqEntry, 60, 1, 4242).irq = {1, 0, TraceVector::LocalTimer, {}};
    add(TraceEventType::SoftirqExit, 70, 1, 4242).irq = {1, 0, TraceVector::LocalTimer, {}};
    add(TraceEventType::VectorEntry, 80, 1, 0).irq = {236, 0, TraceVector::CallFunctionSingle, {}};
    add(TraceEventType::VectorExit, 90, 1, 0).irq = {236, 0, TraceVector::Reschedule, {}};
    add(TraceEventType::HrtimerExpireEntry, 100, 1, 0).hrtimer = {0xffff888003a1b2c0ull, 0xffffffff8114a3b0ull, t};
    add(TraceEventType::HrtimerExpireExit, 110, 1, 0).hrtimer = {0xffff888003a1b2c0ull, 0, 0};
    setTraceText(add(TraceEventType::Marker, 120, 0, 1).marker.text, "rtscope: a marker of some length, cut at 55");
    add(TraceEventType::Timerlat, 130, 1, 0).timerlat = {99, -3, 1};
    add(TraceEventType::Lost, 140, 1, 0).lost = {17, 0};
    add(TraceEventType::Lost, 150, 0, 0).lost = {0, t + 5};
    add(TraceEventType::Nmi, 160, 1, 0).nmi = {0xffffffff81234560ULL, 12'345, 1};
    return v;
}

// Every field of an event that its type gives a meaning to.
std::string raDescribe(const TraceEvent& e)
{
    std::string s = std::to_string(e.ts) + " " + traceEventTypeName(e.type) + " f" + std::to_string(e.flags) + " c" +
                    std::to_string(e.cpu) + " p" + std::to_string(e.pid) + ":";
    const auto task = [&](const TraceTask& t) {
        s += " " + std::string(traceText(t.comm)) + "/" + std::to_string(t.pid) + "/" + std::to_string(t.prio);
    };
    switch (e.type) {
    case TraceEventType::SchedSwitch:
        task(e.sw.prev);
        task(e.sw.next);
        s += " " + std::to_string(e.sw.prevState);
        break;
    case TraceEventType::SchedWaking:
    case TraceEventType::SchedWakeup:
    case TraceEventType::SchedMigrate:
        task(e.wake.task);
        s += " " + std::to_string(e.wake.targetCpu) + " " + std::to_string(e.wake.origCpu);
        break;
    case TraceEventType::IrqEntry:
    case TraceEventType::IrqExit:
    case TraceEventType::SoftirqEntry:
    case TraceEventType::SoftirqExit:
    case TraceEventType::VectorEntry:
    case TraceEventType::VectorExit:
        s += " " + std::to_string(e.irq.number) + " " + std::to_string(e.irq.ret) + " " +
             traceVectorName(e.irq.vector) + " " + std::string(traceText(e.irq.name));
        break;
    case TraceEventType::HrtimerExpireEntry:
    case TraceEventType::HrtimerExpireExit:
        s += " " + std::to_string(e.hrtimer.timer) + " " + std::to_string(e.hrtimer.function) + " " +
             std::to_string(e.hrtimer.nowNs);
        break;
    case TraceEventType::Marker:
        s += " " + std::string(traceText(e.marker.text));
        break;
    case TraceEventType::Timerlat:
        s += " " + std::to_string(e.timerlat.seq) + " " + std::to_string(e.timerlat.latencyNs) + " " +
             std::to_string(e.timerlat.context);
        break;
    case TraceEventType::Lost:
        s += " " + std::to_string(e.lost.count) + " " + std::to_string(e.lost.sinceNs);
        break;
    case TraceEventType::Nmi:
        s += " " + std::to_string(e.nmi.handler) + " " + std::to_string(e.nmi.deltaNs) + " " +
             std::to_string(e.nmi.handled);
        break;
    }
    return s;
}

TracedWakeup raWakeup(uint64_t seq, int64_t deadline, int64_t latency, bool complete)
{
    TracedWakeup w;
    w.seq = seq;
    w.thread = 0;
    w.eventsOmitted = complete ? 0 : 3;
    w.events = raEveryEvent(deadline - 200);
    WakeupAnatomy& a = w.anatomy;
    a.query = {777, 1, deadline, deadline + latency};
    a.latencyNs = latency;
    a.timerNs = deadline + 4'000;
    a.wakingNs = deadline + 4'100;
    a.runCpu = 1;
    a.timerCpu = 1;
    a.timerFunction = 0xffffffff8114a3b0ull;
    a.idleAtTimer = !complete;
    a.runnableAtDeadline = complete;
    a.timerIrqDelayNs = 4'000;
    if (complete) {
        a.wakeupNs = deadline + 4'200;
        a.switchInNs = deadline + latency - 3'000;
        a.irqNs = 1'500;
        a.schedulingNs = latency - 8'500;
        a.returnToUserNs = 3'000;
        a.interrupts = {{CulpritKind::Irq, 24, "irq 24 (virtio0-input.0)", false, 1'000, 2},
                        {CulpritKind::Hrtimer, int64_t(0xffffffff8114a3b0ull), "hrtimer_wakeup (own)", true, 500, 1}};
        a.tasks = {{4242, "stress-ng-cpu", 120, deadline + 4'300, deadline + latency - 3'000, latency - 8'500, true},
                   {-1, "", -2, deadline + 4'250, deadline + 4'300, 0, false}};
    } else {
        a.eventsLost = true;
        a.consistent = false;
        a.note = "the kernel lost events between the timer and the switch-in";
    }
    a.unaccountedNs = latency - (a.timerIrqDelayNs.value_or(0) + a.irqNs.value_or(0) + a.schedulingNs.value_or(0) +
                                 a.returnToUserNs.value_or(0));
    return w;
}

LatencyTracing raTracing()
{
    LatencyTracing t;
    t.active = true;
    t.missingEvents = {"timerlat", "irq_vectors:local_timer_entry"};
    t.stats = {123'456, 40, 163'840, 30, 7, 2, 1, 0, 5, 6, 8, 1'234'567};
    t.thresholdNs = 100'000;
    t.top = 3;
    t.queueDroppedEvents = 11;
    t.queueDroppedBatches = 1;
    t.stopError = "cannot remove instance: rmdir /sys/kernel/tracing/instances/rtscope-1";
    t.updatedNs = kRaT0 + 2 * kNsPerSec + 123;
    AnatomyFigures& f = t.figures;
    f.wakeupsSeen = 2000;
    f.wakeupsAnalysed = 1990;
    f.wakeupsComplete = 1980;
    f.wakeupsWithLoss = 3;
    f.wakeupsNotAnalysed = 9;
    f.wakeupsPending = 1;
    f.eventsDropped = 4;
    f.overThresholdTotal = 5;
    f.worst = {raWakeup(40, kRaT0 + 40 * kNsPerMs, 1'210'000, true),
               raWakeup(17, kRaT0 + 17 * kNsPerMs, 310'000, false)};
    f.overThreshold = {raWakeup(40, kRaT0 + 40 * kNsPerMs, 1'210'000, true)};
    f.culprits = {{CulpritKind::Task, 4242, "stress-ng-cpu", 120, 12, 5'000'000, 1'180'000},
                  {CulpritKind::Hrtimer, int64_t(0xffffffff81000000ull), "tick_nohz_handler", -2, 3, 9'000, 4'000},
                  {CulpritKind::Softirq, 1, "softirq TIMER", -2, 1, 800, 800}};
    return t;
}

// A run of 64 samples on CPU 1 with @p tracing written at its end, read back whole.
std::string raRecord(const QString& dir, const LatencyTracing* tracing)
{
    SystemProbe probe;
    probe.hostname = "board";
    const std::string path = (dir + "/anatomy.rtrec").toStdString();
    RecordingWriter w(probe, path);
    LatencyConfig c;
    c.cpu = 1;
    c.trace = tracing != nullptr;
    w.onRunStart({c, kRaT0, {1}, 0});
    w.onMarker({kRaT0, 0, "start: " + c.label()}, c);
    std::vector<LatencySample> batch;
    for (uint64_t i = 0; i < 64; ++i)
        batch.push_back({i, kRaT0 + int64_t(i) * kNsPerMs, kRaT0 + int64_t(i) * kNsPerMs + 5'000, 5'000, 0, 0});
    w.onSamples(0, batch);
    if (tracing)
        w.onTracing(*tracing);
    w.onRunEnd(kRaT0 + 70 * kNsPerMs);
    if (!w.status().complete)
        return {};
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

void raCompareWakeups(const std::vector<TracedWakeup>& got, const std::vector<TracedWakeup>& want)
{
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        const TracedWakeup& g = got[i];
        const TracedWakeup& w = want[i];
        QCOMPARE(g.seq, w.seq);
        QCOMPARE(g.thread, w.thread);
        QCOMPARE(g.eventsOmitted, w.eventsOmitted);
        const WakeupAnatomy& a = g.anatomy;
        const WakeupAnatomy& b = w.anatomy;
        QCOMPARE(a.query.tid, b.query.tid);
        QCOMPARE(a.query.cpu, b.query.cpu);
        QCOMPARE(a.query.deadlineNs, b.query.deadlineNs);
        QCOMPARE(a.query.wakeNs, b.query.wakeNs);
        QCOMPARE(a.latencyNs, b.latencyNs);
        QCOMPARE(a.timerNs, b.timerNs);
        QCOMPARE(a.wakingNs, b.wakingNs);
        QCOMPARE(a.wakeupNs, b.wakeupNs);
        QCOMPARE(a.switchInNs, b.switchInNs);
        QCOMPARE(a.runCpu, b.runCpu);
        QCOMPARE(a.timerCpu, b.timerCpu);
        QCOMPARE(a.timerFunction, b.timerFunction);
        QCOMPARE(a.idleAtTimer, b.idleAtTimer);
        QCOMPARE(a.runnableAtDeadline, b.runnableAtDeadline);
        QCOMPARE(a.timerIrqDelayNs, b.timerIrqDelayNs);
        QCOMPARE(a.irqNs, b.irqNs);
        QCOMPARE(a.schedulingNs, b.schedulingNs);
        QCOMPARE(a.returnToUserNs, b.returnToUserNs);
        QCOMPARE(a.unaccountedNs, b.unaccountedNs);
        QCOMPARE(a.eventsLost, b.eventsLost);
        QCOMPARE(a.consistent, b.consistent);
        QCOMPARE(a.note, b.note);
        QCOMPARE(a.interrupts.size(), b.interrupts.size());
        for (size_t k = 0; k < b.interrupts.size(); ++k) {
            QCOMPARE(a.interrupts[k].kind, b.interrupts[k].kind);
            QCOMPARE(a.interrupts[k].id, b.interrupts[k].id);
            QCOMPARE(a.interrupts[k].name, b.interrupts[k].name);
            QCOMPARE(a.interrupts[k].ownTimer, b.interrupts[k].ownTimer);
            QCOMPARE(a.interrupts[k].ns, b.interrupts[k].ns);
            QCOMPARE(a.interrupts[k].count, b.interrupts[k].count);
        }
        QCOMPARE(a.tasks.size(), b.tasks.size());
        for (size_t k = 0; k < b.tasks.size(); ++k) {
            QCOMPARE(a.tasks[k].pid, b.tasks[k].pid);
            QCOMPARE(a.tasks[k].comm, b.tasks[k].comm);
            QCOMPARE(a.tasks[k].prio, b.tasks[k].prio);
            QCOMPARE(a.tasks[k].fromNs, b.tasks[k].fromNs);
            QCOMPARE(a.tasks[k].toNs, b.tasks[k].toNs);
            QCOMPARE(a.tasks[k].ns, b.tasks[k].ns);
            QCOMPARE(a.tasks[k].switchInSeen, b.tasks[k].switchInSeen);
        }
        QCOMPARE(g.events.size(), w.events.size());
        for (size_t k = 0; k < w.events.size(); ++k)
            QCOMPARE(raDescribe(g.events[k]), raDescribe(w.events[k]));
    }
}

// Hand-made blocks in the layout of docs/recording-format.md, for the refusals.
class RaBytes {
public:
    RaBytes& u8(uint8_t v) { return le(v, 1); }
    RaBytes& u16(uint16_t v) { return le(v, 2); }
    RaBytes& u32(uint32_t v) { return le(v, 4); }
    RaBytes& u64(uint64_t v) { return le(v, 8); }
    RaBytes& varint(uint64_t v)
    {
        while (v >= 0x80) {
            m_s.push_back(char(uint8_t(v) | 0x80));
            v >>= 7;
        }
        m_s.push_back(char(v));
        return *this;
    }
    RaBytes& zigzag(int64_t v) { return varint((uint64_t(v) << 1) ^ uint64_t(v >> 63)); }
    RaBytes& text(const std::string& t)
    {
        u16(uint16_t(t.size()));
        m_s += t;
        return *this;
    }
    const std::string& str() const { return m_s; }

private:
    RaBytes& le(uint64_t v, int n)
    {
        for (int i = 0; i < n; ++i)
            m_s.push_back(char(uint8_t(v >> (8 * i))));
        return *this;
    }
    std::string m_s;
};

std::string raBlock(uint8_t type, const std::string& payload)
{
    return RaBytes().u8(type).u32(uint32_t(payload.size())).str() + payload;
}

// An anatomy block that announces @p worst and @p over wake-ups and @p culprits rows (none of them written).
std::string raAnatomy(uint16_t worst, uint16_t over, uint32_t culprits)
{
    RaBytes b;
    b.u8(1).u64(0).u32(10).u64(uint64_t(kRaT0)).text("").text("").u16(0);
    for (int i = 0; i < 12 + 2 + 8; ++i)
        b.u64(0);
    b.u16(worst).u16(over).u32(culprits);
    return raBlock(10, b.str());
}

// A worst wake-up with no parts known, the string table @p strings and @p eventCount events whose bytes are @p events.
std::string raWakeupBlock(const std::vector<std::string>& strings, uint32_t eventCount, const std::string& events)
{
    RaBytes b;
    b.u8(0).u16(0).u64(40).u64(0).u32(777).u32(1).u64(uint64_t(kRaT0)).u64(uint64_t(kRaT0 + 5'000)).u64(5'000);
    b.u8(0).u32(1).u32(1).u64(0).u8(8).u64(0).text("").u16(0).u16(0).u16(uint16_t(strings.size()));
    for (const auto& s : strings)
        b.text(s);
    b.u32(eventCount);
    return raBlock(11, b.str() + events);
}

// A sched_switch at @p ts naming string @p prev and @p next.
std::string raSwitch(int64_t ts, uint64_t prev, uint64_t next)
{
    return RaBytes()
        .zigzag(ts)
        .u8(0)
        .u8(0)
        .varint(1)
        .zigzag(1)
        .varint(prev)
        .zigzag(1)
        .zigzag(120)
        .varint(next)
        .zigzag(2)
        .zigzag(19)
        .zigzag(0)
        .str();
}

// 64 samples of one thread, then @p blocks, then the end block.
std::string raFile(const std::string& blocks)
{
    RecordingBytes b({1});
    b.samples(0, 0, kRaT0, 64);
    std::string bytes = b.bytes() + blocks;
    bytes += raBlock(9, RaBytes().u64(uint64_t(kRaT0 + 70 * kNsPerMs)).u64(64).u64(0).str());
    return bytes;
}

} // namespace

class TestRecordingAnatomy : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void roundTripIsExact()
    {
        const LatencyTracing want = raTracing();
        const std::string bytes = raRecord(m_dir.path(), &want);
        QVERIFY(!bytes.empty());
        const ReplayedRun run = replayRecording(bytes);
        QVERIFY2(run.read.ok, run.read.error.c_str());
        QVERIFY(run.snapshot);
        QVERIFY(run.snapshot->tracing);
        const LatencyTracing& got = *run.snapshot->tracing;
        QCOMPARE(got.active, want.active);
        QCOMPARE(got.unavailable, want.unavailable);
        QCOMPARE(got.missingEvents, want.missingEvents);
        QCOMPARE(got.stopError, want.stopError);
        QCOMPARE(got.thresholdNs, want.thresholdNs);
        QCOMPARE(got.top, want.top);
        QCOMPARE(got.updatedNs, want.updatedNs);
        QCOMPARE(got.queueDroppedEvents, want.queueDroppedEvents);
        QCOMPARE(got.queueDroppedBatches, want.queueDroppedBatches);
        const TraceStats &gs = got.stats, &ws = want.stats;
        QCOMPARE(gs.events, ws.events);
        QCOMPARE(gs.subBuffers, ws.subBuffers);
        QCOMPARE(gs.bytes, ws.bytes);
        QCOMPARE(gs.batches, ws.batches);
        QCOMPARE(gs.lostEvents, ws.lostEvents);
        QCOMPARE(gs.lossReports, ws.lossReports);
        QCOMPARE(gs.undecoded, ws.undecoded);
        QCOMPARE(gs.handlerErrors, ws.handlerErrors);
        QCOMPARE(gs.kernelOverrun, ws.kernelOverrun);
        QCOMPARE(gs.kernelDropped, ws.kernelDropped);
        QCOMPARE(gs.unreadAtStop, ws.unreadAtStop);
        QCOMPARE(gs.readerStopNs, ws.readerStopNs);
        const AnatomyFigures &gf = got.figures, &wf = want.figures;
        QCOMPARE(gf.wakeupsSeen, wf.wakeupsSeen);
        QCOMPARE(gf.wakeupsAnalysed, wf.wakeupsAnalysed);
        QCOMPARE(gf.wakeupsComplete, wf.wakeupsComplete);
        QCOMPARE(gf.wakeupsWithLoss, wf.wakeupsWithLoss);
        QCOMPARE(gf.wakeupsNotAnalysed, wf.wakeupsNotAnalysed);
        QCOMPARE(gf.wakeupsPending, wf.wakeupsPending);
        QCOMPARE(gf.eventsDropped, wf.eventsDropped);
        QCOMPARE(gf.overThresholdTotal, wf.overThresholdTotal);
        QCOMPARE(gf.culprits.size(), wf.culprits.size());
        for (size_t i = 0; i < wf.culprits.size(); ++i) {
            QCOMPARE(gf.culprits[i].kind, wf.culprits[i].kind);
            QCOMPARE(gf.culprits[i].id, wf.culprits[i].id);
            QCOMPARE(gf.culprits[i].name, wf.culprits[i].name);
            QCOMPARE(gf.culprits[i].prio, wf.culprits[i].prio);
            QCOMPARE(gf.culprits[i].wakeups, wf.culprits[i].wakeups);
            QCOMPARE(gf.culprits[i].totalNs, wf.culprits[i].totalNs);
            QCOMPARE(gf.culprits[i].worstNs, wf.culprits[i].worstNs);
        }
        raCompareWakeups(gf.worst, wf.worst);
        if (QTest::currentTestFailed())
            return;
        raCompareWakeups(gf.overThreshold, wf.overThreshold);
        if (QTest::currentTestFailed())
            return;
        // And so the report: the replay's "anatomy" object is the live one's.
        QCOMPARE(anatomyJson(got, kRaT0, 70 * kNsPerMs).dump(), anatomyJson(want, kRaT0, 70 * kNsPerMs).dump());
    }

    void untracedRunHasNoAnatomy()
    {
        const std::string bytes = raRecord(m_dir.path(), nullptr);
        const ReplayedRun run = replayRecording(bytes);
        QVERIFY2(run.read.ok, run.read.error.c_str());
        QVERIFY(run.snapshot);
        QVERIFY(!run.snapshot->tracing);
    }

    void unavailableTracingIsKept()
    {
        LatencyTracing t;
        t.unavailable = "tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing";
        t.top = 10;
        const ReplayedRun run = replayRecording(raRecord(m_dir.path(), &t));
        QVERIFY2(run.read.ok, run.read.error.c_str());
        QVERIFY(run.snapshot && run.snapshot->tracing);
        QVERIFY(!run.snapshot->tracing->active);
        QCOMPARE(run.snapshot->tracing->unavailable, t.unavailable);
        QVERIFY(run.snapshot->tracing->figures.worst.empty());
    }

    void longWindowKeepsItsLatestEvents()
    {
        // A window longer than a reader accepts keeps its latest events; the rest are counted, not lost silently.
        LatencyTracing t = raTracing();
        TracedWakeup& w = t.figures.worst.front();
        const std::vector<TraceEvent> one = w.events;
        w.events.clear();
        for (size_t i = 0; w.events.size() < kMaxRecordedWindowEvents + 100; ++i) {
            TraceEvent e = one[i % one.size()];
            e.ts = kRaT0 + int64_t(w.events.size());
            w.events.push_back(e);
        }
        const ReplayedRun run = replayRecording(raRecord(m_dir.path(), &t));
        QVERIFY2(run.read.ok, run.read.error.c_str());
        const TracedWakeup& got = run.snapshot->tracing->figures.worst.front();
        QCOMPARE(got.events.size(), kMaxRecordedWindowEvents);
        QCOMPARE(got.eventsOmitted, w.eventsOmitted + 100);
        QCOMPARE(raDescribe(got.events.front()), raDescribe(w.events[100]));
        QCOMPARE(raDescribe(got.events.back()), raDescribe(w.events.back()));
    }

    void versionsAndOptionalBlocks()
    {
        // Version 1 files (no anatomy) still read; an optional block this reader does not know is skipped; a core
        // type it does not know, and a version after its own, are refused.
        const std::string v1 = raFile("");
        QCOMPARE(v1.substr(8, 4), std::string("\x01\x00\x00\x00", 4));
        RecordingVisitor nothing;
        RecordingReadResult r = readRecording(v1, nothing);
        QVERIFY2(r.ok, r.error.c_str());
        r = readRecording(raFile(raBlock(200, std::string(1000, 'x'))), nothing);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.samples, uint64_t(64));
        r = readRecording(raFile(raBlock(127, "x")), nothing);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.find("unknown block type 127") != std::string::npos, r.error.c_str());
        std::string v3 = v1;
        v3[8] = 3;
        r = readRecording(v3, nothing);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.find("recording format version 3 is not supported (this rtscope reads versions 1 to 2)") !=
                     std::string::npos,
                 r.error.c_str());
        const LatencyTracing t = raTracing();
        QCOMPARE(raRecord(m_dir.path(), &t).substr(8, 4), std::string("\x02\x00\x00\x00", 4));
    }

    void hostileBlocksAreRefused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        const auto row = [](const char* name, const std::string& blocks, const char* error) {
            QTest::newRow(name) << QByteArray::fromStdString(raFile(blocks)) << QString(error);
        };
        row("culprit count above its limit", raAnatomy(0, 0, 70'000),
            "anatomy block: culprit count 70000 exceeds the limit of 65536");
        row("culprit count beyond the payload", raAnatomy(0, 0, 1000),
            "anatomy block: culprit count 1000 cannot fit in the 0 bytes left");
        row("worst count above top", raAnatomy(11, 0, 0),
            "anatomy block: worst wake-up count 11 exceeds its top of 10");
        row("over-threshold count above its limit", raAnatomy(0, 1001, 0),
            "anatomy block: over-threshold wake-up count 1001 exceeds the limit of 1000");
        row("a second anatomy block", raAnatomy(0, 0, 0) + raAnatomy(0, 0, 0), "anatomy block: a second anatomy block");
        row("wake-up before the anatomy block", raWakeupBlock({}, 0, ""),
            "traced wake-up block: comes before the anatomy block");
        row("wake-up not announced", raAnatomy(0, 0, 0) + raWakeupBlock({}, 0, ""),
            "traced wake-up block: more worst wake-ups than the anatomy block announced (0)");
        row("announced wake-up missing", raAnatomy(1, 0, 0),
            "end block: the anatomy block announced 1 worst and 0 over-threshold wake-ups, the file holds 0 and 0");
        row("event count above its limit", raAnatomy(1, 0, 0) + raWakeupBlock({}, 9000, ""),
            "traced wake-up block: event count 9000 exceeds the limit of 8192");
        row("event count beyond the payload", raAnatomy(1, 0, 0) + raWakeupBlock({}, 100, ""),
            "traced wake-up block: event count 100 cannot fit in the 0 bytes left");
        row("string that does not exist", raAnatomy(1, 0, 0) + raWakeupBlock({"a"}, 1, raSwitch(kRaT0, 0, 5)),
            "traced wake-up block: event 0 of 1: string 5 does not exist (the window has 1)");
        row("comm too long", raAnatomy(1, 0, 0) + raWakeupBlock({std::string(20, 'c')}, 1, raSwitch(kRaT0, 0, 0)),
            "traced wake-up block: event 0 of 1: a comm of 20 bytes (at most 15)");
        row("window string too long", raAnatomy(1, 0, 0) + raWakeupBlock({std::string(64, 's')}, 0, ""),
            "traced wake-up block: window string: length 64 exceeds the limit of 63");
        row("event time out of range", raAnatomy(1, 0, 0) + raWakeupBlock({"a"}, 1, raSwitch(-5, 0, 0)),
            "traced wake-up block: event 0 of 1: time out of range");
        row("bytes left over", raAnatomy(1, 0, 0) + raWakeupBlock({"a"}, 1, raSwitch(kRaT0, 0, 0) + "zz"),
            "traced wake-up block: 2 bytes left over after 1 events");
        row("anatomy block longer than its limit", RaBytes().u8(10).u32(17 << 20).str(),
            "anatomy block: length 17825792 exceeds the limit of 16777216");
    }

    void hostileBlocksAreRefused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        const ReplayedRun run = replayRecording(bytes.toStdString());
        QVERIFY(!run.read.ok);
        QVERIFY(!run.read.truncated);
        QVERIFY2(QString::fromStdString(run.read.error).contains(error), run.read.error.c_str());
        QVERIFY2(run.read.error.rfind("offset ", 0) == 0, run.read.error.c_str()); // and where it is
    }

    void cutShortIsTruncated()
    {
        // The recorder killed while it wrote the wake-ups: what came before is delivered, and the file says it ends
        // early (not that it is invalid).
        const LatencyTracing t = raTracing();
        const std::string bytes = raRecord(m_dir.path(), &t);
        const std::string cut = bytes.substr(0, bytes.size() - 40);
        const ReplayedRun run = replayRecording(cut);
        QVERIFY(run.read.truncated);
        QVERIFY2(run.read.error.find("truncated after 64 samples: the traced wake-up block at offset") !=
                     std::string::npos,
                 run.read.error.c_str());
        QVERIFY(run.snapshot && run.snapshot->tracing);
        QCOMPARE(run.snapshot->tracing->figures.worst.size(), size_t(2));
        QCOMPARE(run.snapshot->tracing->figures.overThreshold.size(), size_t(0)); // the one cut short
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestRecordingAnatomy)
#include "tst_recording_anatomy.moc"
