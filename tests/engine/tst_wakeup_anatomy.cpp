// ctest: parallel. Pure analysis of hand-made events.
// The wake-up anatomy (engine/pipeline/wakeup_anatomy.h) on event sequences written by hand, each worked out in the
// comment above it: which events make each part, what every part must be, and that they add up to the latency.
#include "engine/pipeline/wakeup_anatomy.h"
#include "engine/util/units.h"

#include "tests/common/test_main.h"
#include "tests/common/trace_event_util.h"

#include <QtTest>

#include <algorithm>
#include <vector>

using namespace rtscope;

namespace {

constexpr int32_t kAnatTid = 100;     // the measuring thread, "meas", FIFO 50 (kernel prio 49)
constexpr int kAnatCpu = 1;           // its CPU
constexpr int64_t kAnatUs = 1000;     // ns per µs
constexpr int64_t kAnatD = 5'000'000; // its deadline: 5 ms into the trace
constexpr uint64_t kAnatOwnTimer = 0xA000;
constexpr uint64_t kAnatHrtimerWakeup = 0xF100;

int64_t anatAt(double us)
{
    return kAnatD + int64_t(us * double(kAnatUs));
}

TraceEvent anatBase(TraceEventType type, int64_t ts, int32_t current, int cpu = kAnatCpu)
{
    return test::traceEvent(type, ts, current, cpu);
}

TraceEvent anatSwitch(int64_t ts, int32_t prevPid, const char* prevComm, int prevPrio, int64_t prevState,
                      int32_t nextPid, const char* nextComm, int nextPrio, int cpu = kAnatCpu)
{
    return test::traceSwitch(ts, cpu, {prevPid, prevComm, prevPrio}, prevState, {nextPid, nextComm, nextPrio});
}

TraceEvent anatWake(TraceEventType type, int64_t ts, int32_t current, int32_t pid = kAnatTid, int cpu = kAnatCpu,
                    const char* comm = "meas", int prio = 49)
{
    return test::traceWake(type, ts, current, cpu, {pid, comm, prio}, kAnatCpu);
}

TraceEvent anatTimer(TraceEventType type, int64_t ts, int32_t current, uint64_t timer = kAnatOwnTimer,
                     uint64_t function = kAnatHrtimerWakeup)
{
    TraceEvent e = anatBase(type, ts, current);
    e.hrtimer.timer = timer;
    e.hrtimer.function = type == TraceEventType::HrtimerExpireEntry ? function : 0;
    return e;
}

TraceEvent anatVector(TraceEventType type, int64_t ts, int32_t current, TraceVector v = TraceVector::LocalTimer)
{
    TraceEvent e = anatBase(type, ts, current);
    e.irq.vector = v;
    e.irq.number = 236;
    return e;
}

TraceEvent anatIrq(TraceEventType type, int64_t ts, int32_t current, int number, const char* name = "")
{
    TraceEvent e = anatBase(type, ts, current);
    e.irq.number = number;
    setTraceText(e.irq.name, name);
    return e;
}

TraceEvent anatLost(int64_t ts, int64_t since, uint64_t count, int cpu = kAnatCpu)
{
    TraceEvent e = anatBase(TraceEventType::Lost, ts, 0, cpu);
    e.lost.sinceNs = since;
    e.lost.count = count;
    return e;
}

// The timer interrupt that wakes the thread, as the kernel records it, with @p current the interrupted task:
// local_timer_entry at t, the thread's hrtimer at t+1, its waking and wakeup at t+2 and t+3, the hrtimer's exit at
// t+4, local_timer_exit at t+6 (µs from the deadline).
void anatTimerIrq(std::vector<TraceEvent>& ev, double t, int32_t current)
{
    ev.push_back(anatVector(TraceEventType::VectorEntry, anatAt(t), current));
    ev.push_back(anatTimer(TraceEventType::HrtimerExpireEntry, anatAt(t + 1), current));
    ev.push_back(anatWake(TraceEventType::SchedWaking, anatAt(t + 2), current));
    ev.push_back(anatWake(TraceEventType::SchedWakeup, anatAt(t + 3), current));
    ev.push_back(anatTimer(TraceEventType::HrtimerExpireExit, anatAt(t + 4), current));
    ev.push_back(anatVector(TraceEventType::VectorExit, anatAt(t + 6), current));
}

// Clean: "bash" (pid 50, nice 0) holds the CPU when the timer fires 5 µs late; the timer interrupt runs from +5 to
// +11 µs (the thread's hrtimer +6..+9), bash is preempted at +13, the thread reads its clock at +16.
//   timer IRQ delay   D → +6 (hrtimer_expire_entry)                 =  6 µs
//   interrupts        own hrtimer +6..+9 = 3, local_timer +9..+11 = 2 =  5 µs, all of it its own timer's: the
//                     local_timer vector is the interrupt that delivered that hrtimer
//   scheduling        bash's task time in +6..+13: +11..+13          =  2 µs
//   return to user    +13 → +16                                     =  3 µs   (6 + 5 + 2 + 3 = 16 = latency)
std::vector<TraceEvent> anatClean()
{
    std::vector<TraceEvent> ev;
    ev.push_back(anatSwitch(anatAt(-800), kAnatTid, "meas", 49, 1, 50, "bash", 120));
    anatTimerIrq(ev, 5, 50);
    ev.push_back(anatSwitch(anatAt(13), 50, "bash", 120, 0, kAnatTid, "meas", 49));
    return ev;
}

// A higher-priority task: "hog" (pid 200, FIFO 60 = prio 39) takes the idle CPU at −100 µs and spins; the timer
// interrupts it at +4 (its hrtimer +5..+8, local_timer to +10); the thread, FIFO 50, waits until the hog sleeps at
// +300; it reads its clock at +303.
//   timer 5, interrupts 3 + 2 = 5, scheduling (hog) +10..+300 = 290, return 3: 303 = latency
std::vector<TraceEvent> anatHigherPriority()
{
    std::vector<TraceEvent> ev;
    ev.push_back(anatSwitch(anatAt(-800), kAnatTid, "meas", 49, 1, 0, "swapper/1", 120));
    ev.push_back(anatSwitch(anatAt(-100), 0, "swapper/1", 120, 0, 200, "hog", 39));
    anatTimerIrq(ev, 4, 200);
    ev.push_back(anatSwitch(anatAt(300), 200, "hog", 39, 1, kAnatTid, "meas", 49));
    return ev;
}

} // namespace

