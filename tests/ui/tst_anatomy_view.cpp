// The latency anatomy on the desktop (docs/experiments/anatomy.md): the worst wake-ups and culprit tables, the
// swimlane and the breakdown bar built from wake-ups whose kernel events are written by hand (each worked out in the
// comment above it, and analysed by the engine's own analyzeWakeup), the panel's selection, the trace toggle
// disabled with the probe's reason, and a live traced run with hogs through the latency page.
#include "engine/pipeline/wakeup_anatomy.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/trace/trace_session.h"
#include "engine/util/clock.h"
#include "tests/common/exposed_widget.h"
#include "tests/common/page_test_util.h"
#include "ui/common/colors.h"
#include "ui/common/latency_source.h"
#include "ui/latency/latency_page.h"
#include "ui/plot/anatomy_breakdown_bar.h"
#include "ui/plot/anatomy_swimlane.h"
#include "ui/plot/histogram_chart.h"
#include "ui/plot/timeline_chart.h"
#include "ui/widgets/anatomy_view.h"
#include "ui/widgets/anatomy_view_data.h"
#include "ui/widgets/culprits_model.h"
#include "ui/widgets/latency_controls.h"
#include "ui/widgets/worst_wakeups_model.h"
#include "ui/workbench/cpus/cpus_page.h"

#include "tests/common/test_main.h"
#include "tests/common/trace_event_util.h"
#include <QAbstractItemModelTester>
#include <QAbstractScrollArea>
#include <QCheckBox>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>

#include <QRegularExpression>
#include <QtTest>

#include <cmath>

using namespace rtscope;
using namespace rtscope::test;

