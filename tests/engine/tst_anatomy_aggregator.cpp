// ctest: parallel. Pure aggregation of hand-made events.
// The anatomy aggregator (engine/pipeline/anatomy_aggregator.h) on wake-ups and events written by hand: when a
// wake-up is analysed (its CPU's events past its wake time are in, in whatever order batches and samples come),
// what is kept (top N, the latest over a threshold, with their windows), the bounds (window, pending, lists) and
// what they count, lost markers, reset and clear.
//
// Every wake-up k is one cycle of aggCycle() on its CPU (times in µs from its deadline D_k = kAggBase + k ms):
//   "hog" (pid 200, nice 0) holds the CPU; local_timer_entry at t, the thread's hrtimer t+1 … t+4 (waking t+2,
//   wakeup t+3), local_timer_exit t+5; the hog is switched out for the thread at `in`; the thread reads its clock
//   at `wake` and sleeps again at wake+5 (the event that tells the aggregator its CPU is past the wake time).
//   timer IRQ delay t+1, interrupts 3 (its own timer) + 1 (local_timer, delivering it: also its own) = 4,
//   scheduling (the hog) in − (t+5),
//   return to user wake − in: together `wake`, the latency.
#include "engine/pipeline/anatomy_aggregator.h"

#include "tests/common/test_main.h"
#include "tests/common/trace_event_util.h"

#include <QtTest>

#include <algorithm>
#include <vector>

using namespace rtscope;

namespace {

constexpr int32_t kAggTid = 100;
constexpr int32_t kAggHog = 200;
constexpr int kAggCpu = 1;
constexpr int64_t kAggUs = 1000;
constexpr int64_t kAggMs = 1'000'000;
constexpr int64_t kAggBase = 1'000'000'000; // 1 s into the trace
constexpr int64_t kAggLookback = 3 * kAggMs;

int64_t aggDeadline(int k)
{
    return kAggBase + int64_t(k) * kAggMs;
}

TraceEvent aggEvent(TraceEventType type, int64_t ts, int32_t current, int cpu)
{
    return test::traceEvent(type, ts, current, cpu);
}

TraceEvent aggSwitch(int64_t ts, int32_t prev, const char* prevComm, int64_t prevState, int32_t next,
                     const char* nextComm, int cpu)
{
    return test::traceSwitch(ts, cpu, {prev, prevComm, prev == kAggHog ? 120 : 49}, prevState,
                             {next, nextComm, next == kAggHog ? 120 : 49});
}

TraceEvent aggWake(TraceEventType type, int64_t ts, int32_t current, int32_t tid, int cpu)
{
    return test::traceWake(type, ts, current, cpu, {tid, "meas", 49}, cpu);
}

TraceEvent aggTimer(TraceEventType type, int64_t ts, int32_t current, int cpu, uint64_t timer)
{
    TraceEvent e = aggEvent(type, ts, current, cpu);
    e.hrtimer.timer = timer;
    e.hrtimer.function = type == TraceEventType::HrtimerExpireEntry ? 0xF100 : 0;
    return e;
}

TraceEvent aggVector(TraceEventType type, int64_t ts, int32_t current, int cpu)
{
    TraceEvent e = aggEvent(type, ts, current, cpu);
    e.irq.vector = TraceVector::LocalTimer;
    e.irq.number = 236;
    return e;
}

TraceEvent aggLost(int64_t ts, int64_t since, uint64_t count, int cpu)
{
    TraceEvent e = aggEvent(TraceEventType::Lost, ts, 0, cpu);
    e.lost.sinceNs = since;
    e.lost.count = count;
    return e;
}

struct AggCycle {
    std::vector<TraceEvent> events; ///< in time order; the last one is the sleep after the wake-up
    LatencySample sample;
};

// Wake-up k of thread @p tid on @p cpu, as described at the top; @p t, @p in, @p wake in µs from its deadline.
AggCycle aggCycle(int k, int t, int in, int wake, int32_t tid = kAggTid, int cpu = kAggCpu)
{
    const int64_t d = aggDeadline(k);
    auto at = [d](int us) {
        return d + us * kAggUs;
    };
    const uint64_t timer = 0xA000 + uint64_t(tid);
    AggCycle c;
    c.events.push_back(aggVector(TraceEventType::VectorEntry, at(t), kAggHog, cpu));
    c.events.push_back(aggTimer(TraceEventType::HrtimerExpireEntry, at(t + 1), kAggHog, cpu, timer));
    c.events.push_back(aggWake(TraceEventType::SchedWaking, at(t + 2), kAggHog, tid, cpu));
    c.events.push_back(aggWake(TraceEventType::SchedWakeup, at(t + 3), kAggHog, tid, cpu));
    c.events.push_back(aggTimer(TraceEventType::HrtimerExpireExit, at(t + 4), kAggHog, cpu, timer));
    c.events.push_back(aggVector(TraceEventType::VectorExit, at(t + 5), kAggHog, cpu));
    c.events.push_back(aggSwitch(at(in), kAggHog, "hog", 0, tid, "meas", cpu));
    c.events.push_back(aggSwitch(at(wake + 5), tid, "meas", 1, kAggHog, "hog", cpu));
    c.sample.seq = uint64_t(k);
    c.sample.deadlineNs = d;
    c.sample.wakeNs = at(wake);
    c.sample.latencyNs = wake * kAggUs;
    return c;
}

// The switch that puts the thread to sleep before its first cycle, 2 ms before deadline 0.
std::vector<TraceEvent> aggPrologue(int32_t tid = kAggTid, int cpu = kAggCpu)
{
    return {aggSwitch(aggDeadline(0) - 2 * kAggMs, tid, "meas", 1, kAggHog, "hog", cpu)};
}

void aggFeed(AnatomyAggregator& agg, const std::vector<TraceEvent>& events)
{
    agg.addEvents(std::span<const TraceEvent>(events.data(), events.size()));
}

void aggWakeup(AnatomyAggregator& agg, const LatencySample& s, size_t thread = 0, int32_t tid = kAggTid,
               int cpu = kAggCpu)
{
    agg.addWakeups(thread, tid, cpu, std::span<const LatencySample>(&s, 1));
}

// seen = analysed + not analysed + pending, always.
void aggCheckCounts(const AnatomyFigures& f)
{
    QCOMPARE(f.wakeupsSeen, f.wakeupsAnalysed + f.wakeupsNotAnalysed + f.wakeupsPending);
}

std::vector<uint64_t> aggSeqs(const std::vector<TracedWakeup>& list)
{
    std::vector<uint64_t> out;
    for (const TracedWakeup& t : list)
        out.push_back(t.seq);
    return out;
}

} // namespace