class TestWakeupAnatomy : public QObject {
    Q_OBJECT

private:
    static WakeupQuery query(double wakeUs) { return {kAnatTid, kAnatCpu, kAnatD, anatAt(wakeUs)}; }

    static void checkSum(const WakeupAnatomy& a)
    {
        const int64_t sum = a.timerIrqDelayNs.value_or(0) + a.irqNs.value_or(0) + a.schedulingNs.value_or(0) +
                            a.returnToUserNs.value_or(0) + a.unaccountedNs;
        QCOMPARE(sum, a.latencyNs);
        if (a.complete())
            QVERIFY(std::abs(a.latencyNs - (sum - a.unaccountedNs)) <= kAnatomyToleranceNs);
        int64_t slices = 0;
        for (const AnatomySlice& s : a.tasks)
            slices += s.ns;
        if (a.schedulingNs)
            QCOMPARE(slices, *a.schedulingNs);
        int64_t irqs = 0;
        for (const AnatomyInterrupt& i : a.interrupts)
            irqs += i.ns;
        if (a.irqNs)
            QCOMPARE(irqs, *a.irqNs);
    }

    // The four parts of the complete anatomy @p a: @p timerUs, @p irqUs, @p schedulingUs and @p returnUs µs, which
    // add up (checkSum).
    static void checkParts(const WakeupAnatomy& a, int64_t timerUs, int64_t irqUs, int64_t schedulingUs,
                           int64_t returnUs)
    {
        QCOMPARE(*a.timerIrqDelayNs, timerUs * kAnatUs);
        QCOMPARE(*a.irqNs, irqUs * kAnatUs);
        QCOMPARE(*a.schedulingNs, schedulingUs * kAnatUs);
        QCOMPARE(*a.returnToUserNs, returnUs * kAnatUs);
        checkSum(a);
    }

private slots:
    void cleanWakeup()
    {
        const WakeupAnatomy a = analyzeWakeup(query(16), anatClean());
        QVERIFY2(a.complete(), a.note.c_str());
        QVERIFY(a.consistent);
        QVERIFY(!a.eventsLost);
        QCOMPARE(a.latencyNs, 16 * kAnatUs);
        QCOMPARE(*a.timerNs, anatAt(6));
        QCOMPARE(*a.wakingNs, anatAt(7));
        QCOMPARE(*a.wakeupNs, anatAt(8));
        QCOMPARE(*a.switchInNs, anatAt(13));
        QCOMPARE(a.timerFunction, kAnatHrtimerWakeup);
        QVERIFY(!a.idleAtTimer);
        checkParts(a, 6, 5, 2, 3);
        QCOMPARE(a.unaccountedNs, int64_t(0));
        QVERIFY(a.note.empty());

        QCOMPARE(a.tasks.size(), size_t(1));
        QCOMPARE(a.tasks[0].pid, 50);
        QCOMPARE(a.tasks[0].comm, std::string("bash"));
        QCOMPARE(a.tasks[0].prio, 120);
        QCOMPARE(a.tasks[0].fromNs, anatAt(6));
        QCOMPARE(a.tasks[0].toNs, anatAt(13));

        QCOMPARE(a.interrupts.size(), size_t(2));
        QVERIFY(a.interrupts[0].ownTimer);
        QCOMPARE(a.interrupts[0].ns, 3 * kAnatUs);
        QCOMPARE(a.interrupts[0].count, 1);
        QCOMPARE(a.interrupts[1].kind, CulpritKind::Vector);
        QCOMPARE(a.interrupts[1].name, std::string("local_timer (delivering its own timer)"));
        QVERIFY(a.interrupts[1].ownTimer);
        QCOMPARE(a.interrupts[1].ns, 2 * kAnatUs);
        QCOMPARE(a.interrupts[1].count, 1); // open when the window starts

        QCOMPARE(QString::fromStdString(anatomyVerdict(a)),
                 QString("16.0 us late on CPU 1: timer IRQ 6.0 us after the deadline; 5.0 us in interrupts (its own "
                         "timer's); return to user 3.0 us; 2.0 us waiting for bash (pid 50, nice 0 (OTHER/BATCH)) to "
                         "leave the CPU."));
        // The desktop app's text: the same, in µs.
        QCOMPARE(QString::fromStdString(anatomyVerdict(a, MicroUnit::Sign)),
                 QString::fromUtf8("16.0 µs late on CPU 1: timer IRQ 6.0 µs after the deadline; 5.0 µs in interrupts "
                                   "(its own timer's); return to user 3.0 µs; 2.0 µs waiting for bash (pid 50, nice 0 "
                                   "(OTHER/BATCH)) to leave the CPU."));
        // Its own timer's interrupt is no culprit: only bash is.
        CulpritTable table;
        table.add(a);
        QCOMPARE(table.rows().size(), size_t(1));
        QCOMPARE(table.rows()[0].id, int64_t(50));
    }

