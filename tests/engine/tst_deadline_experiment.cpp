// The deadline lab end to end on the real kernel: admission refuses the task that does not fit and admits it once
// another has left; a runaway deadline task is throttled to its runtime (+ one tick) every period while a
// SCHED_OTHER counter progresses in every period; EDF meets the deadlines inverted FIFO priorities miss; a stop
// joins every thread within the budget. Skipped, with the kernel's reason, only where SCHED_DEADLINE is refused.
#include "engine/experiments/deadline/deadline_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/clock.h"

#include "tests/common/short_experiment_configs.h"
#include "tests/common/test_main.h"
#include "tests/common/thread_census.h"

#include <QtTest>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>

using namespace rtscope;
using namespace rtscope::test;

namespace {

// Runs @p c to its end; a Permission error (no SCHED_DEADLINE here) is returned for the caller to skip on.
std::shared_ptr<const DeadlineSnapshot> deadlineRunToEnd(DeadlineExperiment& exp, const DeadlineConfig& c, Error& e)
{
    e = exp.start(c, CpuTopology::current());
    if (e)
        return nullptr;
    const int64_t giveUp = nowNs() + 30'000'000'000;
    while (!exp.finished() && nowNs() < giveUp)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    exp.stop();
    return exp.snapshot();
}

} // namespace

// Runs @p config to its end into a new `s`: skips the test where the kernel refuses SCHED_DEADLINE here, fails it on
// any other error. A macro because RTSCOPE_SKIP and QVERIFY return from the test function itself.
#define DEADLINE_RUN_OR_SKIP(s, exp, config)                                                                           \
    Error deadlineRunError;                                                                                            \
    auto s = deadlineRunToEnd(exp, config, deadlineRunError);                                                          \
    if (deadlineRunError.kind == ErrorKind::Permission)                                                                \
        RTSCOPE_SKIP(Deadline, deadlineRunError.message);                                                              \
    QVERIFY2(!deadlineRunError, deadlineRunError.message.c_str());                                                     \
    QVERIFY(s)