class TestAnatomyAggregator : public QObject {
    Q_OBJECT

private slots:
    void lookbackIsAFewPeriods()
    {
        QCOMPARE(anatomyLookbackNs(1 * kAggMs), 3 * kAggMs);
        QCOMPARE(anatomyLookbackNs(100 * kAggUs), 1 * kAggMs);      // at least 1 ms
        QCOMPARE(anatomyLookbackNs(10'000 * kAggMs), 100 * kAggMs); // at most 100 ms
    }

    // Sample first: it waits until an event of its CPU later than its wake time (+ the tolerance) arrives; the
    // switch-in alone (before the wake time) is not enough. Then it is analysed, with the parts worked out above.
    void wakeupWaitsForItsEvents()
    {
        AnatomyAggregator agg;
        agg.configure(0, 10, kAggLookback);
        const AggCycle c = aggCycle(0, 5, 40, 43);
        aggWakeup(agg, c.sample);
        QCOMPARE(agg.pendingWakeups(), size_t(1));
        std::vector<TraceEvent> upToSwitchIn = aggPrologue();
        upToSwitchIn.insert(upToSwitchIn.end(), c.events.begin(), c.events.end() - 1);
        aggFeed(agg, upToSwitchIn);
        AnatomyFigures f = agg.figures();
        QCOMPARE(f.wakeupsPending, uint64_t(1));
        QCOMPARE(f.wakeupsAnalysed, uint64_t(0));
        aggCheckCounts(f);
        // An event on another CPU, however late, does not make it ready.
        aggFeed(agg, {aggSwitch(aggDeadline(5), 7, "other", 1, 0, "swapper/0", 0)});
        QCOMPARE(agg.pendingWakeups(), size_t(1));
        // Its own sleep, 5 µs after the wake time.
        aggFeed(agg, {c.events.back()});
        QCOMPARE(agg.pendingWakeups(), size_t(0));
        f = agg.figures();
        QCOMPARE(f.wakeupsSeen, uint64_t(1));
        QCOMPARE(f.wakeupsAnalysed, uint64_t(1));
        QCOMPARE(f.wakeupsComplete, uint64_t(1));
        QCOMPARE(f.wakeupsWithLoss, uint64_t(0));
        aggCheckCounts(f);
        QCOMPARE(f.worst.size(), size_t(1));
        const WakeupAnatomy& a = f.worst[0].anatomy;
        QVERIFY2(a.complete(), a.note.c_str());
        QCOMPARE(a.latencyNs, 43 * kAggUs);
        QCOMPARE(*a.timerIrqDelayNs, 6 * kAggUs);
        QCOMPARE(*a.irqNs, 4 * kAggUs);
        QCOMPARE(*a.schedulingNs, 30 * kAggUs);
        QCOMPARE(*a.returnToUserNs, 3 * kAggUs);
        QCOMPARE(a.unaccountedNs, int64_t(0));
        QCOMPARE(f.worst[0].seq, uint64_t(0));
        QCOMPARE(f.worst[0].thread, size_t(0));
        // Its window: from the lookback before the deadline to the first event of its CPU after the wake time
        // (the prologue, the cycle; not the other CPU's event 5 ms later).
        QCOMPARE(f.worst[0].events.size(), c.events.size() + 1);
        QCOMPARE(f.worst[0].events.front().ts, aggPrologue().front().ts);
        QCOMPARE(f.worst[0].events.back().ts, c.events.back().ts);
        QCOMPARE(f.worst[0].eventsOmitted, size_t(0));
        // The hog only: the local_timer vector delivered the thread's own timer.
        QCOMPARE(f.culprits.size(), size_t(1));
        QCOMPARE(f.culprits[0].kind, CulpritKind::Task);
        QCOMPARE(f.culprits[0].id, int64_t(kAggHog));
        QCOMPARE(f.culprits[0].name, std::string("hog"));
        QCOMPARE(f.culprits[0].totalNs, 30 * kAggUs);
    }

    // Exactly at the tolerance is not past it: the window of a wake-up ends at wake + kAnatomyToleranceNs and takes
    // the first event of its CPU after that; one at that instant could be followed by more at the same time.
    void readyOnlyPastTheTolerance()
    {
        AnatomyAggregator agg;
        agg.configure(0, 10, kAggLookback);
        AggCycle c = aggCycle(0, 5, 40, 43);
        c.events.back().ts = c.sample.wakeNs + kAnatomyToleranceNs;
        std::vector<TraceEvent> ev = aggPrologue();
        ev.insert(ev.end(), c.events.begin(), c.events.end());
        aggFeed(agg, ev);
        aggWakeup(agg, c.sample);
        QCOMPARE(agg.pendingWakeups(), size_t(1));
        aggFeed(agg,
                {aggSwitch(c.sample.wakeNs + kAnatomyToleranceNs + 1, kAggHog, "hog", 0, 0, "swapper/1", kAggCpu)});
        QCOMPARE(agg.pendingWakeups(), size_t(0));
        QCOMPARE(agg.figures().wakeupsAnalysed, uint64_t(1));
    }

    // Events first (the collector drained the reader's batch before the ring): the wake-up is analysed the moment
    // it arrives, with the same result.
    void eventsBeforeTheSample()
    {
        AnatomyAggregator agg;
        agg.configure(0, 10, kAggLookback);
        const AggCycle c = aggCycle(0, 5, 40, 43);
        std::vector<TraceEvent> ev = aggPrologue();
        ev.insert(ev.end(), c.events.begin(), c.events.end());
        aggFeed(agg, ev);
        QCOMPARE(agg.figures().wakeupsSeen, uint64_t(0));
        aggWakeup(agg, c.sample);
        const AnatomyFigures f = agg.figures();
        QCOMPARE(f.wakeupsAnalysed, uint64_t(1));
        QCOMPARE(f.wakeupsPending, uint64_t(0));
        QCOMPARE(*f.worst[0].anatomy.schedulingNs, 30 * kAggUs);
    }

    // A late batch: CPU 0's events of a time already passed on CPU 1 come after CPU 1's. They are merged into the
    // window in time order and a later wake-up's window holds them where they belong.
    void lateBatchIsMerged()
    {
        AnatomyAggregator agg;
        agg.configure(0, 10, kAggLookback);
        const AggCycle c1 = aggCycle(1, 5, 40, 43);
        std::vector<TraceEvent> cpu1 = aggPrologue();
        cpu1.insert(cpu1.end(), c1.events.begin(), c1.events.end() - 1); // not yet past its wake time
        aggFeed(agg, cpu1);
        aggWakeup(agg, c1.sample);
        QCOMPARE(agg.pendingWakeups(), size_t(1));
        // CPU 0, late: three events inside wake-up 1's window, one of them at the very timestamp of a CPU 1 event.
        const std::vector<TraceEvent> cpu0 = {
            aggSwitch(aggDeadline(0) + 10 * kAggUs, 7, "cpu0-a", 1, 8, "cpu0-b", 0),
            aggSwitch(c1.events[2].ts, 8, "cpu0-b", 1, 9, "cpu0-c", 0),
            aggSwitch(aggDeadline(1) + 20 * kAggUs, 9, "cpu0-c", 1, 7, "cpu0-a", 0),
        };
        aggFeed(agg, cpu0);
        QCOMPARE(agg.pendingWakeups(), size_t(1)); // CPU 0's events do not make a CPU 1 wake-up ready
        aggFeed(agg, {c1.events.back()});
        const AnatomyFigures f = agg.figures();
        QCOMPARE(f.wakeupsAnalysed, uint64_t(1));
        const std::vector<TraceEvent>& w = f.worst[0].events;
        QCOMPARE(w.size(), cpu1.size() + 1 + cpu0.size());
        QVERIFY(
            std::is_sorted(w.begin(), w.end(), [](const TraceEvent& a, const TraceEvent& b) { return a.ts < b.ts; }));
        const auto tie = std::find_if(w.begin(), w.end(), [&](const TraceEvent& e) { return e.ts == c1.events[2].ts; });
        QCOMPARE(int(tie->cpu), kAggCpu); // the one that came first stays first
        QCOMPARE(int((tie + 1)->cpu), 0);
        QCOMPARE(int(std::count_if(w.begin(), w.end(), [](const TraceEvent& e) { return e.cpu == 0; })), 3);
        // The anatomy of CPU 1 is as without them.
        QCOMPARE(*f.worst[0].anatomy.schedulingNs, 30 * kAggUs);
    }

    // Top 3 of latencies 10, 50, 30, 50, 20, 30 µs (in that order; the hog holds the CPU 1 µs of each): 50 (the
    // first), 50 (the second), 30 (the first); each new one later than the least kept replaces it, an equal one
    // does not. Threshold 25 µs: 50, 30, 50, 30 cross it; with a list of 2 the latest two stay, oldest first, and
    // the total says 4.
    void topAndThreshold()
    {
        AnatomyAggregator::Limits limits;
        limits.maxOverThreshold = 2;
        AnatomyAggregator agg(limits);
        agg.configure(25 * kAggUs, 3, kAggLookback);
        aggFeed(agg, aggPrologue());
        const int latencies[] = {10, 50, 30, 50, 20, 30};
        for (int k = 0; k < 6; ++k) {
            const AggCycle c = aggCycle(k, 1, latencies[k] - 3, latencies[k]);
            aggFeed(agg, c.events);
            aggWakeup(agg, c.sample);
        }
        const AnatomyFigures f = agg.figures();
        aggCheckCounts(f);
        QCOMPARE(f.wakeupsAnalysed, uint64_t(6));
        QCOMPARE(aggSeqs(f.worst), (std::vector<uint64_t>{1, 3, 2})); // the second 30 (k = 5) ties: not kept
        QCOMPARE(f.worst[0].anatomy.latencyNs, 50 * kAggUs);
        QCOMPARE(f.worst[2].anatomy.latencyNs, 30 * kAggUs);
        QCOMPARE(f.overThresholdTotal, uint64_t(4));                       // 50, 30, 50, 30
        QCOMPARE(aggSeqs(f.overThreshold), (std::vector<uint64_t>{3, 5})); // the latest two, oldest first
        for (const TracedWakeup& t : f.overThreshold) {
            QVERIFY(t.anatomy.latencyNs > 25 * kAggUs);
            QVERIFY(!t.events.empty());
        }
        QCOMPARE(f.culprits.front().id, int64_t(kAggHog));
        QCOMPARE(f.culprits.front().wakeups, uint64_t(6));

        // A smaller top drops the least bad; a new threshold starts its list and count afresh.
        agg.configure(25 * kAggUs, 2, kAggLookback);
        QCOMPARE(aggSeqs(agg.figures().worst), (std::vector<uint64_t>{1, 3}));
        QCOMPARE(agg.figures().overThresholdTotal, uint64_t(4));
        agg.configure(40 * kAggUs, 2, kAggLookback);
        QCOMPARE(agg.figures().overThresholdTotal, uint64_t(0));
        QVERIFY(agg.figures().overThreshold.empty());
        const AggCycle c = aggCycle(6, 2, 42, 45);
        aggFeed(agg, c.events);
        aggWakeup(agg, c.sample);
        QCOMPARE(agg.figures().overThresholdTotal, uint64_t(1));
        QCOMPARE(aggSeqs(agg.figures().overThreshold), (std::vector<uint64_t>{6}));
        // Threshold 0 keeps none; top 0 none either.
        agg.configure(0, 0, kAggLookback);
        const AggCycle d = aggCycle(7, 2, 97, 100);
        aggFeed(agg, d.events);
        aggWakeup(agg, d.sample);
        QVERIFY(agg.figures().worst.empty());
        QVERIFY(agg.figures().overThreshold.empty());
        QCOMPARE(agg.figures().wakeupsAnalysed, uint64_t(8));
    }

    // The window's bound: with room for 20 events, feeding 10 cycles (8 events each) keeps the latest 20 at most;
    // what the bound pushed out is counted, and a wake-up whose window reached back into it is not analysed.
    void windowIsBounded()
    {
        AnatomyAggregator::Limits limits;
        limits.maxEvents = 20;
        AnatomyAggregator agg(limits);
        agg.configure(0, 10, kAggLookback);
        std::vector<AggCycle> cycles;
        size_t fed = 0;
        for (int k = 0; k < 10; ++k) {
            cycles.push_back(aggCycle(k, 2, 20, 23));
            aggFeed(agg, cycles.back().events);
            fed += cycles.back().events.size();
            QVERIFY(agg.eventsHeld() <= limits.maxEvents);
        }
        AnatomyFigures f = agg.figures();
        QCOMPARE(f.eventsDropped + agg.eventsHeld(), uint64_t(fed));
        QVERIFY(f.eventsDropped >= 60);
        // The horizon is just after the last event pushed out: wake-up 8's window (from 3 ms before its deadline)
        // reaches before it, wake-up 9's too (the 20 events held cover 2.5 cycles): neither is guessed at.
        QVERIFY(agg.horizonNs() > aggDeadline(5));
        aggWakeup(agg, cycles[9].sample);
        aggWakeup(agg, cycles[8].sample);
        f = agg.figures();
        QCOMPARE(f.wakeupsNotAnalysed, uint64_t(2));
        QCOMPARE(f.wakeupsAnalysed, uint64_t(0));
        aggCheckCounts(f);

        // With a window of 1 ms and room for 20, wake-up 9 is analysed (its events are held).
        AnatomyAggregator small(limits);
        small.configure(0, 10, 500 * kAggUs);
        for (const AggCycle& c : cycles)
            aggFeed(small, c.events);
        aggWakeup(small, cycles[9].sample);
        QCOMPARE(small.figures().wakeupsAnalysed, uint64_t(1));
    }

    // A pending wake-up holds the events it needs even past the retention time; with none pending, events older
    // than retainNs behind the newest go, and a sample that comes after that is not analysed.
    void retention()
    {
        AnatomyAggregator::Limits limits;
        limits.retainNs = 5 * kAggMs;
        AnatomyAggregator agg(limits);
        agg.configure(0, 10, kAggLookback);
        const AggCycle c0 = aggCycle(0, 2, 20, 23);
        aggWakeup(agg, c0.sample); // waits
        std::vector<TraceEvent> ev = aggPrologue();
        ev.insert(ev.end(), c0.events.begin(), c0.events.end() - 1);
        aggFeed(agg, ev);
        // 20 ms of other CPU 1 events without the cycle's end: wake-up 0 is still pending, its window held.
        for (int k = 0; k < 20; ++k)
            aggFeed(agg, {aggSwitch(aggDeadline(0) + k * kAggMs + 500 * kAggUs, 0, "swapper/1", 0, 0, "swapper/1", 2)});
        QCOMPARE(agg.pendingWakeups(), size_t(1));
        QVERIFY(agg.horizonNs() <= aggDeadline(0) - kAggLookback);
        aggFeed(agg, {c0.events.back()});
        QCOMPARE(agg.figures().wakeupsAnalysed, uint64_t(1));
        // Nothing pending now: the window shrinks to 5 ms behind the newest event (CPU 2 at 19.5 ms).
        QCOMPARE(agg.horizonNs(), aggDeadline(19) + 500 * kAggUs - 5 * kAggMs);
        // Wake-up 0 again (a sample late to the collector): its window is gone.
        aggWakeup(agg, c0.sample);
        QCOMPARE(agg.figures().wakeupsNotAnalysed, uint64_t(1));
        aggCheckCounts(agg.figures());
    }

    // At most maxPending wake-ups wait; the oldest go, counted as not analysed. finish() settles the rest.
    void pendingIsBounded()
    {
        AnatomyAggregator::Limits limits;
        limits.maxPending = 3;
        AnatomyAggregator agg(limits);
        agg.configure(0, 10, kAggLookback);
        for (int k = 0; k < 5; ++k)
            aggWakeup(agg, aggCycle(k, 2, 20, 23).sample);
        AnatomyFigures f = agg.figures();
        QCOMPARE(f.wakeupsSeen, uint64_t(5));
        QCOMPARE(f.wakeupsPending, uint64_t(3));
        QCOMPARE(f.wakeupsNotAnalysed, uint64_t(2));
        aggCheckCounts(f);
        // finish(): wake-up 2 (CPU 1) is not past its wake time on its CPU when tracing stops; wake-ups 3 and 4
        // (thread 1, CPU 3) are: they are analysed, it is counted as not analysed.
        std::vector<TraceEvent> ev;
        for (int k = 3; k < 5; ++k) {
            const AggCycle c = aggCycle(k, 2, 20, 23, kAggTid + 1, 3);
            ev.insert(ev.end(), c.events.begin(), c.events.end());
        }
        AnatomyAggregator two(limits);
        two.configure(0, 10, kAggLookback);
        std::vector<TraceEvent> start = aggPrologue();
        const AggCycle c2 = aggCycle(2, 2, 20, 23);
        start.insert(start.end(), c2.events.begin(), c2.events.end() - 1);
        aggFeed(two, start);
        aggWakeup(two, c2.sample);
        aggWakeup(two, aggCycle(3, 2, 20, 23, kAggTid + 1, 3).sample, 1, kAggTid + 1, 3);
        aggWakeup(two, aggCycle(4, 2, 20, 23, kAggTid + 1, 3).sample, 1, kAggTid + 1, 3);
        aggFeed(two, ev);
        f = two.figures();
        QCOMPARE(f.wakeupsAnalysed, uint64_t(2));
        QCOMPARE(f.wakeupsPending, uint64_t(1));
        two.finish();
        f = two.figures();
        QCOMPARE(f.wakeupsPending, uint64_t(0));
        QCOMPARE(f.wakeupsNotAnalysed, uint64_t(1));
        aggCheckCounts(f);
        two.finish(); // idempotent
        QCOMPARE(two.figures().wakeupsNotAnalysed, uint64_t(1));
    }

    // Tracing began at start(): a wake-up whose window reaches before it is not analysed, and an event stamped
    // before it is ignored (the session recorded from some moment inside its start; not a loss). One older than a
    // horizon that the window's bound moved later is counted, though (lateEventIsCounted).
    void beforeTracingBegan()
    {
        AnatomyAggregator agg;
        agg.configure(0, 10, kAggLookback);
        agg.start(aggDeadline(0));
        aggFeed(agg, aggPrologue()); // 2 ms before
        QCOMPARE(agg.figures().eventsDropped, uint64_t(0));
        QCOMPARE(agg.eventsHeld(), size_t(0));
        for (int k = 0; k < 5; ++k) {
            const AggCycle c = aggCycle(k, 2, 20, 23);
            aggFeed(agg, c.events);
            aggWakeup(agg, c.sample);
        }
        const AnatomyFigures f = agg.figures();
        QCOMPARE(f.wakeupsNotAnalysed, uint64_t(3)); // deadlines 0, 1, 2 ms: windows from −3, −2, −1 ms
        QCOMPARE(f.wakeupsAnalysed, uint64_t(2));
        aggCheckCounts(f);
    }

    void lateEventIsCounted()
    {
        AnatomyAggregator::Limits limits;
        limits.retainNs = 1 * kAggMs;
        AnatomyAggregator agg(limits);
        agg.configure(0, 10, kAggLookback);
        agg.start(aggDeadline(0) - 10 * kAggMs);
        aggFeed(agg, aggCycle(5, 2, 20, 23).events); // nothing pending: the window keeps 1 ms behind the newest
        QCOMPARE(agg.horizonNs(), aggDeadline(5) + 28 * kAggUs - 1 * kAggMs);
        aggFeed(agg, aggCycle(2, 2, 20, 23, kAggTid, 0).events); // CPU 0, far too late: before the horizon
        QCOMPARE(agg.figures().eventsDropped, uint64_t(8));
        QCOMPARE(agg.eventsHeld(), size_t(8));
    }

    // A Lost marker on the wake-up's CPU right after its wake time (the kernel dropped events between the switch-in
    // and it): the marker makes it ready, the anatomy says events were lost, and the count says so.
    void lostMarker()
    {
        AnatomyAggregator agg;
        agg.configure(0, 10, kAggLookback);
        const AggCycle c = aggCycle(0, 5, 40, 43);
        std::vector<TraceEvent> ev = aggPrologue();
        ev.insert(ev.end(), c.events.begin(), c.events.end() - 2); // up to local_timer_exit; the switch-in is lost
        ev.push_back(aggLost(c.sample.wakeNs + 10 * kAggUs, c.events[5].ts, 2, kAggCpu));
        aggWakeup(agg, c.sample);
        aggFeed(agg, ev);
        const AnatomyFigures f = agg.figures();
        QCOMPARE(f.wakeupsAnalysed, uint64_t(1));
        QCOMPARE(f.wakeupsWithLoss, uint64_t(1));
        QCOMPARE(f.wakeupsComplete, uint64_t(0));
        const WakeupAnatomy& a = f.worst[0].anatomy;
        QVERIFY(a.eventsLost);
        QVERIFY(!a.complete());
        QVERIFY2(a.note.find("lost") != std::string::npos, a.note.c_str());
        const int64_t known = a.timerIrqDelayNs.value_or(0) + a.irqNs.value_or(0) + a.schedulingNs.value_or(0) +
                              a.returnToUserNs.value_or(0);
        QCOMPARE(known + a.unaccountedNs, a.latencyNs);
        QCOMPARE(f.worst[0].events.back().type, TraceEventType::Lost);
    }

    // A window longer than maxWindowEvents keeps its latest events; the anatomy saw them all.
    void keptWindowIsBounded()
    {
        AnatomyAggregator::Limits limits;
        limits.maxWindowEvents = 5;
        AnatomyAggregator agg(limits);
        agg.configure(0, 10, kAggLookback);
        const AggCycle c = aggCycle(0, 5, 40, 43);
        std::vector<TraceEvent> ev = aggPrologue();
        ev.insert(ev.end(), c.events.begin(), c.events.end());
        aggFeed(agg, ev);
        aggWakeup(agg, c.sample);
        const AnatomyFigures f = agg.figures(); // by value: a reference into figures().worst would dangle
        const TracedWakeup& t = f.worst.at(0);
        QCOMPARE(t.events.size(), size_t(5));
        QCOMPARE(t.eventsOmitted, ev.size() - 5);
        QCOMPARE(t.events.back().ts, ev.back().ts);
        QVERIFY(t.anatomy.complete()); // the prologue it needed was there for the analysis
    }

    // Two threads on two CPUs: each wake-up is matched by its tid on its CPU, and its thread index is kept.
    void twoThreads()
    {
        AnatomyAggregator agg;
        agg.configure(0, 10, kAggLookback);
        const AggCycle a = aggCycle(0, 5, 40, 43, 100, 1);
        const AggCycle b = aggCycle(0, 5, 70, 73, 101, 0);
        std::vector<TraceEvent> ev = aggPrologue(100, 1);
        const std::vector<TraceEvent> p0 = aggPrologue(101, 0);
        ev.insert(ev.end(), p0.begin(), p0.end());
        ev.insert(ev.end(), a.events.begin(), a.events.end());
        ev.insert(ev.end(), b.events.begin(), b.events.end());
        std::stable_sort(ev.begin(), ev.end(), [](const TraceEvent& x, const TraceEvent& y) { return x.ts < y.ts; });
        aggFeed(agg, ev);
        aggWakeup(agg, a.sample, 0, 100, 1);
        aggWakeup(agg, b.sample, 1, 101, 0);
        const AnatomyFigures f = agg.figures();
        QCOMPARE(f.wakeupsComplete, uint64_t(2));
        QCOMPARE(f.worst[0].thread, size_t(1));
        QCOMPARE(*f.worst[0].anatomy.schedulingNs, 60 * kAggUs);
        QCOMPARE(f.worst[0].anatomy.runCpu, 0);
        QCOMPARE(f.worst[1].thread, size_t(0));
        QCOMPARE(*f.worst[1].anatomy.schedulingNs, 30 * kAggUs);
        QCOMPARE(f.culprits.front().totalNs, 90 * kAggUs); // the hog's pid on both CPUs: 30 + 60
    }

    // resetStatistics: figures and counts go, so do wake-ups still waiting (measured before the reset); the event
    // window stays, so a wake-up after the reset whose window reaches back before it is analysed. clear(): all goes.
    void resetAndClear()
    {
        AnatomyAggregator agg;
        agg.configure(25 * kAggUs, 10, kAggLookback);
        std::vector<TraceEvent> ev = aggPrologue();
        const AggCycle c0 = aggCycle(0, 5, 40, 43);
        const AggCycle c1 = aggCycle(1, 5, 60, 63);
        ev.insert(ev.end(), c0.events.begin(), c0.events.end());
        ev.insert(ev.end(), c1.events.begin(), c1.events.end() - 1);
        aggFeed(agg, ev);
        aggWakeup(agg, c0.sample);
        aggWakeup(agg, c1.sample); // waits
        QCOMPARE(agg.figures().wakeupsAnalysed, uint64_t(1));
        QCOMPARE(agg.pendingWakeups(), size_t(1));
        const uint64_t v = agg.version();
        agg.resetStatistics();
        QVERIFY(agg.version() != v);
        AnatomyFigures f = agg.figures();
        QCOMPARE(f.wakeupsSeen, uint64_t(0));
        QCOMPARE(f.wakeupsPending, uint64_t(0));
        QCOMPARE(f.overThresholdTotal, uint64_t(0));
        QVERIFY(f.worst.empty());
        QVERIFY(f.overThreshold.empty());
        QVERIFY(f.culprits.empty());
        QCOMPARE(agg.eventsHeld(), ev.size());
        // Wake-up 2 after the reset: its window (from −1 ms) is held.
        const AggCycle c2 = aggCycle(2, 5, 30, 33);
        std::vector<TraceEvent> more = {c1.events.back()};
        more.insert(more.end(), c2.events.begin(), c2.events.end());
        aggFeed(agg, more);
        aggWakeup(agg, c2.sample);
        f = agg.figures();
        QCOMPARE(f.wakeupsSeen, uint64_t(1));
        QCOMPARE(f.wakeupsComplete, uint64_t(1));
        QCOMPARE(aggSeqs(f.worst), (std::vector<uint64_t>{2}));
        QCOMPARE(f.overThresholdTotal, uint64_t(1));
        QCOMPARE(f.culprits.front().wakeups, uint64_t(1));

        agg.clear();
        f = agg.figures();
        QCOMPARE(f.wakeupsSeen, uint64_t(0));
        QVERIFY(f.worst.empty());
        QCOMPARE(agg.eventsHeld(), size_t(0));
        QCOMPARE(agg.horizonNs(), INT64_MIN);
        // The settings stay: a wake-up fed from scratch is kept as before.
        std::vector<TraceEvent> again = aggPrologue();
        again.insert(again.end(), c0.events.begin(), c0.events.end());
        aggFeed(agg, again);
        aggWakeup(agg, c0.sample);
        QCOMPARE(agg.figures().overThresholdTotal, uint64_t(1));
        QCOMPARE(agg.figures().worst.size(), size_t(1));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestAnatomyAggregator)
#include "tst_anatomy_aggregator.moc"