    // A second timer interrupt in the clean case (the tick, say: local_timer +11.5..+12.5 while bash runs) is not
    // the one that delivered the thread's timer: it is a culprit like any interrupt.
    //   timer 6; interrupts: own hrtimer 3 + delivering local_timer 2 + the other local_timer 1 = 6;
    //   scheduling: bash +11..+11.5 and +12.5..+13 = 1; return 3          6 + 6 + 1 + 3 = 16
    void anotherTimerInterruptIsACulprit()
    {
        std::vector<TraceEvent> ev = anatClean();
        ev.insert(ev.end() - 1, anatVector(TraceEventType::VectorEntry, anatAt(11.5), 50));
        ev.insert(ev.end() - 1, anatVector(TraceEventType::VectorExit, anatAt(12.5), 50));
        const WakeupAnatomy a = analyzeWakeup(query(16), ev);
        QVERIFY2(a.complete(), a.note.c_str());
        checkParts(a, 6, 6, 1, 3);
        QCOMPARE(a.interrupts.size(), size_t(3));
        int64_t own = 0, other = 0;
        for (const AnatomyInterrupt& i : a.interrupts)
            (i.ownTimer ? own : other) += i.ns;
        QCOMPARE(own, 5 * kAnatUs);
        QCOMPARE(other, 1 * kAnatUs);
        QVERIFY(QString::fromStdString(anatomyVerdict(a)).contains("6.0 us in interrupts (most: local_timer 1.0 us)"));
        CulpritTable table;
        table.add(a);
        const std::vector<CulpritRow> rows = table.rows();
        QCOMPARE(rows.size(), size_t(2)); // bash and the other local_timer, 1 µs each
        for (const CulpritRow& r : rows)
            QCOMPARE(r.totalNs, 1 * kAnatUs);
    }

    void microSignOnlyAfterANumber()
    {
        QCOMPARE(QString::fromStdString(withMicroSign("2.0 us; 3 users; bus 4 us, 5 usb; 6 us")),
                 QString::fromUtf8("2.0 µs; 3 users; bus 4 µs, 5 usb; 6 µs"));
    }

    void callbackNamesOwnTimer()
    {
        AnatomyOptions options;
        options.functionName = [](uint64_t f) {
            return f == kAnatHrtimerWakeup ? "hrtimer_wakeup" : "";
        };
        const WakeupAnatomy a = analyzeWakeup(query(16), anatClean(), options);
        QCOMPARE(a.interrupts[0].name, std::string("hrtimer_wakeup (its own timer)"));
    }

    void higherPriorityTaskInBetween()
    {
        const WakeupAnatomy a = analyzeWakeup(query(303), anatHigherPriority());
        QVERIFY2(a.complete(), a.note.c_str());
        checkParts(a, 5, 5, 290, 3);
        QCOMPARE(a.tasks.size(), size_t(1));
        QCOMPARE(a.tasks[0].pid, 200);
        QCOMPARE(a.tasks[0].comm, std::string("hog"));
        QCOMPARE(a.tasks[0].prio, 39);
        QCOMPARE(a.tasks[0].ns, 290 * kAnatUs);
        const std::vector<AnatomyTaskShare> shares = taskShares(a);
        QCOMPARE(shares.size(), size_t(1));
        QCOMPARE(shares[0].pid, 200);
        QCOMPARE(QString::fromStdString(anatomyVerdict(a)),
                 QString("303.0 us late on CPU 1: 290.0 us waiting for hog (pid 200, RT 60 (FIFO/RR)) to leave the "
                         "CPU; timer IRQ 5.0 us after the deadline; 5.0 us in interrupts (its own timer's); "
                         "return to user 3.0 us."));
    }

