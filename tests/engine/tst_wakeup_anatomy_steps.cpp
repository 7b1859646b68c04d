// ctest: parallel. Pure analysis of hand-made events.
// The steps of analyzeWakeup() (engine/pipeline/wakeup_anatomy_steps.h), each on a short event sequence written by
// hand: the lost spans, the switch-in, the note when it is missing, the waking, the timer that woke the thread, the
// task names and the sweep that splits the wait into interrupts and tasks. The whole analysis on the same kind of
// sequences is tst_wakeup_anatomy.cpp.
#include "engine/pipeline/wakeup_anatomy_steps.h"

#include "tests/common/test_main.h"
#include "tests/common/trace_event_util.h"

#include <QtTest>

#include <climits>
#include <vector>

using namespace rtscope;
using namespace rtscope::anatomy;

namespace {

constexpr int32_t kStTid = 100; // the measuring thread
constexpr int kStCpu = 1;
constexpr int64_t kStUs = 1000;

TraceEvent stEvent(TraceEventType type, int64_t us, int32_t current, int cpu = kStCpu)
{
    return test::traceEvent(type, us * kStUs, current, cpu);
}

TraceEvent stSwitch(int64_t us, int32_t prev, const char* prevComm, int64_t prevState, int32_t next,
                    const char* nextComm, int cpu = kStCpu)
{
    return test::traceSwitch(us * kStUs, cpu, {prev, prevComm, prev == kStTid ? 49 : 120}, prevState,
                             {next, nextComm, next == kStTid ? 49 : 120});
}

TraceEvent stWake(TraceEventType type, int64_t us, int32_t current, int32_t pid = kStTid, int cpu = kStCpu)
{
    TraceEvent e = stEvent(type, us, current, cpu);
    e.wake.task.pid = pid;
    setTraceText(e.wake.task.comm, pid == kStTid ? "meas" : "other");
    e.wake.task.prio = 49;
    return e;
}

TraceEvent stTimer(TraceEventType type, int64_t us, int32_t current, uint64_t timer, int cpu = kStCpu)
{
    TraceEvent e = stEvent(type, us, current, cpu);
    e.hrtimer.timer = timer;
    e.hrtimer.function = type == TraceEventType::HrtimerExpireEntry ? 0xF100 : 0;
    return e;
}

TraceEvent stIrq(TraceEventType type, int64_t us, int32_t current, int number)
{
    TraceEvent e = stEvent(type, us, current);
    e.irq.number = number;
    setTraceText(e.irq.name, "eth0");
    return e;
}

TraceEvent stLost(int64_t us, int64_t sinceUs, int cpu)
{
    TraceEvent e = stEvent(TraceEventType::Lost, us, 0, cpu);
    e.lost.sinceNs = sinceUs * kStUs;
    e.lost.count = 7;
    return e;
}

} // namespace

