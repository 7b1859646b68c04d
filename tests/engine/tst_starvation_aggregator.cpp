// ctest: parallel. Pure aggregation.
// StarvationAggregator on synthetic runs whose figures are worked out by hand in the comments: the lead-in, progress
// during and after a burst, the throttling windows (clipping, merging at kWindowMergeNs, offsets and spacing, when
// they become final), the rate lines and live rate, the burst-record and segment bounds, interrupted and demoted
// bursts, lost events, and the control counter. No thread: every input is a plain struct (docs/architecture.md).
#include "engine/pipeline/starvation_aggregator.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <array>
#include <climits>
#include <initializer_list>
#include <vector>

using namespace rtscope;

namespace {

constexpr int64_t kStarvAggMs = 1'000'000;
// A plausible CLOCK_MONOTONIC origin: a run start at 0 would read as "no run yet".
constexpr int64_t kStarvAggT0 = 1000 * 1'000'000'000LL;
constexpr int64_t kStarvAggSampleNs = 10 * kStarvAggMs;
constexpr int64_t kStarvAggWindowNs = 10 * 1'000'000'000LL;

// An event at T0 + @p ns.
StarvationSpinnerEvent starvAggEvent(StarvationSpinnerEvent::Kind kind, int burst, int64_t ns,
                                     std::initializer_list<uint64_t> counts, bool demoted = false,
                                     bool interrupted = false)
{
    StarvationSpinnerEvent ev;
    ev.kind = kind;
    ev.burst = burst;
    ev.tNs = kStarvAggT0 + ns;
    ev.demoted = demoted;
    ev.interrupted = interrupted;
    size_t i = 0;
    for (uint64_t c : counts)
        ev.counts[i++] = c;
    return ev;
}

StarvationProgressSample starvAggSample(int64_t ns, std::initializer_list<uint64_t> counts)
{
    StarvationProgressSample s;
    s.tNs = kStarvAggT0 + ns;
    size_t i = 0;
    for (uint64_t c : counts)
        s.counts[i++] = c;
    return s;
}

RunSegment starvAggSeg(int64_t startNs, int64_t endNs)
{
    return {kStarvAggT0 + startNs, kStarvAggT0 + endNs};
}

void starvAggAddSegments(StarvationAggregator& agg, int counter, std::initializer_list<RunSegment> segments)
{
    const std::vector<RunSegment> v(segments);
    agg.addSegments(counter, v.data(), v.size());
}

// No counter has a segment running (what a stopped or preempted-and-announced counter shows): INT64_MAX starts.
std::array<RunSegment, kStarvationMaxThreads> starvAggNoneOpen()
{
    std::array<RunSegment, kStarvationMaxThreads> open;
    open.fill({INT64_MAX, 0});
    return open;
}

std::array<uint64_t, kStarvationMaxThreads> starvAggCounts(std::initializer_list<uint64_t> counts)
{
    std::array<uint64_t, kStarvationMaxThreads> a{};
    size_t i = 0;
    for (uint64_t c : counts)
        a[i++] = c;
    return a;
}

} // namespace

class TestStarvationAggregator : public QObject {
    Q_OBJECT
private slots:
    void emptyAggregatorHasNoFigures()
    {
        const StarvationAggregator none;
        QCOMPARE(none.threads(), 0);
        QVERIFY(none.bursts().empty());
        QVERIFY(none.counterStats(INT64_MIN).empty());
        QCOMPARE(none.leadIn().ns, int64_t(0));

        StarvationAggregator agg(2, 1, kStarvAggWindowNs, kStarvAggSampleNs);
        agg.updateWindows(kStarvAggT0, starvAggNoneOpen());
        QCOMPARE(agg.threads(), 2);
        QCOMPARE(agg.starved(), 1);
        QVERIFY(agg.bursts().empty());
        QCOMPARE(agg.burstsDropped(), uint64_t(0));
        QCOMPARE(agg.leadIn().ns, int64_t(0));
        QCOMPARE(agg.leadIn().counts, starvAggCounts({}));
        QCOMPARE(agg.runEndNs(), int64_t(0));
        QVERIFY(!agg.interrupted());
        const auto stats = agg.counterStats(INT64_MIN);
        QCOMPARE(stats.size(), size_t(2));
        for (const CounterStats& c : stats) {
            QCOMPARE(c.ops, uint64_t(0));
            QCOMPARE(c.opsPerSec, 0.0);
            QVERIFY(c.rate.empty());
        }
    }