    // Two tasks in turn: the hog of the case above sleeps at +150 and wakes "kworker" (pid 300, nice −20 = prio
    // 100), which runs until +250 even though the thread is waiting (the events say what ran, not why).
    //   scheduling: hog +10..+150 = 140, kworker +150..+250 = 100: 240; return +250 → +252 = 2
    void twoTasksInTurn()
    {
        std::vector<TraceEvent> ev = anatHigherPriority();
        ev.pop_back();
        ev.push_back(anatSwitch(anatAt(150), 200, "hog", 39, 1, 300, "kworker", 100));
        ev.push_back(anatSwitch(anatAt(250), 300, "kworker", 100, 1, kAnatTid, "meas", 49));
        const WakeupAnatomy a = analyzeWakeup(query(252), ev);
        QVERIFY2(a.complete(), a.note.c_str());
        QCOMPARE(*a.schedulingNs, 240 * kAnatUs);
        QCOMPARE(a.tasks.size(), size_t(2));
        QCOMPARE(a.tasks[0].pid, 200);
        QCOMPARE(a.tasks[0].ns, 140 * kAnatUs);
        QCOMPARE(a.tasks[1].pid, 300);
        QCOMPARE(a.tasks[1].comm, std::string("kworker"));
        QCOMPARE(a.tasks[1].fromNs, anatAt(150));
        QCOMPARE(a.tasks[1].toNs, anatAt(250));
        QCOMPARE(a.tasks[1].ns, 100 * kAnatUs);
        checkSum(a);
        QVERIFY(QString::fromStdString(anatomyVerdict(a))
                    .contains("240.0 us waiting for hog (pid 200, RT 60 (FIFO/RR)) to leave the CPU (and 1 other "
                              "task)"));
    }

    // Three tasks in turn, none with half the delay: the verdict counts them and names the one with most.
    //   hog +10..+100 = 90, kworker +100..+180 = 80, bash +180..+250 = 70: 240
    void threeTasksNoneWithHalf()
    {
        std::vector<TraceEvent> ev = anatHigherPriority();
        ev.pop_back();
        ev.push_back(anatSwitch(anatAt(100), 200, "hog", 39, 1, 300, "kworker", 100));
        ev.push_back(anatSwitch(anatAt(180), 300, "kworker", 100, 1, 50, "bash", 120));
        ev.push_back(anatSwitch(anatAt(250), 50, "bash", 120, 0, kAnatTid, "meas", 49));
        const WakeupAnatomy a = analyzeWakeup(query(252), ev);
        QVERIFY2(a.complete(), a.note.c_str());
        QCOMPARE(*a.schedulingNs, 240 * kAnatUs);
        checkSum(a);
        const QString verdict = QString::fromStdString(anatomyVerdict(a));
        QVERIFY2(verdict.contains("240.0 us waiting for 3 tasks to leave the CPU (most: hog (pid 200, RT 60 "
                                  "(FIFO/RR)) 90.0 us)"),
                 qPrintable(verdict));
    }

    // Interrupts between the timer and the switch-in, on an idle CPU: the timer fires 20 µs late (the thread's
    // hrtimer at +21), then irq 24 runs +27..+57, softirq NET_RX +58..+78 with irq 25 nested in it +60..+65; the idle
    // task gives way at +80; the clock is read at +84.
    //   timer 21 (idle)
    //   interrupts: own 3, local_timer 2 (delivering it: own), irq 24 30, NET_RX 2 + 13 = 15 (innermost: irq 25's 5 is
    //   not NET_RX's),
    //               irq 25 5: 55
    //   scheduling: the idle task's own time +26..+27, +57..+58, +78..+80 = 4
    //   return: 4                                            21 + 55 + 4 + 4 = 84
    void interruptsBetweenTimerAndWakeup()
    {
        std::vector<TraceEvent> ev;
        ev.push_back(anatSwitch(anatAt(-800), kAnatTid, "meas", 49, 1, 0, "swapper/1", 120));
        anatTimerIrq(ev, 20, 0);
        ev.push_back(anatIrq(TraceEventType::IrqEntry, anatAt(27), 0, 24, "virtio0-input.0"));
        ev.push_back(anatIrq(TraceEventType::IrqExit, anatAt(57), 0, 24));
        ev.push_back(anatIrq(TraceEventType::SoftirqEntry, anatAt(58), 0, 3));
        ev.push_back(anatIrq(TraceEventType::IrqEntry, anatAt(60), 0, 25, "eth1"));
        ev.push_back(anatIrq(TraceEventType::IrqExit, anatAt(65), 0, 25));
        ev.push_back(anatIrq(TraceEventType::SoftirqExit, anatAt(78), 0, 3));
        ev.push_back(anatSwitch(anatAt(80), 0, "swapper/1", 120, 0, kAnatTid, "meas", 49));
        const WakeupAnatomy a = analyzeWakeup(query(84), ev);
        QVERIFY2(a.complete(), a.note.c_str());
        checkParts(a, 21, 55, 4, 4);
        QVERIFY(a.idleAtTimer);

        auto find = [&](CulpritKind kind, int64_t id) {
            return std::find_if(a.interrupts.begin(), a.interrupts.end(),
                                [&](const AnatomyInterrupt& i) { return i.kind == kind && i.id == id && !i.ownTimer; });
        };
        QCOMPARE(a.interrupts.front().name, std::string("irq 24 (virtio0-input.0)"));
        QCOMPARE(find(CulpritKind::Irq, 24)->ns, 30 * kAnatUs);
        QCOMPARE(find(CulpritKind::Softirq, 3)->ns, 15 * kAnatUs);
        QCOMPARE(find(CulpritKind::Softirq, 3)->name, std::string("softirq NET_RX"));
        QCOMPARE(find(CulpritKind::Irq, 25)->ns, 5 * kAnatUs);
        QVERIFY(find(CulpritKind::Vector, int64_t(TraceVector::LocalTimer)) == a.interrupts.end());
        const auto delivering = std::find_if(a.interrupts.begin(), a.interrupts.end(), [](const AnatomyInterrupt& i) {
            return i.kind == CulpritKind::Vector && i.ownTimer;
        });
        QVERIFY(delivering != a.interrupts.end());
        QCOMPARE(delivering->ns, 2 * kAnatUs);

        QVERIFY(taskShares(a).empty()); // the idle task is no culprit
        QCOMPARE(QString::fromStdString(anatomyVerdict(a)),
                 QString("84.0 us late on CPU 1: 55.0 us in interrupts (most: irq 24 (virtio0-input.0) 30.0 us); "
                         "timer IRQ 21.0 us after the deadline (the CPU was idle: that includes the exit from idle); "
                         "4.0 us in the scheduler (switching from idle); return to user 4.0 us."));

        CulpritTable table;
        table.add(a);
        const std::vector<CulpritRow> rows = table.rows();
        QCOMPARE(rows.size(), size_t(3)); // irq 24, NET_RX, irq 25: not the own timer (nor its local_timer), not idle
        QCOMPARE(rows[0].kind, CulpritKind::Irq);
        QCOMPARE(rows[0].id, int64_t(24));
        QCOMPARE(rows[0].totalNs, 30 * kAnatUs);
        QCOMPARE(rows[1].name, std::string("softirq NET_RX"));
    }