class TestDeadlineExperiment : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        installWakeSignalHandler();
        blockProcessSignals(false);
    }

    void admissionRefusesWhatDoesNotFitAndAdmitsItOnceAnotherLeft()
    {
        DeadlineConfig c;
        c.lesson = DeadlineLesson::Admission;
        const int cpus = int(CpuTopology::current().online.size());
        // 80 % tasks: one more than the CPUs can hold (95 % each, minus the fair servers).
        c.tasks.assign(size_t(cpus + 1), DeadlineParams{4'000'000, 5'000'000, 5'000'000});
        DeadlineExperiment exp;
        DEADLINE_RUN_OR_SKIP(s, exp, c);
        const auto& rows = s->admission;
        size_t refused = rows.size();
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i].step.action == DeadlineAdmissionStep::Action::Add && !rows[i].step.admitted) {
                refused = i;
                break;
            }
        QVERIFY2(refused < rows.size(), "no task was refused");
        QVERIFY(refused >= 1 && rows[0].step.admitted);
        QVERIFY2(rows[refused].step.answer.find("EBUSY") != std::string::npos, rows[refused].step.answer.c_str());
        QVERIFY(refused + 2 < rows.size());
        QCOMPARE(rows[refused + 1].step.action, DeadlineAdmissionStep::Action::Remove);
        QCOMPARE(rows[refused + 2].step.action, DeadlineAdmissionStep::Action::Retry);
        QCOMPARE(rows[refused + 2].step.task, rows[refused].step.task);
        QVERIFY2(rows[refused + 2].step.admitted, rows[refused + 2].step.answer.c_str());
        QCOMPARE(threadsAlive("rtscope-dl-"), 0);
    }

    void runawayIsThrottledWhileTheCounterProgresses()
    {
        const DeadlineConfig c = deadlineLessonConfig(DeadlineLesson::Isolation, 600'000'000);
        DeadlineExperiment exp;
        DEADLINE_RUN_OR_SKIP(s, exp, c);
        const DeadlineTaskStats& runaway = s->tasks[kDeadlineRunaway];
        // 10 ms per 50 ms for 600 ms: about 12 stretches on the CPU, each ended by the kernel's throttling.
        QVERIFY2(runaway.jobs >= 6, qPrintable(QString::number(runaway.jobs)));
        const int64_t bound = c.runaway.runtimeNs + std::max<int64_t>(s->tickNs, 1'000'000);
        QVERIFY2(runaway.maxRanNs <= bound, qPrintable(QString("max %1 ns > %2 ns").arg(runaway.maxRanNs).arg(bound)));
        // Throttled: over the run it got at most its runtime (plus the tick the kernel may overrun by) in each period,
        // not the whole CPU it asked for by spinning. Counted over the run rather than per stretch: a preemption by
        // the good task splits a stretch in two with a short gap, and where the kernel put each unpinned task decides
        // how often that happens.
        const int64_t periods = c.durationNs / c.runaway.periodNs + 1;
        QVERIFY2(
            runaway.totalRanNs <= periods * bound,
            qPrintable(
                QString("ran %1 ns in %2 periods > %3 ns").arg(runaway.totalRanNs).arg(periods).arg(periods * bound)));
        QVERIFY2(s->counter.windows >= 8, qPrintable(QString::number(s->counter.windows)));
        QCOMPARE(s->counter.stalledWindows, uint64_t(0));
        QVERIFY(s->tasks[kDeadlineGood].jobs >= 20);
        QCOMPARE(s->tasks[kDeadlineGood].misses, uint64_t(0));
        QVERIFY(s->watchdogTrips.empty());
        // SCHED_FLAG_DL_OVERRUN: the runaway overruns about once per period, the good task (0.5 ms of work in a
        // 2 ms reservation) never. A kernel without the flag says so instead of a 0.
        if (!runaway.overrunsCounted) {
            QVERIFY2(QString::fromStdString(runaway.overrunsNote).startsWith("not counted: "),
                     runaway.overrunsNote.c_str());
        } else {
            QVERIFY2(runaway.overruns > 0, "the runaway's overruns were counted as 0");
            QVERIFY(s->tasks[kDeadlineGood].overrunsCounted);
            QCOMPARE(s->tasks[kDeadlineGood].overruns, uint64_t(0));
        }
        // Everything the reservations leave is the counter's: the runaway may take 20 % of a CPU.
        QVERIFY(s->counter.cpuShare().has_value());
        QVERIFY2(*s->counter.cpuShare() > 0.4, s->counterVerdict.c_str());
    }

    void fifoRunawayLeavesTheCounterOnlyTheSafetyNet()
    {
        DeadlineConfig c;
        c.lesson = DeadlineLesson::Isolation;
        c.runawayPolicy = DeadlineRunawayPolicy::Fifo;
        c.durationNs = 400'000'000;
        DeadlineExperiment exp;
        DEADLINE_RUN_OR_SKIP(s, exp, c);
        QCOMPARE(s->slotNames[kDeadlineRunaway], std::string("runaway (FIFO 50)"));
        QVERIFY(!s->tasks[kDeadlineRunaway].overrunsCounted);
        QVERIFY(QString::fromStdString(s->tasks[kDeadlineRunaway].overrunsNote).contains("SCHED_FIFO"));
        // The fair server's window is 50 ms per second at most (and deferred: a run this short may see none), RT
        // throttling's likewise; a quarter of the CPU is far above either and far below what DEADLINE leaves.
        QVERIFY(s->counter.cpuShare().has_value());
        QVERIFY2(*s->counter.cpuShare() < 0.25, s->counterVerdict.c_str());
        QVERIFY(QString::fromStdString(s->counterVerdict).contains("SCHED_FIFO 50 runaway"));
        QVERIFY(s->watchdogTrips.empty());
        QCOMPARE(threadsAlive("rtscope-fifo-spin"), 0);
        QCOMPARE(s->tasks[kDeadlineGood].misses, uint64_t(0));
    }

    void edfMeetsTheDeadlinesInvertedFifoMisses()
    {
        const DeadlineConfig c = deadlineLessonConfig(DeadlineLesson::Edf, 400'000'000);
        DeadlineExperiment exp;
        DEADLINE_RUN_OR_SKIP(s, exp, c);
        QVERIFY2(s->deadlinePhaseRan, s->deadlinePhaseNote.c_str());
        // Under FIFO the long task's 8 ms job holds the CPU past the short task's 4 ms deadline every 20 ms.
        QVERIFY(s->tasks[kDeadlineFifoShort].jobs >= 50);
        QVERIFY(s->tasks[kDeadlineFifoShort].misses > 0);
        QCOMPARE(s->tasks[kDeadlineFifoLong].misses, uint64_t(0));
        QVERIFY(s->tasks[kDeadlineDlShort].jobs >= 50);
        // Not == 0: on this 2-CPU VM, shared with other engineers' real-time tests, the deadline short task missed
        // 0–2 of 100 jobs by 0.2–0.5 ms (measured: `rtscope deadline --lesson edf -D 400ms --json`), against ~60
        // FIFO misses; with a build running on both vCPUs once 11 against 60 (the host took time from the tasks,
        // whose reservations are their work + 25 %). FIFO's misses are structural (every long job blocks the short
        // task), DEADLINE's come from the machine: at most a quarter of FIFO's is the shape the lesson shows on a
        // shared VM; docs/experiments/deadline.md.
        const uint64_t fifo = s->tasks[kDeadlineFifoShort].misses;
        const uint64_t dl = s->tasks[kDeadlineDlShort].misses + s->tasks[kDeadlineDlLong].misses;
        qInfo("deadline %llu misses, FIFO %llu", (unsigned long long)dl, (unsigned long long)fifo);
        QVERIFY2(dl * 4 <= fifo, qPrintable(QString("deadline %1 misses, FIFO %2").arg(dl).arg(fifo)));
    }

    void stopJoinsEveryThreadWithinTheBudget()
    {
        const DeadlineConfig c = deadlineLessonConfig(DeadlineLesson::Isolation, 10'000'000'000);
        DeadlineExperiment exp;
        Error e = exp.start(c, CpuTopology::current());
        if (e.kind == ErrorKind::Permission)
            RTSCOPE_SKIP(Deadline, e.message);
        QVERIFY2(!e, e.message.c_str());
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        const int64_t t0 = nowNs();
        exp.stop();
        const int64_t took = nowNs() - t0;
        // The join budget is 100 ms per thread group; the collector's last drain and publish come on top.
        QVERIFY2(took < 2 * int64_t(kJoinBudgetMs) * 1'000'000, qPrintable(QString::number(took)));
        QCOMPARE(threadsAlive(), 0);
        QVERIFY(exp.snapshot()->tasks[kDeadlineRunaway].jobs >= 1);
    }

    void badValuesAreSentencesNamingTheField()
    {
        DeadlineConfig c;
        c.lesson = DeadlineLesson::Isolation;
        c.runaway = {49'500'000, 50'000'000, 50'000'000};
        c.goodWorkNs = 3'000'000;
        auto p = c.validate(CpuTopology::current());
        const auto hasProblem = [&](const char* start) {
            return std::any_of(p.begin(), p.end(), [&](const std::string& s) { return s.starts_with(start); });
        };
        QCOMPARE(p.size(), size_t(2));
        QVERIFY(hasProblem("runaway-runtime must leave at least 1.00 ms"));
        QVERIFY(hasProblem("good-work must be between"));
        // A value the chosen lesson does not use is still refused, not ignored: -p under admission.
        c = DeadlineConfig{};
        c.priority = -1;
        p = c.validate(CpuTopology::current());
        QCOMPARE(p.size(), size_t(1));
        QVERIFY(hasProblem("priority must be between 1 and 97"));
        c = DeadlineConfig{};
        c.lesson = DeadlineLesson::Edf;
        c.longWorkNs = 16'000'000;
        p = c.validate(CpuTopology::current());
        QVERIFY(!p.empty());
        QVERIFY(QString::fromStdString(p[0]).startsWith("short and long together must need less than 95 %"));
        std::vector<std::string> errors;
        DeadlineConfig back = deadlineConfigFromJson(toJson(c), errors);
        QVERIFY(errors.empty());
        QVERIFY(back == c);
        deadlineConfigFromJson(nlohmann::json{{"lesson", "fifo"}, {"tasks", {{{"runtime_ns", 1}}}}}, errors);
        QCOMPARE(errors.size(), size_t(2));
        // The runaway's policy: a name in JSON, a range for its priority.
        errors.clear();
        back = deadlineConfigFromJson(nlohmann::json{{"lesson", "isolation"}, {"runaway_policy", "rr"}}, errors);
        QCOMPARE(errors.size(), size_t(1));
        QVERIFY2(QString::fromStdString(errors[0]).contains("runaway_policy"), errors[0].c_str());
        errors.clear();
        back = deadlineConfigFromJson(
            nlohmann::json{{"lesson", "isolation"}, {"runaway_policy", "fifo"}, {"runaway_priority", 99}}, errors);
        QVERIFY(errors.empty());
        QCOMPARE(back.runawayPolicy, DeadlineRunawayPolicy::Fifo);
        p = back.validate(CpuTopology::current());
        QCOMPARE(p.size(), size_t(1));
        QVERIFY2(QString::fromStdString(p[0]).startsWith("runaway-priority must be between 1 and 97"), p[0].c_str());
        QVERIFY(deadlineConfigFromJson(toJson(back), errors) == back);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestDeadlineExperiment)
#include "tst_deadline_experiment.moc"