    // Two starved counters and a control: 200 ms of lead-in at 100 000 ops/s each, a 300 ms burst in which the
    // starved ones stand still and the control does 30 000, a 200 ms gap of 20 000 ops each.
    void leadInThenAStarvedBurst()
    {
        StarvationAggregator agg(3, 2, kStarvAggWindowNs, kStarvAggSampleNs);
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::RunStart, 0, 0, {100, 200, 50}));
        QCOMPARE(agg.runStartNs(), kStarvAggT0);
        QCOMPARE(agg.leadIn().ns, int64_t(0)); // no sample yet

        // Before the first burst the lead-in runs to the latest sample: 10 ms, 1000 ops each.
        agg.addSample(starvAggSample(10 * kStarvAggMs, {1100, 1200, 1050}));
        QCOMPARE(agg.leadIn().ns, 10 * kStarvAggMs);
        QCOMPARE(agg.leadIn().counts, starvAggCounts({1000, 1000, 1000}));
        agg.addSample(starvAggSample(20 * kStarvAggMs, {2100, 2200, 2050}));

        // The first burst closes it: 200 ms, 20 000 ops each.
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstStart, 1, 200 * kStarvAggMs, {20100, 20200, 20050}));
        QCOMPARE(agg.leadIn().ns, 200 * kStarvAggMs);
        QCOMPARE(agg.leadIn().counts, starvAggCounts({20000, 20000, 20000}));
        QCOMPARE(agg.bursts().size(), size_t(1));
        QVERIFY(agg.bursts().front().spinning());
        QCOMPARE(agg.bursts().front().index, 1);
        QCOMPARE(agg.bursts().front().startNs, kStarvAggT0 + 200 * kStarvAggMs);

        agg.addSample(starvAggSample(300 * kStarvAggMs, {20100, 20200, 30050}));
        agg.addSample(starvAggSample(310 * kStarvAggMs, {20100, 20200, 31050}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstEnd, 1, 500 * kStarvAggMs, {20100, 20200, 50050}));
        QCOMPARE(agg.leadIn().ns, 200 * kStarvAggMs); // later samples no longer move it
        {
            const BurstRecord& b = agg.bursts().front();
            QVERIFY(!b.spinning());
            QCOMPARE(b.endNs, kStarvAggT0 + 500 * kStarvAggMs);
            QCOMPARE(b.spinnerNs(), 300 * kStarvAggMs);
            QCOMPARE(b.during, starvAggCounts({0, 0, 30000}));
            QCOMPARE(b.duringSum(2), uint64_t(0));
            QCOMPARE(b.duringSum(3), uint64_t(30000));
            QCOMPARE(b.gapEndNs, int64_t(0)); // the gap still runs
            QCOMPARE(b.gapNs(), int64_t(0));
        }

        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::RunEnd, 0, 700 * kStarvAggMs, {40100, 40200, 70050}));
        const BurstRecord& b = agg.bursts().front();
        QCOMPARE(b.after, starvAggCounts({20000, 20000, 20000}));
        QCOMPARE(b.gapEndNs, kStarvAggT0 + 700 * kStarvAggMs);
        QCOMPARE(b.gapNs(), 200 * kStarvAggMs);
        QCOMPARE(b.afterSum(2), uint64_t(40000));
        QCOMPARE(agg.runEndNs(), kStarvAggT0 + 700 * kStarvAggMs);
        QVERIFY(!agg.interrupted());

        // The starved counters ran before and after the burst only; the control ran throughout, but its segments
        // never make a window. Every starved counter has run since the end (none open before it): final.
        starvAggAddSegments(agg, 0,
                            {starvAggSeg(0, 199 * kStarvAggMs), starvAggSeg(501 * kStarvAggMs, 690 * kStarvAggMs)});
        starvAggAddSegments(agg, 1, {starvAggSeg(0, 199 * kStarvAggMs)});
        starvAggAddSegments(agg, 2, {starvAggSeg(0, 700 * kStarvAggMs)});
        auto open = starvAggNoneOpen();
        open[1] = starvAggSeg(502 * kStarvAggMs, 695 * kStarvAggMs);
        open[2] = starvAggSeg(0, 700 * kStarvAggMs); // the control's: ignored
        agg.updateWindows(kStarvAggT0 + 700 * kStarvAggMs, open);
        QVERIFY(agg.bursts().front().windows.empty());
        QVERIFY(agg.bursts().front().windowsFinal);

        // Rate lines: one point per sampler interval, stamped at its start. 1000 ops in 10 ms = 100 000 ops/s;
        // 0 inside the burst for the starved counters, 1000 ops / 10 ms for the control there.
        const auto stats = agg.counterStats(INT64_MIN);
        QCOMPARE(stats.size(), size_t(3));
        QCOMPARE(stats[0].label, std::string("counter 1"));
        QCOMPARE(stats[1].label, std::string("counter 2"));
        QCOMPARE(stats[2].label, std::string("control"));
        QVERIFY(!stats[0].control && !stats[1].control && stats[2].control);
        QCOMPARE(stats[0].ops, uint64_t(20100)); // the latest sample's, not an event's
        QCOMPARE(stats[2].ops, uint64_t(31050));
        for (const CounterStats& c : stats)
            QCOMPARE(c.rate.size(), size_t(3)); // 10 → 20, 20 → 300, 300 → 310 ms
        QCOMPARE(stats[0].rate[0].tNs, kStarvAggT0 + 10 * kStarvAggMs);
        QCOMPARE(stats[0].rate[0].maxNs, int64_t(100'000));
        QCOMPARE(stats[0].rate[2].tNs, kStarvAggT0 + 300 * kStarvAggMs);
        QCOMPARE(stats[0].rate[2].maxNs, int64_t(0));
        QCOMPARE(stats[1].rate[2].maxNs, int64_t(0));
        QCOMPARE(stats[2].rate[2].maxNs, int64_t(100'000));
    }

    // One starved counter in a 1.5 s burst (T0+1 s … T0+2.5 s) that the kernel's safety net lets in twice: at
    // +950 ms for 50 ms (three segments 5 and 10 ms apart, one window) and at +1200 ms for 30 ms.
    void throttlingWindowsOfABurst()
    {
        StarvationAggregator agg(1, 1, kStarvAggWindowNs, kStarvAggSampleNs);
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::RunStart, 0, 0, {0}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstStart, 1, 1000 * kStarvAggMs, {5000}));
        // Its work before it was preempted ends 1 µs before the burst: not a window.
        starvAggAddSegments(agg, 0, {starvAggSeg(0, 1000 * kStarvAggMs - 1000)});

        // While spinning, the window still open counts up to its latest clock read; nothing is final.
        auto open = starvAggNoneOpen();
        open[0] = starvAggSeg(1950 * kStarvAggMs, 1970 * kStarvAggMs);
        agg.updateWindows(kStarvAggT0 + 1970 * kStarvAggMs, open);
        {
            const BurstRecord& b = agg.bursts().front();
            QCOMPARE(b.windows.size(), size_t(1));
            QCOMPARE(b.windows[0].offsetNs, 950 * kStarvAggMs);
            QCOMPARE(b.windows[0].lengthNs(), 20 * kStarvAggMs);
            QVERIFY(!b.windowsFinal);
        }

        starvAggAddSegments(
            agg, 0,
            {starvAggSeg(1950 * kStarvAggMs, 1960 * kStarvAggMs), starvAggSeg(1965 * kStarvAggMs, 1980 * kStarvAggMs),
             starvAggSeg(1990 * kStarvAggMs, 2000 * kStarvAggMs), starvAggSeg(2200 * kStarvAggMs, 2230 * kStarvAggMs)});
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstEnd, 1, 2500 * kStarvAggMs, {5700}));
        // The counter's segment running now began after the burst ended: every earlier one has been drained.
        open[0] = starvAggSeg(2500 * kStarvAggMs + 500'000, 2600 * kStarvAggMs);
        agg.updateWindows(kStarvAggT0 + 2600 * kStarvAggMs, open);
        const BurstRecord& b = agg.bursts().front();
        QCOMPARE(b.during, starvAggCounts({700}));
        QVERIFY(b.windowsFinal);
        QCOMPARE(b.windows.size(), size_t(2));
        QCOMPARE(b.windows[0].startNs, kStarvAggT0 + 1950 * kStarvAggMs);
        QCOMPARE(b.windows[0].endNs, kStarvAggT0 + 2000 * kStarvAggMs);
        QCOMPARE(b.windows[0].offsetNs, 950 * kStarvAggMs);
        QCOMPARE(b.windows[0].spacingNs, int64_t(0));
        QCOMPARE(b.windows[0].lengthNs(), 50 * kStarvAggMs);
        QCOMPARE(b.windows[1].offsetNs, 1200 * kStarvAggMs);
        QCOMPARE(b.windows[1].spacingNs, 250 * kStarvAggMs);
        QCOMPARE(b.windows[1].lengthNs(), 30 * kStarvAggMs);
    }

    // kWindowMergeNs (20 ms): segments exactly 20 ms apart are two windows, 1 ns less joins them.
    void windowsMergeBelowTheMergeGap()
    {
        QCOMPARE(StarvationAggregator::kWindowMergeNs, 20 * kStarvAggMs);
        StarvationAggregator agg(1, 1, kStarvAggWindowNs, kStarvAggSampleNs);
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::RunStart, 0, 0, {0}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstStart, 1, 1000 * kStarvAggMs, {0}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstEnd, 1, 2500 * kStarvAggMs, {10}));
        starvAggAddSegments(agg, 0,
                            {starvAggSeg(1100 * kStarvAggMs, 1110 * kStarvAggMs),
                             starvAggSeg(1130 * kStarvAggMs, 1140 * kStarvAggMs),
                             starvAggSeg(1500 * kStarvAggMs, 1510 * kStarvAggMs),
                             starvAggSeg(1530 * kStarvAggMs - 1, 1540 * kStarvAggMs)});
        agg.updateWindows(kStarvAggT0 + 2600 * kStarvAggMs, starvAggNoneOpen());
        const auto& w = agg.bursts().front().windows;
        QCOMPARE(w.size(), size_t(3));
        QCOMPARE(w[0].offsetNs, 100 * kStarvAggMs);
        QCOMPARE(w[0].lengthNs(), 10 * kStarvAggMs);
        QCOMPARE(w[1].offsetNs, 130 * kStarvAggMs);
        QCOMPARE(w[1].spacingNs, 30 * kStarvAggMs);
        QCOMPARE(w[2].offsetNs, 500 * kStarvAggMs);
        QCOMPARE(w[2].spacingNs, 370 * kStarvAggMs);
        QCOMPARE(w[2].lengthNs(), 40 * kStarvAggMs);
    }

    // A burst's windows are final once every starved counter has run after it; until then the segments since the
    // burst began are kept, after that only the last kSegmentKeepNs.
    void windowsFinalOnceEveryStarvedCounterRanAgain()
    {
        StarvationAggregator agg(2, 2, kStarvAggWindowNs, kStarvAggSampleNs);
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::RunStart, 0, 0, {0, 0}));
        starvAggAddSegments(
            agg, 0,
            {starvAggSeg(100 * kStarvAggMs, 200 * kStarvAggMs), starvAggSeg(600 * kStarvAggMs, 990 * kStarvAggMs)});
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstStart, 1, 1000 * kStarvAggMs, {10, 10}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstEnd, 1, 1300 * kStarvAggMs, {10, 10}));

        // Counter 1 has not run since before the burst (its open segment began at 900 ms): a window may yet appear.
        auto open = starvAggNoneOpen();
        open[0] = starvAggSeg(1300 * kStarvAggMs + 100'000, 1400 * kStarvAggMs);
        open[1] = starvAggSeg(900 * kStarvAggMs, 999 * kStarvAggMs);
        agg.updateWindows(kStarvAggT0 + 1400 * kStarvAggMs, open);
        QVERIFY(!agg.bursts().front().windowsFinal);
        QVERIFY(agg.bursts().front().windows.empty());
        // Kept from min(now − 1 s, the unsettled burst's start) = 400 ms: the segment ending at 200 ms goes.
        QCOMPARE(agg.segmentsKept(0), size_t(1));

        // Counter 1 runs again: it closed its old segment and opened one after the end.
        starvAggAddSegments(agg, 1, {starvAggSeg(900 * kStarvAggMs, 999 * kStarvAggMs)});
        open[1] = starvAggSeg(1300 * kStarvAggMs + 500'000, 1420 * kStarvAggMs);
        agg.updateWindows(kStarvAggT0 + 1420 * kStarvAggMs, open);
        QVERIFY(agg.bursts().front().windowsFinal);
        QVERIFY(agg.bursts().front().windows.empty());
        QCOMPARE(agg.segmentsKept(0), size_t(1)); // 990 ms is within the last second
        QCOMPARE(agg.segmentsKept(1), size_t(1));

        // A final burst is not looked at again, and with nothing unsettled only the last second is kept.
        starvAggAddSegments(agg, 0, {starvAggSeg(1100 * kStarvAggMs, 1150 * kStarvAggMs)});
        agg.updateWindows(kStarvAggT0 + 3000 * kStarvAggMs, open);
        QVERIFY(agg.bursts().front().windows.empty());
        QCOMPARE(agg.segmentsKept(0), size_t(0));
        QCOMPARE(agg.segmentsKept(1), size_t(0));
    }

    // A repeating run keeps the newest kMaxBurstRecords (1000) bursts: 1002 bursts of 50 ms every 100 ms, each
    // gap 1000 ops, leave bursts 3 … 1002 and count two dropped; the lead-in stays the first burst's.
    void droppedBurstRecords()
    {
        QCOMPARE(StarvationAggregator::kMaxBurstRecords, size_t(1000));
        StarvationAggregator agg(1, 1, kStarvAggWindowNs, kStarvAggSampleNs);
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::RunStart, 0, 0, {0}));
        for (int i = 1; i <= 1002; ++i) {
            const uint64_t count = uint64_t(i) * 1000;
            agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstStart, i, i * 100 * kStarvAggMs, {count}));
            agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstEnd, i, (i * 100 + 50) * kStarvAggMs, {count}));
        }
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::RunEnd, 0, 100'300 * kStarvAggMs, {1003 * 1000}));
        QCOMPARE(agg.bursts().size(), size_t(1000));
        QCOMPARE(agg.burstsDropped(), uint64_t(2));
        const BurstRecord& first = agg.bursts().front();
        QCOMPARE(first.index, 3);
        QCOMPARE(first.startNs, kStarvAggT0 + 300 * kStarvAggMs);
        QCOMPARE(first.during, starvAggCounts({0}));
        QCOMPARE(first.after, starvAggCounts({1000}));
        QCOMPARE(first.gapNs(), 50 * kStarvAggMs);
        const BurstRecord& last = agg.bursts().back();
        QCOMPARE(last.index, 1002);
        QCOMPARE(last.after, starvAggCounts({1000}));
        QCOMPARE(last.gapEndNs, kStarvAggT0 + 100'300 * kStarvAggMs);
        QCOMPARE(agg.leadIn().ns, 100 * kStarvAggMs);
        QCOMPARE(agg.leadIn().counts, starvAggCounts({1000}));
    }

    // Stopped 150 ms into a 300 ms burst: the burst ends where the spinner left it and the run reads interrupted;
    // the gap after it has no length. A burst stopped the instant it began still ends (1 ns long), so that it is
    // never shown as spinning after the run.
    void interruptedBurst()
    {
        StarvationAggregator agg(1, 1, kStarvAggWindowNs, kStarvAggSampleNs);
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::RunStart, 0, 0, {0}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstStart, 1, 100 * kStarvAggMs, {1000}));
        QVERIFY(!agg.interrupted());
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstEnd, 1, 250 * kStarvAggMs, {1000}, false, true));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::RunEnd, 0, 250 * kStarvAggMs, {1000}, false, true));
        const BurstRecord& b = agg.bursts().front();
        QVERIFY(b.interrupted);
        QVERIFY(!b.watchdogDemoted);
        QCOMPARE(b.spinnerNs(), 150 * kStarvAggMs);
        QCOMPARE(b.gapEndNs, kStarvAggT0 + 250 * kStarvAggMs);
        QCOMPARE(b.gapNs(), int64_t(0));
        QCOMPARE(b.after, starvAggCounts({0}));
        QVERIFY(agg.interrupted());
        QCOMPARE(agg.runEndNs(), kStarvAggT0 + 250 * kStarvAggMs);

        StarvationAggregator instant(1, 1, kStarvAggWindowNs, kStarvAggSampleNs);
        instant.addEvent(starvAggEvent(StarvationSpinnerEvent::RunStart, 0, 0, {0}));
        instant.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstStart, 1, 100 * kStarvAggMs, {0}));
        instant.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstEnd, 1, 100 * kStarvAggMs, {0}, false, true));
        instant.addEvent(starvAggEvent(StarvationSpinnerEvent::RunEnd, 0, 100 * kStarvAggMs, {0}, false, true));
        QVERIFY(!instant.bursts().front().spinning());
        QCOMPARE(instant.bursts().front().spinnerNs(), int64_t(1));
        QCOMPARE(instant.bursts().front().gapEndNs, kStarvAggT0 + 100 * kStarvAggMs + 1);
        QCOMPARE(instant.bursts().front().gapNs(), int64_t(0));
    }

    void watchdogDemotedBurst()
    {
        StarvationAggregator agg(1, 1, kStarvAggWindowNs, kStarvAggSampleNs);
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::RunStart, 0, 0, {0}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstStart, 1, 100 * kStarvAggMs, {1000}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstEnd, 1, 500 * kStarvAggMs, {1400}, true));
        const BurstRecord& b = agg.bursts().front();
        QVERIFY(b.watchdogDemoted);
        QVERIFY(!b.interrupted);
        QCOMPARE(b.during, starvAggCounts({400}));
    }

    // The spinner's event ring was full when burst 2 began: its end matches no record and changes none; burst 3's
    // start closes burst 1's gap.
    void aLostBurstStartLeavesTheRecordsAlone()
    {
        StarvationAggregator agg(1, 1, kStarvAggWindowNs, kStarvAggSampleNs);
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::RunStart, 0, 0, {0}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstStart, 1, 100 * kStarvAggMs, {100}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstEnd, 1, 200 * kStarvAggMs, {100}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstEnd, 2, 400 * kStarvAggMs, {200}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstStart, 3, 500 * kStarvAggMs, {300}));
        QCOMPARE(agg.bursts().size(), size_t(2));
        QCOMPARE(agg.bursts()[0].index, 1);
        QCOMPARE(agg.bursts()[0].endNs, kStarvAggT0 + 200 * kStarvAggMs);
        QCOMPARE(agg.bursts()[0].during, starvAggCounts({0}));
        QCOMPARE(agg.bursts()[0].gapEndNs, kStarvAggT0 + 500 * kStarvAggMs);
        QCOMPARE(agg.bursts()[1].index, 3);
        QVERIFY(agg.bursts()[1].spinning());
    }

    // The control counter runs on another CPU: its segments inside a burst are no window, whatever its open
    // segment says, and it alone advances during the burst.
    void controlCounterMakesNoWindow()
    {
        StarvationAggregator agg(2, 1, kStarvAggWindowNs, kStarvAggSampleNs);
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::RunStart, 0, 0, {0, 0}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstStart, 1, 100 * kStarvAggMs, {500, 500}));
        agg.addEvent(starvAggEvent(StarvationSpinnerEvent::BurstEnd, 1, 400 * kStarvAggMs, {500, 3500}));
        starvAggAddSegments(agg, 1, {starvAggSeg(0, 400 * kStarvAggMs)});
        auto open = starvAggNoneOpen();
        open[1] = starvAggSeg(50 * kStarvAggMs, 450 * kStarvAggMs); // open since before the end: only a starved
                                                                    // counter's would keep the burst unsettled
        agg.updateWindows(kStarvAggT0 + 450 * kStarvAggMs, open);
        const BurstRecord& b = agg.bursts().front();
        QVERIFY(b.windows.empty());
        QVERIFY(b.windowsFinal);
        QCOMPARE(b.during, starvAggCounts({0, 3000}));
        QCOMPARE(b.duringSum(agg.starved()), uint64_t(0));
        const auto stats = agg.counterStats(INT64_MIN);
        QVERIFY(!stats[0].control);
        QVERIFY(stats[1].control);
        QCOMPARE(stats[1].label, std::string("control"));
    }

    // The live rate spans the last kLiveRateSamples (10) intervals: a jump 11 samples back is out of it.
    void liveRateOverTheLastTenIntervals()
    {
        QCOMPARE(StarvationAggregator::kLiveRateSamples, 10);
        StarvationAggregator agg(1, 1, kStarvAggWindowNs, kStarvAggSampleNs);
        agg.addSample(starvAggSample(10 * kStarvAggMs, {0}));
        QCOMPARE(agg.counterStats(INT64_MIN)[0].opsPerSec, 0.0); // one sample: no interval yet
        agg.addSample(starvAggSample(20 * kStarvAggMs, {10'000}));
        QCOMPARE(agg.counterStats(INT64_MIN)[0].opsPerSec, 1'000'000.0); // 10 000 ops in 10 ms
        for (int k = 1; k <= 10; ++k)
            agg.addSample(starvAggSample((20 + 10 * k) * kStarvAggMs, {10'000 + 500 * uint64_t(k)}));
        // Newest at 120 ms (15 000), ten back at 20 ms (10 000): 5000 ops in 100 ms.
        QCOMPARE(agg.counterStats(INT64_MIN)[0].opsPerSec, 50'000.0);
        QCOMPARE(agg.counterStats(INT64_MIN)[0].ops, uint64_t(15'000));
        // Past the 16 kept samples the history wraps; the figure stays the same.
        for (int k = 11; k <= 20; ++k)
            agg.addSample(starvAggSample((20 + 10 * k) * kStarvAggMs, {10'000 + 500 * uint64_t(k)}));
        QCOMPARE(agg.counterStats(INT64_MIN)[0].opsPerSec, 50'000.0);
    }

    // A repeated timestamp adds no point (no interval); a count that goes back reads 0, never a huge rate; the
    // rate line is cut at the asked start.
    void rateLineEdges()
    {
        StarvationAggregator agg(1, 1, kStarvAggWindowNs, kStarvAggSampleNs);
        agg.addSample(starvAggSample(10 * kStarvAggMs, {1000}));
        agg.addSample(starvAggSample(10 * kStarvAggMs, {1500}));
        agg.addSample(starvAggSample(20 * kStarvAggMs, {1400}));
        agg.addSample(starvAggSample(30 * kStarvAggMs, {2400}));
        const auto all = agg.counterStats(INT64_MIN)[0];
        QCOMPARE(all.ops, uint64_t(2400));
        QCOMPARE(all.rate.size(), size_t(2));
        QCOMPARE(all.rate[0].tNs, kStarvAggT0 + 10 * kStarvAggMs);
        QCOMPARE(all.rate[0].maxNs, int64_t(0));
        QCOMPARE(all.rate[1].tNs, kStarvAggT0 + 20 * kStarvAggMs);
        QCOMPARE(all.rate[1].maxNs, int64_t(100'000));
        const auto recent = agg.counterStats(kStarvAggT0 + 15 * kStarvAggMs)[0];
        QCOMPARE(recent.rate.size(), size_t(1));
        QCOMPARE(recent.rate[0].tNs, kStarvAggT0 + 20 * kStarvAggMs);
    }

    // Past kMaxSegmentsKept the older half of a counter's segments goes, at once.
    void segmentMemoryIsBounded()
    {
        StarvationAggregator agg(1, 1, kStarvAggWindowNs, kStarvAggSampleNs);
        std::vector<RunSegment> many(StarvationAggregator::kMaxSegmentsKept + 1);
        for (size_t i = 0; i < many.size(); ++i)
            many[i] = starvAggSeg(int64_t(i) * 10'000, int64_t(i) * 10'000 + 5'000);
        agg.addSegments(0, many.data(), StarvationAggregator::kMaxSegmentsKept);
        QCOMPARE(agg.segmentsKept(0), StarvationAggregator::kMaxSegmentsKept);
        agg.addSegments(0, many.data() + StarvationAggregator::kMaxSegmentsKept, 1);
        QCOMPARE(agg.segmentsKept(0), StarvationAggregator::kMaxSegmentsKept / 2 + 1); // 200 001 − 100 000
        agg.addSegments(5, many.data(), 1);                                            // no such counter: ignored
        QCOMPARE(agg.segmentsKept(0), StarvationAggregator::kMaxSegmentsKept / 2 + 1);
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestStarvationAggregator)
#include "tst_starvation_aggregator.moc"