    // The higher-priority case on a kernel that does not record switches out of the idle task: the hog is woken
    // from idle at −150 µs and its switch-in is missing, but the timer interrupt names it (common_pid 200): the
    // anatomy is the same, the hog's slice says its switch-in was not seen, and its name comes from its waking.
    void missedSwitchOutOfIdleIsInferred()
    {
        std::vector<TraceEvent> ev;
        ev.push_back(anatSwitch(anatAt(-800), kAnatTid, "meas", 49, 1, 0, "swapper/1", 120));
        ev.push_back(anatWake(TraceEventType::SchedWaking, anatAt(-150), 0, 200, kAnatCpu, "hog", 39));
        ev.push_back(anatWake(TraceEventType::SchedWakeup, anatAt(-149), 0, 200, kAnatCpu, "hog", 39));
        anatTimerIrq(ev, 4, 200);
        ev.push_back(anatSwitch(anatAt(300), 200, "hog", 39, 1, kAnatTid, "meas", 49));
        const WakeupAnatomy a = analyzeWakeup(query(303), ev);
        QVERIFY2(a.complete(), a.note.c_str());
        QVERIFY(!a.idleAtTimer);
        QCOMPARE(*a.schedulingNs, 290 * kAnatUs);
        QCOMPARE(a.tasks.size(), size_t(1));
        QCOMPARE(a.tasks[0].pid, 200);
        QCOMPARE(a.tasks[0].comm, std::string("hog"));
        QCOMPARE(a.tasks[0].prio, 39);
        QVERIFY(!a.tasks[0].switchInSeen);
        checkSum(a);

        // A task switched to mid-window without a record: "bash" (pid 50) runs from the hog's sleep at +150 (its
        // switch-in missing; the hog's switch-out to idle is recorded) until the thread's switch-in at +250. Its
        // first event, a softirq at +200, names it: it is taken to run from +150 on, after the idle task.
        std::vector<TraceEvent> mid = ev;
        mid.pop_back();
        mid.push_back(anatSwitch(anatAt(150), 200, "hog", 39, 1, 0, "swapper/1", 120));
        mid.push_back(anatIrq(TraceEventType::SoftirqEntry, anatAt(200), 50, 1));
        mid.push_back(anatIrq(TraceEventType::SoftirqExit, anatAt(210), 50, 1));
        mid.push_back(anatSwitch(anatAt(250), 50, "bash", 120, 0, kAnatTid, "meas", 49));
        const WakeupAnatomy b = analyzeWakeup(query(253), mid);
        QVERIFY2(b.complete(), b.note.c_str());
        // hog +10..+150 = 140; idle +150..+150 (nothing: bash is taken from the idle switch on); bash +150..+250
        // minus the softirq's 10 = 90; interrupts 3 + 2 + 10 = 15
        QCOMPARE(*b.schedulingNs, 230 * kAnatUs);
        QCOMPARE(*b.irqNs, 15 * kAnatUs);
        const std::vector<AnatomyTaskShare> shares = taskShares(b);
        QCOMPARE(shares.size(), size_t(2));
        QCOMPARE(shares[0].pid, 200);
        QCOMPARE(shares[0].ns, 140 * kAnatUs);
        QCOMPARE(shares[1].pid, 50);
        QCOMPARE(shares[1].comm, std::string("bash"));
        QCOMPARE(shares[1].ns, 90 * kAnatUs);
        checkSum(b);
    }

