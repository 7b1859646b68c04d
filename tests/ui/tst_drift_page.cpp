// The drift page: every control reaches its DriftConfig field and back, invalid values show validate()'s
// sentence next to the controls, a real 1 ms × 200 run fills the table and the chart (the naive loop ends further
// behind than every absolute method), and a stop mid-run joins every thread within 100 ms.
#include "engine/experiments/timers/drift_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/units.h"
#include "tests/common/data_rows.h"
#include "tests/common/page_test_util.h"
#include "ui/common/text_format.h"
#include "ui/plot/drift_chart.h"
#include "ui/timers/drift_controls.h"
#include "ui/timers/drift_page.h"
#include "ui/timers/drift_table_model.h"
#include "ui/widgets/duration_spin_box.h"
#include "ui/widgets/period_editor.h"

#include "tests/common/test_main.h"
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QSignalSpy>

#include <QtTest>

#include <cmath>

using namespace rtscope;
using rtscope::test::checkOnlyFieldChanged;
using rtscope::test::measuringCpu;
using rtscope::test::onlineCpus;
using rtscope::test::setControlNamed;
using rtscope::test::showStartConfig;

Q_DECLARE_METATYPE(rtscope::DriftConfig)

namespace {

qlonglong driftMethodMask(const std::vector<WaiterKind>& methods)
{
    return rtscope::test::enumMask(methods);
}

const test::ConfigFields<DriftConfig> kDriftFields = {
    {"periodNs", &DriftConfig::periodNs},
    {"workNs", &DriftConfig::workNs},
    {"ticks", &DriftConfig::ticks},
    {"durationNs", &DriftConfig::durationNs},
    {"policy", &DriftConfig::policy},
    {"priority", &DriftConfig::priority},
    {"timerSlackNs", &DriftConfig::timerSlackNs},
    {"cpu", &DriftConfig::cpu},
    {"methods",
     [](const DriftConfig& c) {
         return driftMethodMask(c.methods);
     }},
};

DriftConfig shortRun()
{
    DriftConfig c;
    c.periodNs = 1'000'000;
    c.ticks = 200;
    c.cpu = measuringCpu();
    return c;
}

} // namespace

class TestDriftPage : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

