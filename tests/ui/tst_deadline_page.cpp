// The deadline page (ui/deadline/): each lesson runs for real, briefly, and the chart, the tiles and the table show
// the snapshot's own figures; bad values are refused with DeadlineConfig::validate()'s sentence and nothing starts;
// Stop joins every thread within 100 ms; a finished isolation run held as the reference is drawn under the next.
#include "engine/experiments/deadline/deadline_experiment.h"
#include "tests/common/page_test_util.h"
#include "tests/common/short_experiment_configs.h"
#include "ui/common/fact_tile.h"
#include "ui/common/unpinned_topology.h"
#include "ui/deadline/deadline_controls.h"
#include "ui/deadline/deadline_page.h"
#include "ui/deadline/deadline_table_model.h"
#include "ui/plot/deadline_chart.h"
#include "ui/widgets/duration_spin_box.h"

#include "tests/common/test_main.h"
#include <QElapsedTimer>
#include <QLineEdit>

#include <QtTest>

using namespace rtscope;

namespace {

// Runs @p page until its lesson ends by itself (at most @p budgetMs), as the refresh timer would.
bool deadlineRunToEnd(DeadlinePage& page, int budgetMs)
{
    QElapsedTimer t;
    t.start();
    while (page.isRunning() && t.elapsed() < budgetMs) {
        QTest::qWait(20);
        page.refreshNow();
    }
    return !page.isRunning();
}

QString deadlineOf(const DeadlineTaskStats& t)
{
    return QString("%1 of %2").arg(t.misses).arg(t.jobs);
}

} // namespace

class TestDeadlinePage : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

    rtscope::test::MaybeSkip m_noDeadline; ///< why SCHED_DEADLINE cannot run here

