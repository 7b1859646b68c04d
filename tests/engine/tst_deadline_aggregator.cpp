// ctest: parallel. Pure aggregation.
// The deadline lab's aggregator on synthetic input: admission totals against the limit, job statistics per task
// (runtime per job, time off the CPU, misses, CPUs) and the counter's progress per window.
#include "engine/pipeline/deadline_aggregator.h"

#include "tests/common/test_main.h"

#include <QtTest>
#include <tuple>

using namespace rtscope;

class TestDeadlineAggregator : public QObject {
    Q_OBJECT

private slots:
    void admissionTotalsFollowTheKernelsAnswers()
    {
        DeadlineAggregator a;
        DeadlineBudget b;
        b.perCpuLimit = 0.95;
        b.cpus = 2;
        b.fairServers = 0.10;
        b.fairServerKernel = true;
        a.setBudget(b);
        QCOMPARE(*b.limit(), 1.80);
        using A = DeadlineAdmissionStep::Action;
        a.addAdmission({A::Add, 0, 8'000'000, 10'000'000, true, 1, "admitted"});
        a.addAdmission({A::Add, 1, 8'000'000, 10'000'000, true, 1, "admitted"});
        a.addAdmission({A::Add, 2, 8'000'000, 10'000'000, false, 1, "EBUSY"});
        a.addAdmission({A::Remove, 0, 8'000'000, 10'000'000, true, 1, "left"});
        a.addAdmission({A::Retry, 2, 8'000'000, 10'000'000, true, 3, "admitted"});
        const auto& rows = a.admission();
        QCOMPARE(rows.size(), size_t(5));
        QCOMPARE(*rows[0].predicted, true);
        QCOMPARE(*rows[1].predicted, true);
        QCOMPARE(*rows[2].predicted, false); // 160 % + 80 % > 180 %
        QVERIFY(qFuzzyCompare(rows[2].ownTotal, 1.6));
        QVERIFY(!rows[3].predicted);
        QVERIFY(qFuzzyCompare(rows[3].ownTotal, 0.8));
        QCOMPARE(*rows[4].predicted, true);
        QVERIFY(qFuzzyCompare(rows[4].ownTotal, 1.6));
        QCOMPARE(rows[4].step.attempts, 3);
    }

    void unknownFairServersLeaveTheLimitUnknown()
    {
        DeadlineBudget b;
        b.perCpuLimit = 0.95;
        b.cpus = 2;
        b.fairServerKernel = true; // but not readable
        QVERIFY(!b.limit());
        b.fairServerKernel = false;
        QCOMPARE(*b.limit(), 1.90);
        DeadlineAggregator a;
        b.perCpuLimit.reset();
        a.setBudget(b);
        a.addAdmission({DeadlineAdmissionStep::Action::Add, 0, 1'000'000, 2'000'000, true, 1, "admitted"});
        QVERIFY(!a.admission()[0].predicted);
    }

    void jobsAreCountedPerTask()
    {
        DeadlineAggregator a(2);
        a.add({0, 1, 0, 10, 10'500'000, 39'000'000, 0, false});
        a.add({0, 0, 50, 60, 9'800'000, 40'000'000, 0, false});
        a.add({1, 3, 0, 2, 500'000, 0, -1'000'000, false});
        a.add({1, 3, 20, 25, 500'000, 0, 2'000'000, true});
        a.add({5, 0, 0, 1, 1, 0, 0, false}); // no such slot
        const auto& t = a.tasks();
        QCOMPARE(t[0].jobs, uint64_t(2));
        QCOMPARE(t[0].maxRanNs, int64_t(10'500'000));
        QCOMPARE(t[0].totalGapNs, int64_t(79'000'000));
        QCOMPARE(t[0].maxGapNs, int64_t(40'000'000));
        QCOMPARE(t[0].jobsPerCpu, (std::vector<uint64_t>{1, 1}));
        QCOMPARE(t[1].misses, uint64_t(1));
        QCOMPARE(t[1].maxLateNs, int64_t(2'000'000));
        QCOMPARE(t[1].jobsPerCpu, (std::vector<uint64_t>{0, 0, 0, 2}));
        QCOMPARE(a.badSlots(), uint64_t(1));
        QCOMPARE(a.jobs().size(), size_t(4));
    }

    void counterWindowsFindStalls()
    {
        DeadlineAggregator a;
        a.addCounter({0, 100});
        QCOMPARE(a.counter().windows, uint64_t(0)); // the first sample is the baseline
        a.addCounter({50, 300});
        a.addCounter({100, 300});
        a.addCounter({170, 400});
        const DeadlineCounterStats& c = a.counter();
        // Windows, stalled windows; operations in the least busy window, the busiest and all; the longest window and
        // their total length.
        QCOMPARE(
            std::tuple(c.windows, c.stalledWindows, c.minOps, c.maxOps, c.totalOps, c.maxWindowNs, c.totalWindowNs),
            std::tuple(uint64_t(3), uint64_t(1), uint64_t(0), uint64_t(200), uint64_t(300), int64_t(70), int64_t(170)));
        QVERIFY(!c.cpuShare()); // no sample carried the counter's CPU time: unknown, not 0
    }

    void counterShareCountsOnlyWindowsWithCpuTimes()
    {
        DeadlineAggregator a;
        a.addCounter({0, 0, -1});
        a.addCounter({100, 10, 20}); // the window before has no CPU time at its start: not in the share
        a.addCounter({200, 20, 30});
        a.addCounter({400, 20, 30}); // starved: no CPU time in 200 ns
        const DeadlineCounterStats& c = a.counter();
        QCOMPARE(c.cpuNs, int64_t(10));
        QCOMPARE(c.cpuWallNs, int64_t(300));
        QVERIFY(c.cpuShare().has_value());
        QCOMPARE(*c.cpuShare(), 10.0 / 300.0);
        QCOMPARE(c.totalWindowNs, int64_t(400));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestDeadlineAggregator)
#include "tst_deadline_aggregator.moc"