namespace {

constexpr int32_t kAvTid = 100; // the measuring thread "meas", SCHED_OTHER nice 0 (kernel prio 120)
constexpr int kAvCpu = 1;
constexpr int64_t kAvUs = 1000;
constexpr uint64_t kAvOwnTimer = 0xA000;
constexpr uint64_t kAvHrtimerWakeup = 0xF100;
constexpr int64_t kAvStart = 1000 * kNsPerSec; // the run's start (CLOCK_MONOTONIC)

int64_t avDeadline(int k)
{
    return kAvStart + int64_t(k) * kNsPerSec; // wake-up k happens k seconds into the run
}

TraceEvent avBase(TraceEventType type, int64_t ts, int32_t current)
{
    return test::traceEvent(type, ts, current, kAvCpu);
}

TraceEvent avSwitch(int64_t ts, int32_t prevPid, const char* prevComm, int prevPrio, int64_t prevState, int32_t nextPid,
                    const char* nextComm, int nextPrio)
{
    return test::traceSwitch(ts, kAvCpu, {prevPid, prevComm, prevPrio}, prevState, {nextPid, nextComm, nextPrio});
}

TraceEvent avWake(TraceEventType type, int64_t ts, int32_t current)
{
    return test::traceWake(type, ts, current, kAvCpu, {kAvTid, "meas", 120}, kAvCpu);
}

TraceEvent avTimer(TraceEventType type, int64_t ts, int32_t current)
{
    TraceEvent e = avBase(type, ts, current);
    e.hrtimer.timer = kAvOwnTimer;
    e.hrtimer.function = type == TraceEventType::HrtimerExpireEntry ? kAvHrtimerWakeup : 0;
    return e;
}

TraceEvent avVector(TraceEventType type, int64_t ts, int32_t current)
{
    TraceEvent e = avBase(type, ts, current);
    e.irq.vector = TraceVector::LocalTimer;
    e.irq.number = 236;
    return e;
}

TraceEvent avSoftirq(TraceEventType type, int64_t ts, int32_t current, int vector)
{
    TraceEvent e = avBase(type, ts, current);
    e.irq.number = vector;
    return e;
}

// The timer interrupt that wakes the thread, @p current interrupted, t in µs from deadline @p d: local_timer_entry at
// t, its hrtimer at t+1, waking t+2, wakeup t+3, hrtimer exit t+4, local_timer_exit t+6.
void avTimerIrq(std::vector<TraceEvent>& ev, int64_t d, int64_t t, int32_t current)
{
    ev.push_back(avVector(TraceEventType::VectorEntry, d + t * kAvUs, current));
    ev.push_back(avTimer(TraceEventType::HrtimerExpireEntry, d + (t + 1) * kAvUs, current));
    ev.push_back(avWake(TraceEventType::SchedWaking, d + (t + 2) * kAvUs, current));
    ev.push_back(avWake(TraceEventType::SchedWakeup, d + (t + 3) * kAvUs, current));
    ev.push_back(avTimer(TraceEventType::HrtimerExpireExit, d + (t + 4) * kAvUs, current));
    ev.push_back(avVector(TraceEventType::VectorExit, d + (t + 6) * kAvUs, current));
}

TracedWakeup avTraced(int k, int64_t wakeUs, std::vector<TraceEvent> ev)
{
    TracedWakeup w;
    const WakeupQuery q{kAvTid, kAvCpu, avDeadline(k), avDeadline(k) + wakeUs * kAvUs};
    w.anatomy = analyzeWakeup(q, ev);
    w.seq = uint64_t(k) * 1000;
    w.thread = 0;
    w.events = std::move(ev);
    return w;
}

// An OTHER hog: "hog" (pid 200, nice 0) takes the CPU when the thread sleeps at −800 µs; the timer fires at +4 (its
// hrtimer +5..+8, local_timer to +10) and wakes the thread, which waits until the hog is preempted at L−3; it reads
// its clock at L.
//   timer IRQ delay 5, interrupts (own hrtimer 3 + local_timer 2) 5, scheduling (hog) L−3−10, return 3: L.
TracedWakeup avOtherHog(int k, int64_t latencyUs)
{
    const int64_t d = avDeadline(k);
    std::vector<TraceEvent> ev;
    ev.push_back(avSwitch(d - 800 * kAvUs, kAvTid, "meas", 120, 1, 200, "hog", 120));
    avTimerIrq(ev, d, 4, 200);
    ev.push_back(avSwitch(d + (latencyUs - 3) * kAvUs, 200, "hog", 120, 0, kAvTid, "meas", 120));
    return avTraced(k, latencyUs, std::move(ev));
}

// An idle CPU on a kernel that records no switch out of the idle task: the thread sleeps into idle at −800 µs, the
// timer fires in idle at +20 (its hrtimer +21), and nothing records the thread's switch-in; it reads its clock at
// +180. Timer IRQ delay 21 µs (idle exit included); interrupts, scheduling and return unknown: 159 µs unaccounted.
TracedWakeup avIdle(int k)
{
    const int64_t d = avDeadline(k);
    std::vector<TraceEvent> ev;
    ev.push_back(avSwitch(d - 800 * kAvUs, kAvTid, "meas", 120, 1, 0, "swapper/1", 120));
    avTimerIrq(ev, d, 20, 0);
    return avTraced(k, 180, std::move(ev));
}

// A real-time hog: "rt-hog" (pid 300, FIFO 60 = prio 39) takes the idle CPU at −100 µs; the timer fires at +4 (as
// above: timer delay 5, interrupts 3 + 2), a TIMER softirq runs in its context +100..+130, it sleeps at +500; the
// thread reads its clock at +503.
//   timer 5; interrupts own 3 + local_timer 2 + softirq 30 = 35; scheduling (rt-hog) 90 + 370 = 460; return 3: 503.
TracedWakeup avRtHog(int k)
{
    const int64_t d = avDeadline(k);
    std::vector<TraceEvent> ev;
    ev.push_back(avSwitch(d - 800 * kAvUs, kAvTid, "meas", 120, 1, 0, "swapper/1", 120));
    ev.push_back(avSwitch(d - 100 * kAvUs, 0, "swapper/1", 120, 0, 300, "rt-hog", 39));
    avTimerIrq(ev, d, 4, 300);
    ev.push_back(avSoftirq(TraceEventType::SoftirqEntry, d + 100 * kAvUs, 300, 1));
    ev.push_back(avSoftirq(TraceEventType::SoftirqExit, d + 130 * kAvUs, 300, 1));
    ev.push_back(avSwitch(d + 500 * kAvUs, 300, "rt-hog", 39, 1, kAvTid, "meas", 120));
    return avTraced(k, 503, std::move(ev));
}

// The run of the model tests: an OTHER hog 303 µs at 1 s, idle 180 µs at 2 s, OTHER hog 150 µs at 3 s, RT hog
// 503 µs at 4 s, OTHER hog 120 µs at 5 s; the 4 worst kept, and every one over 100 µs.
std::shared_ptr<LatencyTracing> avTracing()
{
    auto t = std::make_shared<LatencyTracing>();
    t->active = true;
    t->top = 4;
    t->thresholdNs = 100 * kAvUs;
    const TracedWakeup a = avOtherHog(1, 303), b = avIdle(2), x = avOtherHog(3, 150), c = avRtHog(4),
                       y = avOtherHog(5, 120);
    t->figures.worst = {c, a, b, x};
    t->figures.overThreshold = {a, b, x, c, y};
    t->figures.overThresholdTotal = 5;
    CulpritTable table;
    for (const TracedWakeup* w : {&a, &b, &x, &c, &y})
        table.add(w->anatomy);
    t->figures.culprits = table.rows();
    t->figures.wakeupsSeen = 5;
    t->figures.wakeupsAnalysed = 5;
    t->figures.wakeupsComplete = 4;
    t->stats.events = 50'000;
    return t;
}

LatencySnapshot avSnapshot(std::shared_ptr<const LatencyTracing> tracing)
{
    LatencySnapshot s;
    s.config.trace = true;
    s.config.cpu = kAvCpu;
    s.running = true;
    s.startNs = kAvStart;
    s.publishedNs = kAvStart + 10 * kNsPerSec;
    LatencyThreadStats th;
    th.cpu = kAvCpu;
    s.threads.push_back(th);
    s.tracing = std::move(tracing);
    return s;
}

// @p w moved to deadline @p deadline (its events with it), analysed again; its seq is the deadline.
TracedWakeup avShifted(const TracedWakeup& w, int64_t deadline)
{
    const int64_t shift = deadline - w.anatomy.query.deadlineNs;
    TracedWakeup out = w;
    for (TraceEvent& e : out.events)
        e.ts += shift;
    out.anatomy = analyzeWakeup({kAvTid, kAvCpu, deadline, deadline + w.anatomy.latencyNs}, out.events);
    out.seq = uint64_t(deadline);
    return out;
}

QString avCell(const QAbstractItemModel& m, int row, int column, int role = Qt::DisplayRole)
{
    return m.data(m.index(row, column), role).toString();
}

// The segment of @p lane whose label is @p label (the first), or -1.
int avSegment(const AnatomySwimlaneData& d, int lane, const QString& label)
{
    const auto& segs = d.lanes[size_t(lane)];
    for (size_t i = 0; i < segs.size(); ++i)
        if (segs[i].label == label)
            return int(i);
    return -1;
}

constexpr int kAvLaneParts = 0, kAvLaneThread = 1, kAvLaneCpu = 2, kAvLaneIrq = 3;

// A replay whose snapshots carry the tracing given (what the engine adds to a traced run's snapshots).
class AvTracedSource : public ReplayLatencySource {
public:
    std::shared_ptr<const LatencyTracing> tracing;
    std::shared_ptr<const LatencySnapshot> snapshot() const override
    {
        std::shared_ptr<const LatencySnapshot> s = ReplayLatencySource::snapshot();
        if (!s || !tracing)
            return s;
        auto copy = std::make_shared<LatencySnapshot>(*s);
        copy->tracing = tracing;
        return copy;
    }
};

// A second of 1 ms wake-ups, 10 µs late, from @p t0 on.
void avFeed(ReplayLatencySource& src, int64_t t0)
{
    const uint64_t first = src.replay().nextSeq();
    for (int i = 0; i < 1000; ++i) {
        LatencySample smp;
        smp.seq = first + uint64_t(i);
        smp.deadlineNs = t0 + int64_t(i) * kNsPerMs;
        smp.latencyNs = 10 * kAvUs;
        smp.wakeNs = smp.deadlineNs + smp.latencyNs;
        src.replay().add(smp);
    }
}

} // namespace