    // The clean case without its switch-in: the timer part is still known (its events are there); the rest is
    // unknown, and the 10 µs after the timer are unaccounted, not guessed.
    void missingSwitchIsUnknown()
    {
        std::vector<TraceEvent> ev = anatClean();
        ev.pop_back();
        const WakeupAnatomy a = analyzeWakeup(query(16), ev);
        QVERIFY(!a.complete());
        QVERIFY(a.consistent);
        QCOMPARE(*a.timerIrqDelayNs, 6 * kAnatUs);
        QVERIFY(!a.switchInNs);
        QVERIFY(!a.irqNs);
        QVERIFY(!a.schedulingNs);
        QVERIFY(!a.returnToUserNs);
        QCOMPARE(a.unaccountedNs, 10 * kAnatUs);
        QVERIFY2(a.note.find("no sched_switch to thread 100") != std::string::npos, a.note.c_str());
        checkSum(a);
        QVERIFY(QString::fromStdString(anatomyVerdict(a)).contains("10.0 us unaccounted (no sched_switch"));
        CulpritTable table;
        table.add(a);
        QVERIFY(table.rows().empty());
        QCOMPARE(table.wakeups(), uint64_t(1));
    }

    // On the idle CPU of a kernel that records switches into the idle task but none out of it, the note says so.
    void missingSwitchOutOfIdleIsExplained()
    {
        std::vector<TraceEvent> ev;
        ev.push_back(anatSwitch(anatAt(-800), kAnatTid, "meas", 49, 1, 0, "swapper/1", 120));
        anatTimerIrq(ev, 20, 0);
        const WakeupAnatomy a = analyzeWakeup(query(40), ev);
        QVERIFY(!a.switchInNs);
        QVERIFY2(a.note.find("none out of it") != std::string::npos, a.note.c_str());
    }

    // Lost events: the kernel dropped events on CPU 1 between +10 and +200 µs of the higher-priority case. The timer
    // (its events are before the gap) and the return (after it) stay known; how +5..+300 splits between interrupts
    // and tasks does not: 295 µs unaccounted. A gap far before the deadline changes nothing.
    void lostEventsWindow()
    {
        std::vector<TraceEvent> ev = anatHigherPriority();
        ev.push_back(anatLost(anatAt(200), anatAt(10), 37));
        const WakeupAnatomy a = analyzeWakeup(query(303), ev);
        QVERIFY(a.eventsLost);
        QCOMPARE(*a.timerIrqDelayNs, 5 * kAnatUs);
        QCOMPARE(*a.returnToUserNs, 3 * kAnatUs);
        QVERIFY(!a.irqNs);
        QVERIFY(!a.schedulingNs);
        QCOMPARE(a.unaccountedNs, 295 * kAnatUs);
        QVERIFY2(a.note.find("lost events on CPU 1") != std::string::npos, a.note.c_str());
        checkSum(a);
        CulpritTable table;
        table.add(a);
        QVERIFY(table.rows().empty()); // what was seen of the hog would undercount it

        std::vector<TraceEvent> early = anatHigherPriority();
        early.push_back(anatLost(anatAt(-600), anatAt(-700), 5));
        const WakeupAnatomy b = analyzeWakeup(query(303), early);
        QVERIFY(!b.eventsLost);
        QVERIFY2(b.complete(), b.note.c_str());
        QCOMPARE(*b.schedulingNs, 290 * kAnatUs);

        // A loss on another CPU is not this wake-up's.
        std::vector<TraceEvent> other = anatHigherPriority();
        other.push_back(anatLost(anatAt(200), anatAt(10), 37, 0));
        QVERIFY(analyzeWakeup(query(303), other).complete());
    }

    // A gap that covers the whole wake-up is known only from the Lost marker after it, milliseconds later: the
    // window wakeupWindow() cuts reaches it (past another CPU's events), and the anatomy knows the events were lost.
    void windowReachesTheLostMarker()
    {
        std::vector<TraceEvent> ev;
        ev.push_back(anatSwitch(anatAt(-800), kAnatTid, "meas", 49, 1, 0, "swapper/1", 120));
        ev.push_back(anatSwitch(anatAt(2000), 7, "a", 120, 1, 8, "b", 120, 0)); // CPU 0
        ev.push_back(anatLost(anatAt(5000), anatAt(-500), 0));                  // CPU 1: the gap −500 … +5000
        ev.push_back(anatSwitch(anatAt(6000), 0, "swapper/1", 120, 0, 9, "c", 120));
        const WakeupQuery q = query(40);
        const std::span<const TraceEvent> w = wakeupWindow(ev, q, 1000 * kAnatUs);
        QCOMPARE(w.size(), size_t(3)); // the switch at −800, CPU 0's event, the marker; not what follows it
        QCOMPARE(w.back().type, TraceEventType::Lost);
        const WakeupAnatomy a = analyzeWakeup(q, w);
        QVERIFY(a.eventsLost);
        QVERIFY2(a.note.find("lost") != std::string::npos, a.note.c_str());
        QVERIFY(!analyzeWakeup(q, traceWindow(ev, anatAt(-1000), anatAt(42))).eventsLost); // a plain cut misses it
    }

