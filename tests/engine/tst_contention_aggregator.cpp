// ctest: parallel. Pure aggregation.
// The contention lab's aggregator without threads or locks: made-up waits and worker counters in, the kind's
// figures out, each checked against a value worked out by hand in the comments (docs/experiments/locks.md, "How it
// is measured", says what the figures mean).
#include "engine/pipeline/contention_aggregator.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <cstdint>
#include <vector>

using namespace rtscope;

namespace {

/// One worker's counters: @p acquisitions split into uncontended, spun and slept as given.
ContentionThreadStats contentionAggWorker(int index, uint64_t uncontended, uint64_t spun, uint64_t slept, int64_t cpuNs,
                                          uint64_t dropped = 0)
{
    ContentionThreadStats t;
    t.index = index;
    t.cpu = index % 2;
    t.tid = 1000 + index;
    t.counts.uncontended = uncontended;
    t.counts.spun = spun;
    t.counts.slept = slept;
    t.counts.acquisitions = uncontended + spun + slept;
    t.cpuNs = cpuNs;
    t.samplesDropped = dropped;
    return t;
}

} // namespace

class TestContentionAggregator : public QObject {
    Q_OBJECT
private slots:
    void emptyKindHasNoFigures()
    {
        // Released at 1000 ns, planned to end at 2000 ns, looked at 1500 ns: 500 ns measured, nothing else.
        const ContentionAggregator a(1000, 2000);
        const ContentionKindFigures f = a.figures(KindRunState::Running, 1500, 0, {});
        QCOMPARE(int(f.state), int(KindRunState::Running));
        QCOMPARE(f.startNs, int64_t(1000));
        QCOMPARE(f.elapsedNs, int64_t(500));
        QCOMPARE(f.counts, AcquisitionCounts{});
        QCOMPARE(f.acquisitionsPerSec, 0.0);
        QCOMPARE(f.wait.count(), uint64_t(0));
        QCOMPARE(f.samplesDropped, uint64_t(0));
        QCOMPARE(f.cpuNsPerAcquisition, 0.0);
        QCOMPARE(f.fairness, 0.0);
        QCOMPARE(f.minShare, 0.0);
        QCOMPARE(f.maxShare, 0.0);
        QVERIFY(f.threads.empty());
        QVERIFY(f.error.empty());

        // A kind that failed before it had a start (its lock could not be made): no time, no division by it.
        const ContentionKindFigures never = ContentionAggregator().figures(KindRunState::Failed, 123'456, 0, {});
        QCOMPARE(int(never.state), int(KindRunState::Failed));
        QCOMPARE(never.elapsedNs, int64_t(0));
        QCOMPARE(never.acquisitionsPerSec, 0.0);

        // Workers that exist but have not acquired yet: every share stays 0, and so does the fairness.
        const ContentionKindFigures idle =
            a.figures(KindRunState::Running, 1500, 0, {contentionAggWorker(0, 0, 0, 0, 0)});
        QCOMPARE(idle.threads.size(), size_t(1));
        QCOMPARE(idle.fairness, 0.0);
        QCOMPARE(idle.minShare, 0.0);
        QCOMPARE(idle.cpuNsPerAcquisition, 0.0);
    }

    void oneAcquisition()
    {
        // 1 s … 3 s planned, looked at after 0.5 s: one acquisition in 0.5 s is 2 per second.
        ContentionAggregator a(1'000'000'000, 3'000'000'000);
        a.add(LockWaitSample{250});
        ContentionThreadStats w = contentionAggWorker(0, 1, 0, 0, 400);
        w.voluntarySwitches = 2;
        w.involuntarySwitches = 3;
        const ContentionKindFigures f = a.figures(KindRunState::Running, 1'500'000'000, 0, {w});
        QCOMPARE(f.elapsedNs, int64_t(500'000'000));
        QCOMPARE(f.counts.acquisitions, uint64_t(1));
        QCOMPARE(f.counts.uncontended, uint64_t(1));
        QCOMPARE(f.acquisitionsPerSec, 2.0);
        QCOMPARE(f.wait.count(), uint64_t(1));
        QCOMPARE(f.wait.min(), int64_t(250));
        QCOMPARE(f.wait.max(), int64_t(250));
        QCOMPARE(f.cpuNsPerAcquisition, 400.0);
        QCOMPARE(f.voluntarySwitches, uint64_t(2));
        QCOMPARE(f.involuntarySwitches, uint64_t(3));
        // One worker took every acquisition, and it is the only one: perfectly fair, share 1.
        QCOMPARE(f.fairness, 1.0);
        QCOMPARE(f.minShare, 1.0);
        QCOMPARE(f.maxShare, 1.0);
        QCOMPARE(f.threads.size(), size_t(1));
        QCOMPARE(f.threads[0].tid, 1000);
        QCOMPARE(f.threads[0].cpuNs, int64_t(400));
    }

    void typicalKindSumsTheWorkers()
    {
        // Three workers: 30, 10 and 20 acquisitions (60), 600 + 300 + 300 ns of CPU (1200).
        const int64_t start = 10'000;
        const int64_t end = start + 2'000'000'000;
        ContentionAggregator a(start, end);
        std::vector<LockWaitSample> waits;
        for (int i = 1; i <= 60; ++i)
            waits.push_back({int64_t(i) * 100}); // 100, 200, … 6000 ns: sum 100·(60·61/2) = 183000
        a.add(waits.data(), waits.size());
        std::vector<ContentionThreadStats> workers = {contentionAggWorker(0, 10, 15, 5, 600),
                                                      contentionAggWorker(1, 2, 3, 5, 300),
                                                      contentionAggWorker(2, 20, 0, 0, 300)};
        workers[0].counts.spinIterations = 700;
        workers[1].counts.sleptOwnerNotRunning = 4;
        workers[1].counts.sleptSpinLimit = 1;
        workers[1].counts.futexSleeps = 5;
        workers[0].voluntarySwitches = 7;
        workers[2].voluntarySwitches = 1;
        workers[1].involuntarySwitches = 9;

        // Looked at 5 ms after the planned end: the measured time stops at the end, 2 s.
        const ContentionKindFigures f = a.figures(KindRunState::Done, end + 5'000'000, 0, workers);
        QCOMPARE(int(f.state), int(KindRunState::Done));
        QCOMPARE(f.elapsedNs, int64_t(2'000'000'000));
        QCOMPARE(f.counts.acquisitions, uint64_t(60));
        QCOMPARE(f.counts.uncontended, uint64_t(32));
        QCOMPARE(f.counts.spun, uint64_t(18));
        QCOMPARE(f.counts.slept, uint64_t(10));
        QCOMPARE(f.counts.spinIterations, uint64_t(700));
        QCOMPARE(f.counts.sleptOwnerNotRunning, uint64_t(4));
        QCOMPARE(f.counts.sleptSpinLimit, uint64_t(1));
        QCOMPARE(f.counts.futexSleeps, uint64_t(5));
        QCOMPARE(f.voluntarySwitches, uint64_t(8));
        QCOMPARE(f.involuntarySwitches, uint64_t(9));
        QCOMPARE(f.acquisitionsPerSec, 30.0);  // 60 in 2 s
        QCOMPARE(f.cpuNsPerAcquisition, 20.0); // 1200 / 60
        // Mean 20 per worker: the fewest (10) is half of it, the most (30) one and a half.
        QCOMPARE(f.minShare, 0.5);
        QCOMPARE(f.maxShare, 1.5);
        // Jain: 60² / (3 · (30² + 10² + 20²)) = 3600 / 4200 = 6/7.
        QCOMPARE(f.fairness, 6.0 / 7.0);
        QCOMPARE(f.wait.count(), uint64_t(60));
        QCOMPARE(f.wait.min(), int64_t(100));
        QCOMPARE(f.wait.max(), int64_t(6000));
        QCOMPARE(f.wait.mean(), 3050.0); // 183000 / 60
        QCOMPARE(f.samplesDropped, uint64_t(0));
        QCOMPARE(f.threads.size(), size_t(3));
        QCOMPARE(f.counts.uncontended + f.counts.spun + f.counts.slept, f.counts.acquisitions);
    }

    void droppedWaitsAreCountedNotInvented()
    {
        // Two workers with 10 acquisitions each; the first worker's ring refused 5 waits, so 15 reached the
        // aggregator. Throughput and counters still count all 20; the histogram has the 15 it saw.
        ContentionAggregator a(0, 1'000'000'000);
        for (int i = 0; i < 15; ++i)
            a.add(LockWaitSample{1000});
        const ContentionKindFigures f =
            a.figures(KindRunState::Done, 1'000'000'000, 0,
                      {contentionAggWorker(0, 10, 0, 0, 100, 5), contentionAggWorker(1, 10, 0, 0, 100)});
        QCOMPARE(f.samplesDropped, uint64_t(5));
        QCOMPARE(f.threads[0].samplesDropped, uint64_t(5));
        QCOMPARE(f.threads[1].samplesDropped, uint64_t(0));
        QCOMPARE(f.counts.acquisitions, uint64_t(20));
        QCOMPARE(f.wait.count(), uint64_t(15));
        QCOMPARE(f.wait.count() + f.samplesDropped, f.counts.acquisitions);
        QCOMPARE(f.acquisitionsPerSec, 20.0);
    }

    void stopEndsTheMeasuredTime()
    {
        // Planned 0 … 10 s, stopped at 3 s, looked at 4 s: 3 s measured, 30 acquisitions are 10 per second.
        const ContentionAggregator a(0, 10'000'000'000);
        const ContentionKindFigures f =
            a.figures(KindRunState::Stopped, 4'000'000'000, 3'000'000'000, {contentionAggWorker(0, 30, 0, 0, 1)});
        QCOMPARE(int(f.state), int(KindRunState::Stopped));
        QCOMPARE(f.elapsedNs, int64_t(3'000'000'000));
        QCOMPARE(f.acquisitionsPerSec, 10.0);
        // Without the stop the same look ends at 4 s.
        QCOMPARE(a.figures(KindRunState::Running, 4'000'000'000, 0, {}).elapsedNs, int64_t(4'000'000'000));
        // A clock read before the release never makes the time negative.
        const ContentionAggregator late(5'000, 10'000);
        QCOMPARE(late.figures(KindRunState::Running, 4'000, 0, {}).elapsedNs, int64_t(0));
        QCOMPARE(late.figures(KindRunState::Stopped, 9'000, 4'000, {}).elapsedNs, int64_t(0));
    }

    void orderOfWaitsAndWorkers()
    {
        // The waits' order does not matter (a distribution); the workers keep theirs (rows of the table).
        ContentionAggregator batch(0, 1000), oneByOne(0, 1000);
        const std::vector<LockWaitSample> waits = {{50}, {7}, {900}, {7}, {3000}};
        batch.add(waits.data(), waits.size());
        for (auto it = waits.rbegin(); it != waits.rend(); ++it)
            oneByOne.add(*it);
        QCOMPARE(batch.waits().count(), uint64_t(5));
        QCOMPARE(oneByOne.waits().count(), batch.waits().count());
        QCOMPARE(oneByOne.waits().min(), int64_t(7));
        QCOMPARE(batch.waits().max(), int64_t(3000));
        for (double p : {0.0, 25.0, 50.0, 75.0, 100.0})
            QCOMPARE(oneByOne.waits().percentile(p), batch.waits().percentile(p));
        batch.add(nullptr, 0); // an empty batch adds nothing
        QCOMPARE(batch.waits().count(), uint64_t(5));

        const ContentionKindFigures f =
            batch.figures(KindRunState::Running, 500, 0,
                          {contentionAggWorker(2, 1, 0, 0, 1), contentionAggWorker(0, 3, 0, 0, 1),
                           contentionAggWorker(1, 2, 0, 0, 1)});
        QCOMPARE(f.threads.size(), size_t(3));
        QCOMPARE(f.threads[0].index, 2);
        QCOMPARE(f.threads[1].index, 0);
        QCOMPARE(f.threads[2].index, 1);
        QCOMPARE(f.threads[1].counts.acquisitions, uint64_t(3));
    }

    void limits()
    {
        // A wait beyond what the histogram tracks is still counted (as an overflow), not lost.
        ContentionAggregator a(0, 1000);
        a.add(LockWaitSample{Histogram::kMaxTrackableNs + 1});
        QCOMPARE(a.waits().count(), uint64_t(1));
        QCOMPARE(a.waits().overflowCount(), uint64_t(1));
        // Counts far beyond 2^32 per worker: the fairness sums in long double and stays exact for equal shares.
        const uint64_t many = uint64_t(1) << 40;
        QCOMPARE(jainFairness({many, many}), 1.0);
        QCOMPARE(jainFairness({many, 0}), 0.5);
        // Jain's bounds: 1 when even, 1/n when one took all, 0 for nothing; (30+10)² / (2·(900+100)) = 0.8.
        QCOMPARE(jainFairness({10, 10, 10, 10}), 1.0);
        QCOMPARE(jainFairness({40, 0, 0, 0}), 0.25);
        QCOMPARE(jainFairness({}), 0.0);
        QCOMPARE(jainFairness({0, 0}), 0.0);
        QCOMPARE(jainFairness({30, 10}), 0.8);
        // One worker took everything among four: share 4 of the mean, the others 0.
        const ContentionKindFigures f =
            a.figures(KindRunState::Done, 1000, 0,
                      {contentionAggWorker(0, 40, 0, 0, 1), contentionAggWorker(1, 0, 0, 0, 1),
                       contentionAggWorker(2, 0, 0, 0, 1), contentionAggWorker(3, 0, 0, 0, 1)});
        QCOMPARE(f.maxShare, 4.0);
        QCOMPARE(f.minShare, 0.0);
        QCOMPARE(f.fairness, 0.25);
    }

    void namesAndSums()
    {
        const std::pair<KindRunState, const char*> names[] = {{KindRunState::Pending, "pending"},
                                                              {KindRunState::Running, "running"},
                                                              {KindRunState::Done, "done"},
                                                              {KindRunState::Stopped, "stopped"},
                                                              {KindRunState::Failed, "failed"}};
        for (const auto& [state, name] : names)
            QCOMPARE(kindRunStateName(state), name);
        AcquisitionCounts a{1, 2, 3, 4, 5, 6, 7, 8, 9};
        a.add(AcquisitionCounts{10, 20, 30, 40, 50, 60, 70, 80, 90});
        QCOMPARE(a, (AcquisitionCounts{11, 22, 33, 44, 55, 66, 77, 88, 99}));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestContentionAggregator)
#include "tst_contention_aggregator.moc"