class TestAnatomyView : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

private slots:
    void initTestCase() { m_probe = setUpPageTest(); }

    void handMadeWakeupsAreWhatTheirCommentsSay()
    {
        // The anatomies the views are tested with, as worked out above (the engine's own tests cover the analysis).
        const WakeupAnatomy a = avOtherHog(1, 303).anatomy;
        QVERIFY2(a.complete(), a.note.c_str());
        QCOMPARE(*a.timerIrqDelayNs, 5 * kAvUs);
        QCOMPARE(*a.irqNs, 5 * kAvUs);
        QCOMPARE(*a.schedulingNs, 290 * kAvUs);
        QCOMPARE(*a.returnToUserNs, 3 * kAvUs);
        const WakeupAnatomy b = avIdle(2).anatomy;
        QVERIFY(!b.complete());
        QCOMPARE(*b.timerIrqDelayNs, 21 * kAvUs);
        QVERIFY(!b.schedulingNs && !b.irqNs && !b.returnToUserNs);
        QCOMPARE(b.unaccountedNs, 159 * kAvUs);
        const WakeupAnatomy c = avRtHog(4).anatomy;
        QVERIFY2(c.complete(), c.note.c_str());
        QCOMPARE(*c.irqNs, 35 * kAvUs);
        QCOMPARE(*c.schedulingNs, 460 * kAvUs);
    }

    void worstWakeupsListsWorstFirstThenOverThreshold()
    {
        WorstWakeupsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const LatencySnapshot s = avSnapshot(avTracing());
        m.setTracing(s.tracing, s.startNs, s.publishedNs);
        QCOMPARE(m.rowCount(), 5); // the 4 worst, then the one over 100 µs that is not among them
        const QStringList latencies = {"503 µs", "303 µs", "180 µs", "150 µs", "120 µs"};
        for (int r = 0; r < 5; ++r)
            QCOMPARE(avCell(m, r, WorstWakeupsModel::Latency), latencies[r]);
        QCOMPARE(m.data(m.index(0, WorstWakeupsModel::Latency), WorstWakeupsModel::RawValueRole).toLongLong(),
                 503'000LL);
        QCOMPARE(avCell(m, 0, WorstWakeupsModel::List), QString("#1, over 100 µs"));
        QCOMPARE(avCell(m, 4, WorstWakeupsModel::List), QString("over 100 µs"));
        QVERIFY(!m.overThreshold(0));
        QVERIFY(m.overThreshold(4));
        QCOMPARE(avCell(m, 0, WorstWakeupsModel::Cpu), QString("1"));
        // 503 µs late at 4 s into a run published at 10 s.
        QCOMPARE(avCell(m, 0, WorstWakeupsModel::When), QString("6.0 s ago (at 4.0 s)"));
        QCOMPARE(avCell(m, 1, WorstWakeupsModel::When), QString("9.0 s ago (at 1.0 s)"));
        // The main culprits: the task that held the CPU, or unknown where the largest part is.
        QCOMPARE(avCell(m, 0, WorstWakeupsModel::Culprit), QString("rt-hog (pid 300)"));
        QCOMPARE(avCell(m, 1, WorstWakeupsModel::Culprit), QString("hog (pid 200)"));
        QCOMPARE(avCell(m, 2, WorstWakeupsModel::Culprit), QString("unknown"));
        QVERIFY(avCell(m, 1, WorstWakeupsModel::Verdict).contains("waiting for hog (pid 200"));
        // The desktop app writes µs, also in the engine's verdict (the CLI keeps cyclictest's ASCII "us").
        for (int r = 0; r < m.rowCount(); ++r) {
            const QString verdict = avCell(m, r, WorstWakeupsModel::Verdict);
            QVERIFY2(verdict.contains("µs") && !verdict.contains(QRegularExpression("[0-9] us\\b")),
                     qPrintable(verdict));
        }
        QVERIFY(avCell(m, 2, WorstWakeupsModel::Verdict).contains("unaccounted"));
        QCOMPARE(m.wakeup(0)->seq, uint64_t(4000));
        QCOMPARE(m.rowOf(0, 5000), 4);
        QCOMPARE(m.rowOf(0, 42), -1);

        // The same wake-ups again: no reset, "when" moves on.
        QSignalSpy resets(&m, &QAbstractItemModel::modelReset);
        LatencySnapshot later = s;
        later.publishedNs += 2 * kNsPerSec;
        m.setTracing(later.tracing, later.startNs, later.publishedNs);
        QCOMPARE(resets.count(), 0);
        QCOMPARE(avCell(m, 0, WorstWakeupsModel::When), QString("8.0 s ago (at 4.0 s)"));
        m.setTracing(nullptr, 0, 0);
        QCOMPARE(resets.count(), 1);
        QCOMPARE(m.rowCount(), 0);
    }

    void culpritTableHasUnitsAndShares()
    {
        CulpritsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const std::shared_ptr<LatencyTracing> t = avTracing();
        m.setCulprits(t->figures.culprits, t->figures.wakeupsAnalysed);
        // rt-hog 460 µs; hog 290 + 137 + 107 = 534 µs over 3 wake-ups; softirq TIMER 30 µs: most total time first.
        // The local_timer of each wake-up delivered the thread's own timer: no culprit.
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(avCell(m, 0, CulpritsModel::Name), QString("hog"));
        QCOMPARE(avCell(m, 0, CulpritsModel::Kind), QString("task"));
        QCOMPARE(avCell(m, 0, CulpritsModel::Id), QString("200"));
        QCOMPARE(avCell(m, 0, CulpritsModel::Prio), QString("nice 0"));
        QCOMPARE(avCell(m, 0, CulpritsModel::Prio, Qt::ToolTipRole), QString("nice 0 (OTHER/BATCH)"));
        QCOMPARE(avCell(m, 0, CulpritsModel::Wakeups), QString("3"));
        QCOMPARE(avCell(m, 0, CulpritsModel::Wakeups, Qt::ToolTipRole),
                 QString("3 of the 5 wake-ups analysed (60.0 %)"));
        QCOMPARE(avCell(m, 0, CulpritsModel::Total), QString("534 µs"));
        QCOMPARE(avCell(m, 0, CulpritsModel::Worst), QString("290 µs"));
        QCOMPARE(m.data(m.index(0, CulpritsModel::Total), CulpritsModel::RawValueRole).toLongLong(), 534'000LL);
        QCOMPARE(avCell(m, 1, CulpritsModel::Name), QString("rt-hog"));
        QCOMPARE(avCell(m, 1, CulpritsModel::Prio), QString("RT 60"));
        QCOMPARE(avCell(m, 2, CulpritsModel::Kind), QString("softirq"));
        QCOMPARE(avCell(m, 2, CulpritsModel::Id), QString("1 (TIMER)"));
        QCOMPARE(avCell(m, 2, CulpritsModel::Prio), QString("—"));
        QCOMPARE(avCell(m, 2, CulpritsModel::Total), QString("30.0 µs"));
        for (int r = 0; r < m.rowCount(); ++r)
            QVERIFY(!avCell(m, r, CulpritsModel::Name).startsWith("local_timer"));
    }

    void breakdownShowsUnknownPartsAsUnknown()
    {
        // Complete: four parts that add up, nothing unaccounted.
        const AnatomyBreakdownData full = anatomyBreakdownData(avOtherHog(1, 303).anatomy);
        QCOMPARE(full.parts.size(), size_t(4));
        QCOMPARE(full.parts[2].name, QString("scheduling delay"));
        QCOMPARE(*full.parts[2].ns, 290 * kAvUs);
        QCOMPARE(full.parts[2].detail, QString("hog (pid 200) 290 µs"));

        // The idle CPU: the timer delay known, the three others unknown (no size), the rest unaccounted, exactly.
        const AnatomyBreakdownData idle = anatomyBreakdownData(avIdle(2).anatomy);
        QCOMPARE(idle.parts.size(), size_t(5));
        QCOMPARE(*idle.parts[0].ns, 21 * kAvUs);
        for (int i : {1, 2, 3}) {
            QVERIFY(!idle.parts[size_t(i)].ns);
            QCOMPARE(idle.parts[size_t(i)].valueText, QString("unknown"));
        }
        QCOMPARE(idle.parts[4].role, BreakdownRole::Unaccounted);
        QCOMPARE(*idle.parts[4].ns, 159 * kAvUs);

        AnatomyBreakdownBar bar;
        bar.resize(360, 420);
        bar.setData(idle);
        QCOMPARE(bar.labelText(2), QString("scheduling delay: unknown"));
        QCOMPARE(bar.labelText(0), QString("timer IRQ delay: 21.0 µs (12 %)"));
        QCOMPARE(bar.labelText(4), QString("unknown: 159 µs (88 %)"));
        // Unknown parts get no block; the known ones are as tall as their share of the bar.
        QVERIFY(bar.blockRect(2).isEmpty());
        QVERIFY(bar.blockRect(3).isEmpty());
        const double h = bar.barRect().height();
        QVERIFY(std::abs(bar.blockRect(0).height() - h * 21 / 180) < 1);
        QVERIFY(std::abs(bar.blockRect(4).height() - h * 159 / 180) < 1);
        QVERIFY(std::abs(bar.blockRect(4).top() - bar.blockRect(0).bottom()) < 0.01);
        QVERIFY(std::abs(bar.blockRect(4).bottom() - bar.barRect().bottom()) < 0.5);
    }

    void swimlaneDrawsTheHogWhereItRan()
    {
        const TracedWakeup w = avOtherHog(1, 303);
        const int64_t d = avDeadline(1);
        const AnatomySwimlaneData data = anatomySwimlaneData(w);
        QCOMPARE(data.lanes.size(), size_t(4));
        QCOMPARE(data.originNs, d);
        QVERIFY(data.fromNs < d && data.toNs > d + 303 * kAvUs);

        // The CPU lane: the hog from before the window to +300 µs, OTHER; then the measuring thread.
        const int hog = avSegment(data, kAvLaneCpu, "hog");
        QVERIFY(hog >= 0);
        const SwimSegment& hs = data.lanes[kAvLaneCpu][size_t(hog)];
        QCOMPARE(hs.kind, SwimKind::OtherTask);
        QCOMPARE(hs.fromNs, data.fromNs);
        QCOMPARE(hs.toNs, d + 300 * kAvUs);
        QVERIFY(!hs.inferred);
        QVERIFY2(hs.detail.contains("pid 200") && hs.detail.contains("nice 0"), qPrintable(hs.detail));
        const int meas = avSegment(data, kAvLaneCpu, "measuring thread");
        QVERIFY(meas > hog);
        QCOMPARE(data.lanes[kAvLaneCpu][size_t(meas)].fromNs, d + 300 * kAvUs);
        // The thread: asleep to its waking (+6), waiting to +300, then running.
        const auto& thread = data.lanes[kAvLaneThread];
        QCOMPARE(thread[size_t(avSegment(data, kAvLaneThread, "asleep"))].toNs, d + 6 * kAvUs);
        QCOMPARE(thread[size_t(avSegment(data, kAvLaneThread, "woken, waits"))].toNs, d + 300 * kAvUs);
        // The parts: timer delay to +5, waiting to +300, return to +303, no unknown.
        const auto& parts = data.lanes[kAvLaneParts];
        QCOMPARE(parts.size(), size_t(3));
        QCOMPARE(parts[0].kind, SwimKind::PartTimer);
        QCOMPARE(parts[0].toNs, d + 5 * kAvUs);
        QCOMPARE(parts[1].kind, SwimKind::PartWaiting);
        QCOMPARE(parts[1].toNs, d + 300 * kAvUs);
        QCOMPARE(parts[2].kind, SwimKind::PartReturn);
        QCOMPARE(parts[2].toNs, d + 303 * kAvUs);
        // Interrupts: the local_timer vector and, inside it, its own timer's callback.
        const int own = avSegment(data, kAvLaneIrq, "its timer");
        QVERIFY(own >= 0);
        QCOMPARE(data.lanes[kAvLaneIrq][size_t(own)].kind, SwimKind::OwnTimer);
        QCOMPARE(data.lanes[kAvLaneIrq][size_t(own)].depth, 1);

        // Drawn: the hog's block spans its x range, the lines sit at the deadline and the wake time.
        AnatomySwimlane lane;
        lane.resize(1000, 360);
        lane.setData(data);
        const QRectF r = lane.segmentRect(kAvLaneCpu, hog);
        QVERIFY(std::abs(r.left() - lane.plotRect().left()) < 0.5);
        QVERIFY(std::abs(r.right() - lane.xOf(d + 300 * kAvUs)) < 0.5);
        QVERIFY(lane.laneRect(kAvLaneCpu).contains(r.center()));
        const std::vector<double> xs = lane.lineX();
        QCOMPARE(data.lines.front().role, SwimLineRole::Deadline);
        QCOMPARE(data.lines.back().role, SwimLineRole::Wake);
        QVERIFY(std::abs(xs.front() - lane.xOf(d)) < 0.01);
        QVERIFY(std::abs(xs.back() - lane.xOf(d + 303 * kAvUs)) < 0.01);
        // The deadline at its share of the window from the plot's left edge.
        const double span = double(data.toNs - data.fromNs);
        QVERIFY(std::abs(xs.front() -
                         (lane.plotRect().left() + lane.plotRect().width() * double(d - data.fromNs) / span)) < 0.01);
        QVERIFY(xs.back() > xs.front() + lane.plotRect().width() * 0.6);
        // Ticks in µs from the deadline, ascending, 0 among them (those under the axis title are left out).
        const QStringList ticks = lane.tickLabels();
        QVERIFY2(ticks.size() >= 3 && ticks.contains("0") && ticks.contains("100"), qPrintable(ticks.join(' ')));
        for (qsizetype i = 1; i < ticks.size(); ++i)
            QVERIFY(ticks[i].toDouble() > ticks[i - 1].toDouble());
        QVERIFY(lane.legendTexts().contains(AnatomySwimlane::kindName(SwimKind::OtherTask)));
        QVERIFY(!lane.legendTexts().contains(AnatomySwimlane::kindName(SwimKind::RtTask)));
        // The hog's piece under the mouse names it.
        QCOMPARE(lane.segmentAt(r.center()), std::make_pair(kAvLaneCpu, hog));
    }

    void swimlaneColoursByPolicyAndMarksInterrupts()
    {
        const TracedWakeup w = avRtHog(4);
        const int64_t d = avDeadline(4);
        const AnatomySwimlaneData data = anatomySwimlaneData(w);
        const int hog = avSegment(data, kAvLaneCpu, "rt-hog");
        QVERIFY(hog >= 0);
        QCOMPARE(data.lanes[kAvLaneCpu][size_t(hog)].kind, SwimKind::RtTask);
        const int soft = avSegment(data, kAvLaneIrq, "TIMER");
        QVERIFY(soft >= 0);
        QCOMPARE(data.lanes[kAvLaneIrq][size_t(soft)].fromNs, d + 100 * kAvUs);
        QCOMPARE(data.lanes[kAvLaneIrq][size_t(soft)].toNs, d + 130 * kAvUs);
        // RT and OTHER differ in both themes.
        for (bool dark : {false, true})
            QVERIFY(AnatomySwimlane::kindColor(SwimKind::RtTask, dark) !=
                    AnatomySwimlane::kindColor(SwimKind::OtherTask, dark));
    }

    void swimlaneLeavesWhatNoEventTellsUnknown()
    {
        // The idle CPU: the thread's switch-in is not in the events, so from its waking (+22) to its wake time
        // (+180) its state is unknown, as is who held the CPU after the last event naming the idle task (+26); the
        // parts lane knows only the timer delay.
        const TracedWakeup w = avIdle(2);
        const int64_t d = avDeadline(2);
        const AnatomySwimlaneData data = anatomySwimlaneData(w);
        const auto& parts = data.lanes[kAvLaneParts];
        QCOMPARE(parts.size(), size_t(2));
        QCOMPARE(parts[0].kind, SwimKind::PartTimer);
        QCOMPARE(parts[1].kind, SwimKind::Unknown);
        QCOMPARE(parts[1].fromNs, d + 21 * kAvUs);
        QCOMPARE(parts[1].toNs, d + 180 * kAvUs);
        QVERIFY(parts[1].detail.contains("159 µs"));

        const auto& thread = data.lanes[kAvLaneThread];
        bool unknownUntilWake = false, runsFromWake = false;
        for (const SwimSegment& s : thread) {
            unknownUntilWake |= s.kind == SwimKind::Unknown && s.fromNs == d + 22 * kAvUs && s.toNs == d + 180 * kAvUs;
            runsFromWake |= s.kind == SwimKind::Running && s.fromNs == d + 180 * kAvUs;
            // Nothing claims it waited (or ran) where no event says so.
            QVERIFY2(s.kind != SwimKind::Waiting, qPrintable(s.detail));
        }
        QVERIFY(unknownUntilWake);
        QVERIFY(runsFromWake);

        const auto& cpu = data.lanes[kAvLaneCpu];
        const int idle = avSegment(data, kAvLaneCpu, "idle");
        QVERIFY(idle >= 0);
        QCOMPARE(cpu[size_t(idle)].toNs, d + 26 * kAvUs); // the local_timer exit, the idle task's last event
        QCOMPARE(cpu[size_t(idle) + 1].kind, SwimKind::Unknown);
        QCOMPARE(cpu[size_t(idle) + 1].toNs, d + 180 * kAvUs);
        QVERIFY(cpu[size_t(idle) + 1].detail.contains("no switch out of the idle task"));
        // Every lane but the interrupts covers the window without a hole.
        for (int lane : {kAvLaneThread, kAvLaneCpu}) {
            int64_t at = data.fromNs;
            for (const SwimSegment& s : data.lanes[size_t(lane)]) {
                QCOMPARE(s.fromNs, at);
                at = s.toNs;
            }
            QCOMPARE(at, data.toNs);
        }
    }

    void traceToggleIsDisabledWithTheReason()
    {
        LatencyControls controls(onlineCpus());
        QCheckBox* box = controls.widgets().trace;
        QVERIFY(box);
        const TraceProbe missing = TraceSession::probe("/nonexistent/rtscope-tracefs");
        QVERIFY(!missing.usable);
        controls.setTraceProbe(missing);
        QVERIFY(!box->isEnabled());
        const QString reason = QString::fromStdString(missing.reason);
        QVERIFY(!reason.isEmpty());
        QVERIFY2(box->toolTip().contains(reason), qPrintable(box->toolTip()));
        QVERIFY2(controls.traceNote().contains(reason), qPrintable(controls.traceNote()));
        QVERIFY(controls.traceNote().contains("/nonexistent/rtscope-tracefs"));
        QVERIFY(controls.findChild<QLabel*>("traceNote")->isVisibleTo(&controls));

        // A probe that will mount tracefs says so, and leaves the box usable.
        TraceProbe mount;
        mount.kernelHasTracefs = true;
        mount.usable = true;
        mount.needsMount = true;
        mount.reason = "tracefs is not mounted: starting a trace mounts it at /sys/kernel/tracing";
        controls.setTraceProbe(mount);
        QVERIFY(box->isEnabled());
        QVERIFY(controls.traceNote().contains("mounts it at /sys/kernel/tracing"));

        // This machine's probe, as the constructor asked it.
        const TraceProbe here = TraceSession::probe();
        LatencyControls fresh(onlineCpus());
        QCOMPARE(fresh.widgets().trace->isEnabled(), here.usable);
        if (!here.usable)
            QVERIFY(fresh.traceNote().contains(QString::fromStdString(here.reason)));
    }

    void panelFollowsTheWorstUntilTheUserPicks()
    {
        AnatomyPanel panel;
        QVERIFY(test::showExposed(panel, 1400, 600));
        const LatencySnapshot s = avSnapshot(avTracing());
        panel.setRun(s);
        QVERIFY(panel.followsWorst());
        QCOMPARE(panel.tracedCount(), 5);
        QCOMPARE(panel.view()->wakeup()->seq, uint64_t(4000)); // the worst, 503 µs
        QVERIFY(panel.view()->title().contains("503 µs"));
        QVERIFY(panel.view()->verdict().contains("rt-hog"));
        QCOMPARE(panel.culpritsModel()->rowCount(), 3); // hog, rt-hog, softirq TIMER (not its own local_timer)
        QVERIFY2(panel.view()->verdict().contains("µs") &&
                     !panel.view()->verdict().contains(QRegularExpression("[0-9] us\\b")),
                 qPrintable(panel.view()->verdict()));
        QVERIFY2(panel.statusText().contains("5000 events/s"), qPrintable(panel.statusText()));
        QVERIFY(panel.statusText().contains("0 events lost"));

        // A click on a row: that one, and it stays when the list changes order.
        const QRect rowRect = panel.worstTable()->visualRect(panel.worstModel()->index(2, 1));
        QTest::mouseClick(panel.worstTable()->viewport(), Qt::LeftButton, {}, rowRect.center());
        QVERIFY(!panel.followsWorst());
        QCOMPARE(panel.view()->wakeup()->seq, uint64_t(2000));
        auto t2 = avTracing();
        const TracedWakeup worse = avOtherHog(6, 900);
        t2->figures.worst.insert(t2->figures.worst.begin(), worse);
        t2->figures.worst.pop_back();
        t2->stats.lostEvents = 12;
        t2->stats.lossReports = 1;
        t2->figures.wakeupsWithLoss = 1;
        panel.setRun(avSnapshot(t2));
        QCOMPARE(panel.view()->wakeup()->seq, uint64_t(2000));
        QCOMPARE(panel.worstTable()->currentIndex().row(), panel.worstModel()->rowOf(0, 2000));
        QVERIFY(panel.statusText().contains("12 events lost"));
        QVERIFY(panel.statusText().contains(colors::css(colors::kWarningRed)));

        // Nearest in time (within the tolerance), nearest in latency (within a factor).
        QVERIFY(panel.showNearestTime(avDeadline(3) + 200 * kAvUs, 50 * kNsPerMs));
        QCOMPARE(panel.view()->wakeup()->seq, uint64_t(3000));
        QVERIFY(!panel.showNearestTime(avDeadline(3) + 500 * kNsPerMs, 50 * kNsPerMs));
        QCOMPARE(panel.view()->wakeup()->seq, uint64_t(3000));
        QVERIFY(panel.showNearestLatency(950));
        QCOMPARE(panel.view()->wakeup()->seq, uint64_t(6000));
        QVERIFY(!panel.showNearestLatency(10));

        // Tracing that does not run says why, in red.
        auto off = std::make_shared<LatencyTracing>();
        off->unavailable = "no tracefs at /x: mount it there";
        panel.setRun(avSnapshot(off));
        QVERIFY(panel.statusText().contains("no tracefs at /x: mount it there"));
        QCOMPARE(panel.tracedCount(), 0);
    }

    void timelineClickPicksTheTracedWakeup()
    {
        // A replayed run whose spike at 4 s is traced: the page shows the panel, and a click on the spike on the
        // timeline picks that wake-up.
        auto owned = std::make_unique<ReplayLatencySource>();
        ReplayLatencySource& src = *owned;
        LatencyPage page(std::move(owned), m_probe);
        QVERIFY(test::showExposed(page, 1500, 1000));
        QVERIFY(page.start());
        const int64_t t0 = nowNs() - 10 * kNsPerSec;
        const uint64_t first = src.replay().nextSeq();
        for (int i = 0; i < 9000; ++i) {
            LatencySample smp;
            smp.seq = first + uint64_t(i);
            smp.deadlineNs = t0 + int64_t(i) * kNsPerMs;
            smp.latencyNs = i == 4000 ? 503 * kAvUs : 10 * kAvUs;
            smp.wakeNs = smp.deadlineNs + smp.latencyNs;
            src.replay().add(smp);
        }
        src.publish(t0 + 10 * kNsPerSec);
        page.refreshNow();
        page.stop();
        auto run = std::make_shared<LatencySnapshot>(*page.shownRun());
        // The traced wake-ups, moved to this run's clock: the spike at t0 + 4 s, the others elsewhere.
        auto tracing = avTracing();
        for (size_t i = 0; i < tracing->figures.worst.size(); ++i)
            tracing->figures.worst[i] = avShifted(tracing->figures.worst[i],
                                                  i == 0 ? t0 + 4000 * kNsPerMs : t0 + int64_t(i) * 2 * kNsPerSec / 3);
        tracing->figures.overThreshold.clear();
        run->tracing = tracing;
        run->startNs = t0;
        page.showReplay(run, "traced replay");
        QVERIFY(page.anatomyPanel()->isVisible());
        QCOMPARE(page.anatomyPanel()->tracedCount(), 4);
        page.anatomyPanel()->selectRow(3);
        QCOMPARE(page.anatomyPanel()->view()->wakeup()->seq, tracing->figures.worst[3].seq);

        TimelineChart* timeline = page.timelineChart();
        QSignalSpy clicked(timeline, &TimelineChart::clicked);
        const double tSec = double(t0 + 4000 * kNsPerMs - run->publishedNs) / 1e9;
        const QPoint at = timeline->viewPosition(tSec, 503);
        QTest::mouseClick(timeline->plotSurface(), Qt::LeftButton, {}, at);
        QCOMPARE(clicked.count(), 1);
        QVERIFY(std::abs(clicked.first().first().toDouble() - tSec) < 0.05);
        QCOMPARE(page.anatomyPanel()->view()->wakeup()->seq, tracing->figures.worst[0].seq);
        QVERIFY(page.anatomyPanel()->view()->title().contains("503 µs"));

        // The histogram's worst bar: a click there picks the traced wake-up of that latency.
        page.anatomyPanel()->selectRow(3);
        HistogramChart* histogram = page.histogramChart();
        QSignalSpy barClicked(histogram, &HistogramChart::clicked);
        QTest::mouseClick(histogram->plotSurface(), Qt::LeftButton, {}, histogram->viewPosition(503, 1));
        QCOMPARE(barClicked.count(), 1);
        QVERIFY(std::abs(barClicked.first().first().toDouble() / 503 - 1) < 0.05);
        QCOMPARE(page.anatomyPanel()->view()->wakeup()->seq, tracing->figures.worst[0].seq);
        page.leaveReplay();
    }

    void perCpuPageShowsWhyLateBesideTheHistogram()
    {
        // The per-CPU page runs the same experiment: a traced run adds a "Why late?" tab beside the histogram.
        auto owned = std::make_unique<AvTracedSource>();
        AvTracedSource& src = *owned;
        CpusPage page(std::move(owned), m_probe);
        QVERIFY(test::showExposed(page, 1400, 900));
        LatencyConfig c = page.config();
        c.trace = false;
        QVERIFY(page.applyConfig(c).isEmpty());
        QVERIFY(page.start());
        avFeed(src, nowNs() - 2 * kNsPerSec);
        src.publish();
        page.refreshNow();
        QVERIFY(!page.middleTabs()->isTabVisible(1)); // not traced: the histogram alone, as before
        page.stop();

        c.trace = true;
        QVERIFY(page.applyConfig(c).isEmpty());
        QVERIFY(page.start());
        src.tracing = avTracing();
        avFeed(src, nowNs() - 2 * kNsPerSec);
        src.publish();
        page.refreshNow();
        QVERIFY(page.middleTabs()->isTabVisible(1));
        page.middleTabs()->setCurrentIndex(1);
        QVERIFY(page.anatomyPanel()->isVisible());
        QCOMPARE(page.anatomyPanel()->tracedCount(), 5);
        QCOMPARE(page.anatomyPanel()->culpritsModel()->rowCount(), 3);
        QVERIFY(page.anatomyPanel()->view()->verdict().contains("rt-hog"));
        page.stop();
    }

    void traceToggleReachesTheRunningPage()
    {
        // The box applies to the running experiment like every other control: the page reconfigures, and the
        // panel appears with the config that asks for tracing.
        auto owned = std::make_unique<AvTracedSource>();
        AvTracedSource& src = *owned;
        LatencyPage page(std::move(owned), m_probe);
        QVERIFY(test::showExposed(page, 1400, 1000));
        QVERIFY(page.start());
        avFeed(src, nowNs() - 2 * kNsPerSec);
        src.publish();
        page.refreshNow();
        QVERIFY(!page.anatomyPanel()->isVisible());
        QCheckBox* box = page.latencyControls()->widgets().trace;
        box->setEnabled(true); // whatever this machine's probe says: the replay source does not trace
        box->setChecked(true);
        QVERIFY(page.source().snapshot());
        src.publish();
        page.refreshNow();
        QVERIFY(page.shownRun()->config.trace);
        QVERIFY(page.anatomyPanel()->isVisible());
        QVERIFY2(page.anatomyPanel()->statusText().contains("asked for"),
                 qPrintable(page.anatomyPanel()->statusText()));
        src.tracing = avTracing();
        src.publish();
        page.stop(); // the last snapshot is drawn at once, whatever the panel's pace
        QCOMPARE(page.anatomyPanel()->tracedCount(), 5);
        box->setChecked(false);
        QVERIFY(!page.config().trace);
        QVERIFY(page.anatomyPanel()->isVisible()); // the traced run on show keeps its panel until the next start
    }

    void liveTracedRunWithHogsNamesACulprit()
    {
        const TraceProbe probe = TraceSession::probe();
        if (!probe.usable)
            RTSCOPE_SKIP(Tracefs, "kernel tracing is not available here: " + probe.reason);
        LatencyPage page(std::make_unique<LiveLatencySource>(), m_probe);
        QVERIFY(test::showExposed(page, 1500, 1000));
        LatencyConfig c;
        c.policy = Policy::Other;
        c.periodNs = kNsPerMs;
        c.hogs = 4;
        c.cpu = measuringCpu();
        c.trace = true;
        QVERIFY(startRun(page, c));
        QVERIFY(page.anatomyPanel()->isVisible());
        QElapsedTimer t;
        t.start();
        // About two seconds, drawn by the page's own timer.
        while (t.elapsed() < 2000)
            QTest::qWait(100);
        const std::shared_ptr<const LatencySnapshot> s = page.shownRun();
        QVERIFY(s);
        if (!s->tracing)
            page.stop();
        QVERIFY2(s->tracing, "a traced run's snapshot carries its tracing state");
        if (!s->tracing->active) {
            const QString why = QString::fromStdString(s->tracing->unavailable);
            page.stop();
            QVERIFY(page.anatomyPanel()->statusText().contains(why.toHtmlEscaped()));
            RTSCOPE_SKIP(Tracefs, "the run could not trace: " + why);
        }
        page.stop();
        QCOMPARE(threadsAlive(), 0);
        const CulpritsModel& m = *page.anatomyPanel()->culpritsModel();
        QVERIFY2(m.rowCount() > 0, qPrintable(page.anatomyPanel()->statusText()));
        // Four OTHER hogs share the measuring thread's CPU: they are among the tasks that delayed it, by name.
        bool hog = false;
        for (const CulpritRow& r : m.rows())
            hog |= r.kind == CulpritKind::Task && r.name == "rtscope-hog" && r.wakeups > 0 && r.totalNs > 0;
        QVERIFY2(hog, qPrintable(page.anatomyPanel()->statusText()));
        QVERIFY(page.anatomyPanel()->statusText().contains("events/s"));
        QVERIFY(page.anatomyPanel()->tracedCount() > 0);
        QVERIFY(page.anatomyPanel()->view()->wakeup().has_value());
    }
};

RTSCOPE_TEST_MAIN(TestAnatomyView)
#include "tst_anatomy_view.moc"