    // A gap between the switch-in and the wake time hides what the return to user did.
    void lostEventsAfterSwitchIn()
    {
        std::vector<TraceEvent> ev = anatClean();
        ev.push_back(anatLost(anatAt(15), anatAt(13.5), 0));
        const WakeupAnatomy a = analyzeWakeup(query(16), ev);
        QVERIFY(!a.returnToUserNs);
        QCOMPARE(*a.schedulingNs, 2 * kAnatUs);
        QCOMPARE(a.unaccountedNs, 3 * kAnatUs);
        checkSum(a);
    }

    void culpritTableOverManyWakeups()
    {
        CulpritTable table;
        table.add(analyzeWakeup(query(303), anatHigherPriority())); // hog 290
        std::vector<TraceEvent> shorter = anatHigherPriority();
        shorter.back().ts = anatAt(100); // hog sleeps at +100: 90 µs of it
        table.add(analyzeWakeup(query(103), shorter));
        table.add(analyzeWakeup(query(16), anatClean())); // bash 2
        QCOMPARE(table.wakeups(), uint64_t(3));
        const std::vector<CulpritRow> rows = table.rows();
        QCOMPARE(rows[0].kind, CulpritKind::Task);
        QCOMPARE(rows[0].id, int64_t(200));
        QCOMPARE(rows[0].name, std::string("hog"));
        QCOMPARE(rows[0].prio, 39);
        QCOMPARE(rows[0].wakeups, uint64_t(2));
        QCOMPARE(rows[0].totalNs, 380 * kAnatUs);
        QCOMPARE(rows[0].worstNs, 290 * kAnatUs);
        // Then bash (2 µs once). The local_timer of all three delivered the thread's own timer: no row.
        QCOMPARE(rows[1].kind, CulpritKind::Task);
        QCOMPARE(rows[1].id, int64_t(50));
        QCOMPARE(rows[1].totalNs, 2 * kAnatUs);
        QCOMPARE(rows.size(), size_t(2));
        table.clear();
        QVERIFY(table.rows().empty());
        QCOMPARE(table.wakeups(), uint64_t(0));
    }

    // The events of the higher-priority case in CPU-by-CPU order (as a reader hands them on unsorted, with another
    // CPU's events between them) give the same anatomy.
    void unsortedInputIsSorted()
    {
        std::vector<TraceEvent> ev = anatHigherPriority();
        ev.push_back(anatSwitch(anatAt(50), 7, "a", 120, 1, 8, "b", 120, 0));
        std::reverse(ev.begin(), ev.end());
        const WakeupAnatomy a = analyzeWakeup(query(303), ev);
        QVERIFY2(a.complete(), a.note.c_str());
        QCOMPARE(*a.schedulingNs, 290 * kAnatUs);

        std::vector<TraceEvent> sorted = ev;
        sortTraceEvents(sorted);
        QVERIFY(std::is_sorted(sorted.begin(), sorted.end(),
                               [](const TraceEvent& x, const TraceEvent& y) { return x.ts < y.ts; }));
        const std::span<const TraceEvent> w = traceWindow(sorted, anatAt(4), anatAt(8));
        QCOMPARE(w.size(), size_t(5)); // local_timer_entry +4 … hrtimer_expire_exit +8, bounds included
        QCOMPARE(w.front().ts, anatAt(4));
        QCOMPARE(w.back().ts, anatAt(8));
        QVERIFY(traceWindow(sorted, anatAt(1000), anatAt(2000)).empty());
    }

    // The thread held its CPU since before the deadline (clock_nanosleep found the deadline passed): no part.
    void noSleepForThisDeadline()
    {
        std::vector<TraceEvent> ev;
        ev.push_back(anatSwitch(anatAt(-300), 50, "bash", 120, 0, kAnatTid, "meas", 49));
        const WakeupAnatomy a = analyzeWakeup(query(40), ev);
        QVERIFY(!a.timerIrqDelayNs && !a.irqNs && !a.schedulingNs && !a.returnToUserNs);
        QCOMPARE(a.unaccountedNs, 40 * kAnatUs);
        QVERIFY2(a.note.find("never slept for it") != std::string::npos, a.note.c_str());
        QVERIFY(QString::fromStdString(anatomyVerdict(a)).startsWith("40.0 us late on CPU 1: no anatomy:"));
    }

    // The same, but the kernel lost events after that switch-in: the thread may well have slept and woken in the
    // gap, so nothing is concluded.
    void noSleepUnlessEventsWereLost()
    {
        std::vector<TraceEvent> ev;
        ev.push_back(anatSwitch(anatAt(-300), 50, "bash", 120, 0, kAnatTid, "meas", 49));
        ev.push_back(anatLost(anatAt(30), anatAt(-250), 120));
        const WakeupAnatomy a = analyzeWakeup(query(40), ev);
        QVERIFY(a.eventsLost);
        QVERIFY(!a.timerIrqDelayNs && !a.irqNs && !a.schedulingNs && !a.returnToUserNs);
        QVERIFY2(a.note.find("never slept") == std::string::npos, a.note.c_str());
        QVERIFY2(a.note.find("lost events on CPU 1") != std::string::npos, a.note.c_str());
        checkSum(a);
    }