private slots:
    void initTestCase()
    {
        m_probe = rtscope::test::setUpPageTest();
        m_noDeadline = rtscope::test::withoutDeadline();
    }
    void cleanup() { GuiThreadAffinity::restore(); }

    void controlsRoundTripEveryLesson()
    {
        DeadlineControls controls(rtscope::test::onlineCpus());
        DeadlineConfig c;
        c.lesson = DeadlineLesson::Isolation;
        c.tasks = {{3'000'000, 10'000'000, 10'000'000}, {1'234'567, 7'000'000, 7'000'000}};
        c.durationNs = 300'000'000;
        c.runaway = {5'000'000, 40'000'000, 40'000'000};
        c.good = {1'000'000, 10'000'000, 10'000'000};
        c.goodWorkNs = 300'000;
        c.runawayPolicy = DeadlineRunawayPolicy::Fifo;
        c.runawayPriority = 40;
        c.shortWorkNs = 1'000'000;
        c.longPeriodNs = 30'000'000;
        c.priority = 30;
        QVERIFY(controls.unrepresentable(c).isEmpty());
        controls.setConfig(c);
        QCOMPARE(controls.config(DeadlineConfig{}), c);
        // The odd runtime is written exactly, not rounded to three digits.
        QVERIFY2(controls.widgets().tasks->text().contains("1234567"), qPrintable(controls.widgets().tasks->text()));
        // Only the lesson's rows are shown.
        controls.show();
        QVERIFY(controls.widgets().goodWork->isVisible());
        QVERIFY(!controls.widgets().tasks->isVisible());
        QVERIFY(!controls.widgets().shortWork->isVisible());
        QVERIFY(controls.widgets().runawayPriority->isVisible()); // FIFO runaway: a priority, no reservation
        QVERIFY(!controls.widgets().runawayRuntime->isVisible());
    }

    void badValuesShowTheConfigSentenceAndDoNotStart()
    {
        DeadlinePage page(m_probe);
        DeadlineConfig c;
        c.lesson = DeadlineLesson::Isolation;
        c.durationNs = 300'000'000;
        c.runaway = {50'000'000, 50'000'000, 50'000'000}; // no idle time left in the period
        const QStringList expected = toQt(c.validate(unpinnedTopology()));
        QVERIFY(!expected.isEmpty());
        const QStringList problems = page.applyConfig(c);
        QCOMPARE(problems, expected);
        QVERIFY(problems.join(' ').contains("runaway-runtime"));

        // The same value typed into the controls: Start refuses with the same sentence.
        page.applyConfig(DeadlineConfig{});
        c.runaway = DeadlineConfig{}.runaway;
        QVERIFY(page.applyConfig(c).isEmpty());
        rtscope::test::setControl(page.deadlineControls()->widgets().runawayRuntime, qlonglong(50'000'000));
        QVERIFY(!page.start());
        QVERIFY(!page.isRunning());
        QCOMPARE(page.problems(), expected);

        // A task list that is not RUNTIME/PERIOD names the field and what was typed.
        page.applyConfig(DeadlineConfig{});
        page.deadlineControls()->widgets().tasks->setText("5ms/10ms, lots");
        QVERIFY(!page.start());
        QVERIFY(!page.isRunning());
        QVERIFY2(page.problems().join(' ').contains("tasks: 'lots'"), qPrintable(page.problems().join(' ')));
    }

    void admissionShowsEveryStepAndTheKernelsAnswer()
    {
        RTSCOPE_SKIP_IF(m_noDeadline);
        DeadlinePage page(m_probe);
        DeadlineConfig c; // the default tasks: one more than the CPUs hold
        QVERIFY(rtscope::test::startRun(page, c));
        QVERIFY(deadlineRunToEnd(page, 3000));
        const auto s = page.experiment().snapshot();
        QVERIFY(s);
        QVERIFY(!s->admission.empty());
        const DeadlineChart& chart = *page.chart();
        QCOMPARE(chart.categories().size(), qsizetype(s->admission.size()));
        QCOMPARE(page.tableModel()->rowCount(), int(s->admission.size()));
        const std::vector<double> refused = chart.barValues("refused");
        const std::vector<double> admitted = chart.barValues("admitted");
        QCOMPARE(refused.size(), s->admission.size());
        int firstRefused = -1;
        for (size_t i = 0; i < s->admission.size(); ++i) {
            const DeadlineAdmissionStep& st = s->admission[i].step;
            const bool add = st.action != DeadlineAdmissionStep::Action::Remove;
            QCOMPARE(admitted[i], add && st.admitted ? st.bandwidth() : 0.0);
            QCOMPARE(refused[i], add && !st.admitted ? st.bandwidth() : 0.0);
            const QString answer = page.tableModel()->cell(int(i), "Kernel's answer");
            QCOMPARE(answer.startsWith("REFUSED"), add && !st.admitted);
            if (add && !st.admitted && firstRefused < 0)
                firstRefused = int(i);
        }
        const DeadlineBudget& b = s->budget;
        if (const std::optional<double> limit = b.limit()) {
            QCOMPARE(chart.points(chart.data().limitName).value(0).y(), *limit * 100);
        } else if (b.perCpuLimit && b.cpus > 0) {
            // The fair servers' share unread: the line is the upper bound, and says so.
            const double ceiling = *b.perCpuLimit * b.cpus;
            QCOMPARE(chart.points(chart.data().limitName).value(0).y(), ceiling * 100);
            QVERIFY2(chart.data().limitName.contains("at most"), qPrintable(chart.data().limitName));
            QVERIFY2(page.tile(0)->value().startsWith("≤ "), qPrintable(page.tile(0)->value()));
        } else {
            QCOMPARE(page.tile(0)->value(), QString("unknown"));
        }
        if (firstRefused >= 0) {
            const DeadlineAdmissionStep& st = s->admission[size_t(firstRefused)].step;
            QCOMPARE(page.tile(2)->value(), QString("task %1").arg(st.task + 1));
            QVERIFY2(page.answerText().contains(screenText(st.answer).toHtmlEscaped().left(40)),
                     qPrintable(page.answerText()));
        } else {
            QCOMPARE(page.tile(2)->value(), QString("none"));
        }
    }

    void isolationChartAndTableShowTheSnapshot()
    {
        RTSCOPE_SKIP_IF(m_noDeadline);
        DeadlinePage page(m_probe);
        const DeadlineConfig c = test::deadlineLessonConfig(DeadlineLesson::Isolation, 300'000'000);
        if (const QStringList p = toQt(c.validate(unpinnedTopology())); !p.isEmpty())
            RTSCOPE_SKIP(Cpus, p.join(' ')); // the isolation lesson's two CPUs
        QVERIFY(rtscope::test::startRun(page, c));
        QVERIFY(deadlineRunToEnd(page, 3000));
        const auto s = page.experiment().snapshot();
        QVERIFY(s && s->error.empty());
        const DeadlineTaskStats& run = s->tasks[kDeadlineRunaway];
        const DeadlineTaskStats& good = s->tasks[kDeadlineGood];
        QVERIFY(run.jobs > 0 && good.jobs > 0);
        QCOMPARE(page.tile(2)->value(), deadlineOf(good));
        // The tiles are named for the lesson shown, not the one the page opened with.
        QCOMPARE(page.tile(0)->title(), QString("Runaway: CPU per stretch"));
        QCOMPARE(page.tile(3)->title(), QString("OTHER counter: CPU share"));
        QCOMPARE(page.tile(0)->value(), durationQt(run.totalRanNs / int64_t(run.jobs)));
        QCOMPARE(page.tile(1)->value(), durationQt(run.totalGapNs));
        // One point per kept runaway job, at its CPU time.
        QList<QPointF> expected;
        for (const DeadlineJob& j : s->jobs)
            if (j.slot == kDeadlineRunaway)
                expected.append({double(j.startNs - s->startNs) / 1e9, double(j.ranNs) / 1e6});
        QCOMPARE(page.chart()->points("runaway: CPU per stretch"), expected);
        QCOMPARE(page.chart()->points("declared runtime").value(0).y(), 10.0);
        QCOMPARE(page.tableModel()->cell(0, "Jobs"), QString::number(run.jobs));
        QCOMPARE(page.tableModel()->cell(1, "Misses"), QString::number(good.misses));

        // Held as the reference, the run is drawn under the next one: its runaway line and its table rows.
        QVERIFY(page.holdAsReference());
        QVERIFY(page.hasReference());
        const QString refName = QString("reference: %1").arg(QString::fromStdString(s->slotNames[kDeadlineRunaway]));
        QCOMPARE(page.chart()->points(refName), expected);
        QVERIFY(page.tableModel()->cell(3, "Task").startsWith("reference: "));
        page.clearReference();
        QVERIFY(!page.chart()->seriesNames().contains(refName));
    }

    void edfTilesCountEveryMiss()
    {
        RTSCOPE_SKIP_IF(m_noDeadline);
        DeadlinePage page(m_probe);
        const DeadlineConfig c = test::deadlineLessonConfig(DeadlineLesson::Edf, 200'000'000);
        QVERIFY(rtscope::test::startRun(page, c));
        QVERIFY(deadlineRunToEnd(page, 3000));
        const auto s = page.experiment().snapshot();
        QVERIFY(s && s->error.empty());
        const int edfSlots[] = {kDeadlineFifoShort, kDeadlineFifoLong, kDeadlineDlShort, kDeadlineDlLong};
        uint64_t misses = 0, jobs = 0;
        for (int i = 0; i < 4; ++i) {
            const DeadlineTaskStats& t = s->tasks[size_t(edfSlots[i])];
            if (i >= 2 && !s->deadlinePhaseRan) {
                QCOMPARE(page.tile(i)->value(), QString("did not run"));
                QVERIFY(page.alertText().contains(QString::fromStdString(s->deadlinePhaseNote).left(30)));
                continue;
            }
            QCOMPARE(page.tile(i)->value(), deadlineOf(t));
            QCOMPARE(page.tableModel()->cell(i, "Misses"), QString::number(t.misses));
            misses += t.misses;
            jobs += t.jobs;
        }
        QVERIFY(jobs > 0);
        // One mark per task per short stretch of the axis: never more than the jobs, a miss wherever one was.
        const qsizetype marks =
            page.chart()->points("met its deadline").size() + page.chart()->points("missed its deadline").size();
        QVERIFY(marks > 0 && uint64_t(marks) <= jobs);
        QCOMPARE(page.chart()->points("missed its deadline").isEmpty(), misses == 0);
    }

    void stopJoinsWithinBudget()
    {
        RTSCOPE_SKIP_IF(m_noDeadline);
        DeadlinePage page(m_probe);
        const DeadlineConfig c = test::deadlineLessonConfig(DeadlineLesson::Isolation, 5'000'000'000);
        if (const QStringList p = toQt(c.validate(unpinnedTopology())); !p.isEmpty())
            RTSCOPE_SKIP(Cpus, p.join(' ')); // the isolation lesson's two CPUs
        QVERIFY(rtscope::test::startRun(page, c));
        QTest::qWait(150);
        page.refreshNow();
        rtscope::test::stopJoinsWithin100ms(page);
    }
};

RTSCOPE_TEST_MAIN(TestDeadlinePage)
#include "tst_deadline_page.moc"