class TestWakeupAnatomySteps : public QObject {
    Q_OBJECT

private slots:
    void lostGapsKeepTheirCpuAndSpan()
    {
        const std::vector<TraceEvent> ev = {stEvent(TraceEventType::IrqEntry, 5, 0), stLost(20, 10, 1),
                                            stLost(40, 0, 2)};
        const std::vector<LostGap> gaps = lostGaps(ev);
        QCOMPARE(gaps.size(), size_t(2));
        QCOMPARE(gaps[0].cpu, 1);
        QCOMPARE(gaps[0].fromNs, 10 * kStUs);
        QCOMPARE(gaps[0].toNs, 20 * kStUs);
        QCOMPARE(gaps[1].fromNs, INT64_MIN); // the kernel did not say since when: everything before is suspect
        QVERIFY(gapOverlaps(gaps, 1, 15 * kStUs, 30 * kStUs));
        QVERIFY(!gapOverlaps(gaps, 1, 20 * kStUs, 30 * kStUs)); // touching is not overlapping
        QVERIFY(!gapOverlaps(gaps, 3, 0, 100 * kStUs));         // another CPU
        QVERIFY(gapOverlaps(gaps, 2, -1'000'000 * kStUs, -999'000 * kStUs));
    }

    void switchInIsTheLastOneBeforeTheWakeTime()
    {
        // Asleep at 10, switched in at 50 (by "hog", which ran since 10), wake time 55, back to sleep at 56.
        const std::vector<TraceEvent> ev = {stSwitch(10, kStTid, "meas", 1, 200, "hog"),
                                            stSwitch(50, 200, "hog", 0, kStTid, "meas"),
                                            stSwitch(56, kStTid, "meas", 1, 0, "swapper/1")};
        const SwitchIn sw = findSwitchIn(ev, ev.size(), kStTid, 55 * kStUs);
        QCOMPARE(sw.in, std::optional<size_t>(1));
        QCOMPARE(sw.outBefore, std::optional<size_t>(0));

        // A switch-out at or before the wake time after the last switch-in: the switch-in that let it read its
        // clock is missing, so none is reported.
        const SwitchIn missing = findSwitchIn(ev, ev.size(), kStTid, 57 * kStUs);
        QVERIFY(!missing.in);
        QVERIFY(!missing.outBefore);
        // Only [0, end) is searched.
        QVERIFY(!findSwitchIn(ev, 1, kStTid, 55 * kStUs).in);
    }

    void missingSwitchInNoteNamesTheIdleQuirk()
    {
        const std::vector<TraceEvent> intoIdle = {stSwitch(10, kStTid, "meas", 1, 0, "swapper/1")};
        const std::string quirk = missingSwitchInNote(intoIdle, intoIdle.size(), kStTid, kStCpu);
        QVERIFY2(quirk.starts_with("no sched_switch to thread 100 before its wake time in the events"), quirk.c_str());
        QVERIFY2(quirk.find("switches into the idle task of CPU 1 but none out of it") != std::string::npos,
                 quirk.c_str());

        // A switch out of the idle task is recorded: the quirk is not the reason.
        std::vector<TraceEvent> both = intoIdle;
        both.push_back(stSwitch(20, 0, "swapper/1", 0, 200, "hog"));
        const std::string plain = missingSwitchInNote(both, both.size(), kStTid, kStCpu);
        QCOMPARE(plain, std::string("no sched_switch to thread 100 before its wake time in the events"));
        // On another CPU the idle switches say nothing about this one.
        QVERIFY(missingSwitchInNote(intoIdle, intoIdle.size(), kStTid, 3).find("idle") == std::string::npos);
    }

    void wakingIsTheFirstOfTheThreadFromTheStart()
    {
        const std::vector<TraceEvent> ev = {stWake(TraceEventType::SchedWaking, 1, 0),      // before the search starts
                                            stWake(TraceEventType::SchedWaking, 5, 0, 300), // another task
                                            stWake(TraceEventType::SchedWaking, 6, 0),      // this one
                                            stWake(TraceEventType::SchedWakeup, 7, 0, 300), // another task's wakeup
                                            stWake(TraceEventType::SchedWakeup, 8, 0),      // its wakeup
                                            stWake(TraceEventType::SchedWaking, 9, 0)};     // a later one
        const Waking wk = findWaking(ev, 1, ev.size(), kStTid);
        QCOMPARE(wk.waking, std::optional<size_t>(2));
        QCOMPARE(wk.wakeup, std::optional<size_t>(4));
        // The wakeup only up to the end of the search.
        QVERIFY(!findWaking(ev, 1, 4, kStTid).wakeup);
        QVERIFY(!findWaking(ev, 1, 2, kStTid).waking);
    }

    void ownTimerIsTheInnermostExpiryStillOpen()
    {
        constexpr uint64_t kOwn = 0xA000, kOther = 0xB000;
        // Its timer's expiry opens at 10; another timer's expiry runs 11..12 and is closed; the waking at 13.
        std::vector<TraceEvent> ev = {stSwitch(1, 200, "hog", 0, 300, "other"),
                                      stTimer(TraceEventType::HrtimerExpireEntry, 10, 300, kOwn),
                                      stTimer(TraceEventType::HrtimerExpireEntry, 11, 300, kOther),
                                      stTimer(TraceEventType::HrtimerExpireExit, 12, 300, kOther),
                                      stTimer(TraceEventType::HrtimerExpireEntry, 12, 0, 0xC000, 2), // other CPU
                                      stWake(TraceEventType::SchedWaking, 13, 300)};
        QCOMPARE(findOwnTimer(ev, 5), std::optional<size_t>(1));

        // Its expiry closed before the waking: not woken by a timer.
        ev.insert(ev.begin() + 5, stTimer(TraceEventType::HrtimerExpireExit, 12, 300, kOwn));
        QVERIFY(!findOwnTimer(ev, 6));

        // A switch between the expiry and the waking ends the search: no expiry is open across a switch.
        std::vector<TraceEvent> switched = {stTimer(TraceEventType::HrtimerExpireEntry, 10, 300, kOwn),
                                            stSwitch(11, 300, "other", 0, 200, "hog"),
                                            stWake(TraceEventType::SchedWaking, 12, 200)};
        QVERIFY(!findOwnTimer(switched, 2));
    }

    void taskNamesKeepTheLastSeen()
    {
        const std::vector<TraceEvent> ev = {stSwitch(1, 200, "old-name", 0, 300, "other"),
                                            stSwitch(2, 300, "other", 0, 200, "new-name"),
                                            stWake(TraceEventType::SchedWaking, 3, 200, kStTid)};
        const TaskNames names = taskNames(ev);
        QCOMPARE(names.size(), size_t(3));
        QCOMPARE(names.at(200).first, std::string("new-name"));
        QCOMPARE(names.at(200).second, 120);
        QCOMPARE(names.at(kStTid).first, std::string("meas"));
        QVERIFY(isInterruptEntry(TraceEventType::VectorEntry) && !isInterruptEntry(TraceEventType::VectorExit));
        QVERIFY(isInterruptExit(TraceEventType::SoftirqExit) && !isInterruptExit(TraceEventType::SchedSwitch));
    }

    void sweepSplitsTheWaitIntoInterruptsAndTasks()
    {
        // "hog" (pid 200) holds CPU 1 from 0; the wait runs 10..100 (timer to switch-in). An IRQ 30..40 interrupts
        // it; at 60 an event in the context of pid 300 shows a switch the kernel did not record; the thread is
        // switched in at 100.
        const std::vector<TraceEvent> ev = {
            stSwitch(0, 0, "swapper/1", 0, 200, "hog"), stIrq(TraceEventType::IrqEntry, 30, 200, 24),
            stIrq(TraceEventType::IrqExit, 40, 200, 24), stWake(TraceEventType::SchedWaking, 60, 300, 400),
            stSwitch(100, 300, "other", 0, kStTid, "meas")};
        const SchedulingSweep sweep = sweepSchedulingWindow(ev, 4, kStCpu, 10 * kStUs, 100 * kStUs, {}, {});
        QCOMPARE(sweep.irqNs, 10 * kStUs);
        QCOMPARE(sweep.taskNs, 80 * kStUs);
        QCOMPARE(sweep.irqNs + sweep.taskNs, 90 * kStUs);
        QCOMPARE(sweep.interrupts.size(), size_t(1));
        QCOMPARE(sweep.interrupts[0].kind, CulpritKind::Irq);
        QCOMPARE(sweep.interrupts[0].name, std::string("irq 24 (eth0)"));
        QCOMPARE(sweep.interrupts[0].count, 1);
        QVERIFY(!sweep.interrupts[0].ownTimer);
        // The hog from the start of the wait to the CPU's event before the unrecorded switch (40), then pid 300.
        QCOMPARE(sweep.tasks.size(), size_t(2));
        QCOMPARE(sweep.tasks[0].pid, 200);
        QCOMPARE(sweep.tasks[0].comm, std::string("hog"));
        QCOMPARE(sweep.tasks[0].fromNs, 10 * kStUs);
        QCOMPARE(sweep.tasks[0].toNs, 40 * kStUs);
        QCOMPARE(sweep.tasks[0].ns, 20 * kStUs); // 10..30 (30..40 was the IRQ's)
        QVERIFY(sweep.tasks[0].switchInSeen);
        QCOMPARE(sweep.tasks[1].pid, 300);
        QCOMPARE(sweep.tasks[1].comm, std::string("other")); // named by the switch at 100
        QCOMPARE(sweep.tasks[1].ns, 60 * kStUs);
        QVERIFY(!sweep.tasks[1].switchInSeen);
    }

    void sweepCountsItsOwnTimerApart()
    {
        // The thread's own timer expiry at 10 inside a hard IRQ that entered at 5 (it delivers the timer): both are
        // its own timer's, not culprits'.
        constexpr uint64_t kOwn = 0xA000;
        const std::vector<TraceEvent> ev = {stSwitch(0, 0, "swapper/1", 0, 200, "hog"),
                                            stIrq(TraceEventType::IrqEntry, 5, 200, 0),
                                            stTimer(TraceEventType::HrtimerExpireEntry, 10, 200, kOwn),
                                            stTimer(TraceEventType::HrtimerExpireExit, 14, 200, kOwn),
                                            stIrq(TraceEventType::IrqExit, 16, 200, 0),
                                            stSwitch(30, 200, "hog", 0, kStTid, "meas")};
        const SchedulingSweep sweep =
            sweepSchedulingWindow(ev, 5, kStCpu, 10 * kStUs, 30 * kStUs, {10 * kStUs, kStCpu}, {});
        QCOMPARE(sweep.irqNs, 6 * kStUs);
        QCOMPARE(sweep.taskNs, 14 * kStUs);
        QCOMPARE(sweep.interrupts.size(), size_t(2));
        for (const AnatomyInterrupt& i : sweep.interrupts)
            QVERIFY2(i.ownTimer, i.name.c_str());
        QCOMPARE(sweep.interrupts[0].ns, 4 * kStUs); // the callback
        QCOMPARE(sweep.interrupts[1].ns, 2 * kStUs); // the IRQ after it
        QVERIFY2(sweep.interrupts[1].name.find("delivering its own timer") != std::string::npos,
                 sweep.interrupts[1].name.c_str());
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestWakeupAnatomySteps)
#include "tst_wakeup_anatomy_steps.moc"