    // Preempted while runnable at the deadline (it had not gone to sleep): there is no timer to wait for, its delay
    // is all scheduling: "hog" runs from −50 (preempting the thread) to +120.
    void runnableAtDeadline()
    {
        std::vector<TraceEvent> ev;
        ev.push_back(anatSwitch(anatAt(-50), kAnatTid, "meas", 49, 0, 200, "hog", 39));
        ev.push_back(anatSwitch(anatAt(120), 200, "hog", 39, 1, kAnatTid, "meas", 49));
        const WakeupAnatomy a = analyzeWakeup(query(125), ev);
        QVERIFY(a.runnableAtDeadline);
        QVERIFY2(a.complete(), a.note.c_str());
        QCOMPARE(*a.timerIrqDelayNs, int64_t(0));
        QCOMPARE(*a.schedulingNs, 120 * kAnatUs);
        QCOMPARE(*a.returnToUserNs, 5 * kAnatUs);
        checkSum(a);
    }

    // A timer far before the deadline cannot be this wake-up's: the anatomy says the events contradict it.
    void inconsistentEventsAreRejected()
    {
        std::vector<TraceEvent> ev;
        ev.push_back(anatSwitch(anatAt(-800), kAnatTid, "meas", 49, 1, 50, "bash", 120));
        ev.push_back(anatTimer(TraceEventType::HrtimerExpireEntry, anatAt(-1), 50));
        ev.push_back(anatWake(TraceEventType::SchedWaking, anatAt(-0.5), 50));
        ev.push_back(anatTimer(TraceEventType::HrtimerExpireExit, anatAt(1), 50));
        ev.push_back(anatSwitch(anatAt(13), 50, "bash", 120, 0, kAnatTid, "meas", 49));
        // The waking 0.5 µs before the deadline is within the tolerance; its timer, 1 µs before, too: consistent.
        QVERIFY(analyzeWakeup(query(16), ev).consistent);
        ev[1].ts = anatAt(-3); // 3 µs before the deadline: beyond kAnatomyToleranceNs (2 µs)
        ev[2].ts = anatAt(-1.5);
        const WakeupAnatomy a = analyzeWakeup(query(16), ev);
        QVERIFY(!a.consistent);
        QVERIFY(!a.timerIrqDelayNs && !a.irqNs && !a.schedulingNs && !a.returnToUserNs);
        QCOMPARE(a.unaccountedNs, 16 * kAnatUs);
        QVERIFY(QString::fromStdString(anatomyVerdict(a)).contains("before the deadline"));
    }

    // Woken by another task (a signal, a futex), not by its timer: the timer part is unknown.
    void wokenOutsideItsTimer()
    {
        std::vector<TraceEvent> ev;
        ev.push_back(anatSwitch(anatAt(-800), kAnatTid, "meas", 49, 1, 50, "bash", 120));
        ev.push_back(anatWake(TraceEventType::SchedWaking, anatAt(10), 50));
        ev.push_back(anatSwitch(anatAt(12), 50, "bash", 120, 0, kAnatTid, "meas", 49));
        const WakeupAnatomy a = analyzeWakeup(query(14), ev);
        QVERIFY(!a.timerIrqDelayNs);
        QCOMPARE(*a.schedulingNs, 2 * kAnatUs);
        QCOMPARE(*a.returnToUserNs, 2 * kAnatUs);
        QCOMPARE(a.unaccountedNs, 10 * kAnatUs);
        QVERIFY2(a.note.find("not by its own timer") != std::string::npos, a.note.c_str());
        checkSum(a);
    }

    void emptyInput()
    {
        const WakeupAnatomy a = analyzeWakeup(query(16), {});
        QVERIFY(!a.timerIrqDelayNs && !a.irqNs && !a.schedulingNs && !a.returnToUserNs);
        QCOMPARE(a.unaccountedNs, 16 * kAnatUs);
        QVERIFY(a.consistent);
        checkSum(a);
    }

    void kernelPrioDescriptions()
    {
        QCOMPARE(QString::fromStdString(describeKernelPrio(49)), QString("RT 50 (FIFO/RR)"));
        QCOMPARE(QString::fromStdString(describeKernelPrio(120)), QString("nice 0 (OTHER/BATCH)"));
        QCOMPARE(QString::fromStdString(describeKernelPrio(139)), QString("nice 19 (OTHER/BATCH)"));
        QCOMPARE(QString::fromStdString(describeKernelPrio(-1)), QString("DEADLINE"));
        QCOMPARE(QString(softirqName(9)), QString("RCU"));
        QCOMPARE(QString(softirqName(12)), QString("?"));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestWakeupAnatomy)
#include "tst_wakeup_anatomy.moc"