private slots:
    void initTestCase() { m_probe = rtscope::test::setUpPageTest(); }

    void everyControlReachesItsField_data()
    {
        // startAs: a variation of the start config, so the change is real
        test::addColumns<QString, qlonglong, QString, qlonglong, QString>("control", "value", "field", "expected",
                                                                          "startAs");

        for (qlonglong ns : {100'000LL, 250'000LL, 1'000'000LL, 1'000'000'000LL})
            QTest::addRow("period %lld ns", ns) << "periodSpin" << ns << "periodNs" << ns << "";
        QTest::newRow("period slider at 0") << "periodSlider" << 0LL << "periodNs" << 100'000LL << "";
        QTest::newRow("period slider at the end")
            << "periodSlider" << qlonglong(PeriodEditor::kSliderSteps) << "periodNs" << 1'000'000'000LL << "";
        // The start config has a 2 ms period.
        for (int pct : {0, 10, 18})
            QTest::addRow("work %d %%", pct)
                << "workPercent" << qlonglong(pct) << "workNs" << qlonglong(2'000'000 * pct / 100) << "work";
        for (qlonglong t : {2LL, 1000LL, 200'000LL})
            QTest::addRow("ticks %lld", t) << "ticks" << t << "ticks" << t << "";
        QTest::newRow("length by duration") << "lengthMode" << 1LL << "durationNs" << 1'000'000'000LL << "";
        QTest::newRow("length by ticks") << "lengthMode" << 0LL << "durationNs" << 0LL << "duration";
        for (qlonglong ns : {4'000'000LL, 2'500'000'000LL})
            QTest::addRow("duration %lld ns", ns) << "duration" << ns << "durationNs" << ns << "duration";
        for (Policy p : {Policy::Other, Policy::Batch, Policy::Idle, Policy::Fifo, Policy::RR})
            QTest::addRow("policy %s", policyName(p))
                << "policy" << qlonglong(p) << "policy" << qlonglong(p) << (p == Policy::Other ? "idle" : "");
        for (int prio : {priorityMin(Policy::Fifo), 50, priorityMax(Policy::Fifo)})
            QTest::addRow("priority %d", prio)
                << "priority" << qlonglong(prio) << "priority" << qlonglong(prio) << "fifo";
        QTest::newRow("slack default") << "slack" << qlonglong(SlackChoice::Default) << "timerSlackNs" << 0LL
                                       << "slack";
        QTest::newRow("slack 1 ns") << "slack" << qlonglong(SlackChoice::OneNs) << "timerSlackNs" << 1LL << "";
        QTest::newRow("slack custom") << "slack" << qlonglong(SlackChoice::Custom) << "timerSlackNs" << 10'000LL << "";
        QTest::newRow("slack custom value") << "slackCustom" << 250'000LL << "timerSlackNs" << 250'000LL << "slack";
        QTest::newRow("cpu auto") << "cpu" << -1LL << "cpu" << -1LL << "cpu";
        for (int cpu : onlineCpus())
            QTest::addRow("cpu %d", cpu) << "cpu" << qlonglong(cpu) << "cpu" << qlonglong(cpu) << "";
        const qlonglong all = driftMethodMask({std::begin(kDriftMethods), std::end(kDriftMethods)});
        for (WaiterKind k : kDriftMethods)
            QTest::addRow("method %s off", driftMethodName(k))
                << QString("method_%1").arg(driftMethodName(k)) << 0LL << "methods" << (all & ~(1LL << int(k))) << "";
    }
    void everyControlReachesItsField()
    {
        QFETCH(QString, control);
        QFETCH(qlonglong, value);
        QFETCH(QString, field);
        QFETCH(qlonglong, expected);
        QFETCH(QString, startAs);

        DriftControls controls(onlineCpus());
        DriftConfig start;
        start.periodNs = 2'000'000;
        start.ticks = 300;
        start.stallTick = 7; // no control: must come from the base untouched
        start.stallNs = 1'000'000;
        if (startAs == "work")
            start.workNs = 100'000; // 5 %
        if (startAs == "duration")
            start.durationNs = 3'000'000'000;
        if (startAs == "idle")
            start.policy = Policy::Idle;
        if (startAs == "fifo") {
            start.policy = Policy::Fifo;
            start.priority = 10;
        }
        if (startAs == "slack")
            start.timerSlackNs = 5'000;
        if (startAs == "cpu")
            start.cpu = onlineCpus().front();
        showStartConfig(controls, start);

        QSignalSpy edited(&controls, &DriftControls::edited);
        setControlNamed(controls, control, value);
        QTRY_VERIFY_WITH_TIMEOUT(edited.count() >= 1, 2000); // the period slider is throttled
        const DriftConfig c = controls.mapper().config(start);
        checkOnlyFieldChanged(c, start, field, expected, kDriftFields);
        QCOMPARE(c.stallTick, start.stallTick);
        QCOMPARE(c.stallNs, start.stallNs);
    }

    void configsShowAndReadBack_data()
    {
        QTest::addColumn<DriftConfig>("config");
        const std::vector<int> cpus = onlineCpus();
        int row = 0;
        for (Policy p : {Policy::Other, Policy::Fifo, Policy::RR, Policy::Batch}) {
            for (int64_t slack : {0LL, 1LL, 75'000LL}) {
                DriftConfig c;
                c.policy = p;
                c.priority = isRealtime(p) ? 1 + row * 7 % 99 : 0;
                c.timerSlackNs = slack;
                c.periodNs = row % 2 ? 500'000 : 10'000'000;
                c.workNs = c.periodNs * (row % 4) / 100;
                c.ticks = 2 + row * 1000;
                c.durationNs = row % 3 == 0 ? 5'000'000'000LL : 0;
                c.cpu = row % 3 == 1 ? -1 : cpus[size_t(row) % cpus.size()];
                c.methods.clear();
                for (size_t i = 0; i < std::size(kDriftMethods); ++i)
                    if ((row + int(i)) % 3 != 0)
                        c.methods.push_back(kDriftMethods[i]);
                QTest::addRow("%s slack %lld", policyName(p), qlonglong(slack)) << c;
                ++row;
            }
        }
    }
    void configsShowAndReadBack()
    {
        QFETCH(DriftConfig, config);
        DriftControls controls(onlineCpus());
        rtscope::test::checkTimerConfigShown(controls, config);
        QCOMPARE(controls.widgets().duration->isEnabled(), config.durationNs > 0);
        QCOMPARE(controls.widgets().ticks->isEnabled(), config.durationNs == 0);
    }

    void valuesTheWindowCannotShowAreReported()
    {
        DriftControls controls(onlineCpus());
        DriftConfig c;
        c.workNs = 12'345; // not a whole percentage of 1 ms
        QVERIFY(controls.mapper().unrepresentable(c).join(' ').contains("work must be a whole percentage"));
        c = DriftConfig{};
        c.cpu = 4096;
        QVERIFY(controls.mapper().unrepresentable(c).join(' ').contains("cpu must be one of the online CPUs"));
    }

    void invalidValuesShowTheValidationSentence_data()
    {
        test::addColumns<DriftConfig, QString>("config", "sentence");
        DriftConfig c;
        c.periodNs = 0;
        QTest::newRow("period 0") << c << "period must be between 100.0 µs and 1.000 s (got 0 ns)";
        c = DriftConfig{};
        c.workNs = c.periodNs * 20 / 100;
        c.policy = Policy::Fifo;
        c.priority = 80;
        QTest::newRow("work × methods under fifo") << c << "work × methods must be at most 90";
        c = DriftConfig{};
        c.ticks = 1;
        QTest::newRow("ticks 1") << c << "ticks must be between 2 and 200000";
        c = DriftConfig{};
        c.policy = Policy::Fifo;
        c.priority = 0;
        QTest::newRow("fifo priority 0") << c << "priority";
    }
    void invalidValuesShowTheValidationSentence()
    {
        QFETCH(DriftConfig, config);
        QFETCH(QString, sentence);
        DriftPage page(m_probe);
        rtscope::test::checkRefusedAsAWhole(page, *page.driftControls(), config, sentence);
    }

    void editingIntoAnInvalidConfigShowsItAndStartRefuses()
    {
        DriftPage page(m_probe);
        for (WaiterKind k : kDriftMethods)
            page.driftControls()->widgets().methods.at(k)->setChecked(false);
        QVERIFY2(page.problems().join(' ').contains("methods must name at least one of"),
                 qPrintable(page.problems().join(' ')));
        QVERIFY(!page.start());
        QVERIFY(!page.isRunning());
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        page.driftControls()->widgets().methods.at(WaiterKind::Timerfd)->setChecked(true);
        QVERIFY(page.problems().isEmpty());
    }

    void realRunFillsTheTableAndTheChart()
    {
        DriftPage page(m_probe);
        QAbstractItemModelTester tester(page.tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.resize(1400, 850);
        page.show();
        QVERIFY(page.applyConfig(shortRun()).isEmpty());
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        QVERIFY2(page.start(), qPrintable(page.problems().join('\n')));
        QCOMPARE(page.busyCpus(), std::vector<int>{measuringCpu()});
        // The run ends by itself (200 ticks of 1 ms) and the page joins it.
        QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 20000);
        QCOMPARE(running.count(), 2);
        QVERIFY(page.busyCpus().empty());
        QCOMPARE(rtscope::test::threadsAlive(), 0);

        const std::shared_ptr<const DriftSnapshot> snap = page.experiment().snapshot();
        QVERIFY(snap->finished);
        const size_t n = std::size(kDriftMethods);
        QCOMPARE(snap->methods.size(), n);
        QCOMPARE(page.tableModel()->rowCount(), int(n));
        QCOMPARE(page.chart()->curveCount(), int(n));

        int naive = -1;
        for (int row = 0; row < int(n); ++row) {
            const auto raw = [&](int col) {
                return page.tableModel()->index(row, col).data(DriftTableModel::RawValueRole);
            };
            const DriftMethodStats& m = snap->methods[size_t(row)];
            QCOMPARE(raw(DriftTableModel::Drift).toLongLong(), m.driftNs);
            QVERIFY(raw(DriftTableModel::Ticks).toLongLong() >= 200);
            QCOMPARE(raw(DriftTableModel::Missed).toULongLong(), m.missedTicks);
            QCOMPARE(raw(DriftTableModel::Dropped).toULongLong(), 0ULL);
            // Every tick is accounted for: answered or counted as missed.
            QCOMPARE(m.wakes + m.missedTicks, uint64_t(m.lastTick));
            QVERIFY(!page.chart()->curvePoints(row).isEmpty());
            QVERIFY(!page.tableModel()->index(row, DriftTableModel::Drift).data().toString().isEmpty());
            if (m.method == WaiterKind::Relative)
                naive = row;
        }
        QVERIFY(naive >= 0);
        // The lesson: the naive loop ends further behind its schedule than every absolute method. 200 relative
        // sleeps each pay at least a wake-up; an absolute method's error is one tick's lateness at most.
        const double naiveLast = page.chart()->curvePoints(naive).last().y();
        QVERIFY(naiveLast > 0);
        for (int row = 0; row < int(n); ++row) {
            if (row == naive)
                continue;
            const double last = std::abs(page.chart()->curvePoints(row).last().y());
            QVERIFY2(
                naiveLast > last,
                qPrintable(
                    QString("naive %1 µs vs %2 %3 µs").arg(naiveLast).arg(page.chart()->curveName(row)).arg(last)));
            QVERIFY(snap->methods[size_t(naive)].driftNs > std::abs(snap->methods[size_t(row)].driftNs));
        }
        // The slope column: the naive loop's is positive, and the largest.
        const double naiveSlope = snap->methods[size_t(naive)].slopeNsPerTick;
        QVERIFY(naiveSlope > 0);
        QVERIFY(page.slackText().contains(QString::fromStdString(snap->slackNote).left(4)));

        // Log axis and zoom redraw from the kept snapshot.
        page.setLogDriftAxis(true);
        QVERIFY(page.chart()->logScale());
        QVERIFY(page.chart()->driftAxisMin() > 0);
        QVERIFY(page.chart()->curvePoints(naive).last().y() >= naiveLast * 0.99);
        page.chart()->zoomTicks(50, 100);
        QVERIFY(page.chart()->zoomed());
        for (const QPointF& p : page.chart()->curvePoints(naive))
            QVERIFY(p.x() >= 49 && p.x() <= 101);
        page.chart()->resetZoom();
        QCOMPARE(page.chart()->tickAxisMin(), 0.0);
        page.setLogDriftAxis(false);

        rtscope::test::saveScreenshot(page, "timer-drift.png");
    }

    void stopMidRunJoinsEveryThreadWithin100ms()
    {
        DriftPage page(m_probe);
        DriftConfig c = shortRun();
        c.ticks = 20'000; // 20 s: stopped long before
        QVERIFY(page.applyConfig(c).isEmpty());
        QVERIFY2(page.start(), qPrintable(page.problems().join('\n')));
        QTRY_VERIFY_WITH_TIMEOUT(page.framesDrawn() > 2, 5000);
        rtscope::test::stopJoinsWithin100ms(page);
        // The partial run stays on screen.
        QVERIFY(page.tableModel()->rowCount() > 0);
        QVERIFY(page.experiment().snapshot()->methods.front().lastTick < 20'000);
    }

    void destroyingARunningPageStopsIt()
    {
        auto page = std::make_unique<DriftPage>(m_probe);
        DriftConfig c = shortRun();
        c.ticks = 20'000;
        QVERIFY(page->applyConfig(c).isEmpty());
        QVERIFY(page->start());
        QTest::qWait(50);
        rtscope::test::destructionJoinsWithin100ms(std::move(page));
    }

    void explanationReadsThisKernel()
    {
        DriftPage page(m_probe);
        const QString text = page.explanation();
        QVERIFY(text.contains("never paid back"));
        QVERIFY(text.contains("t0 + k·P"));
        QVERIFY(text.contains("zero slack"));
        QVERIFY(text.contains(QString::fromStdString(m_probe.kernelRelease)));
        QVERIFY(text.contains(durationQt(m_probe.timerSlackNs)));
    }
};

RTSCOPE_TEST_MAIN(TestDriftPage)
#include "tst_drift_page.moc"
