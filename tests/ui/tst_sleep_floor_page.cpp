// The sleep-floor page: every control reaches its SleepFloorConfig field and back, bad text and invalid values
// show validate()'s sentence next to the controls, a small real sweep fills the table and the log-log chart, and
// a stop in the middle of a long busy-wait joins every thread (the load spinners too) within 100 ms.
#include "engine/experiments/timers/sleep_floor_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/units.h"
#include "tests/common/data_rows.h"
#include "tests/common/page_test_util.h"
#include "ui/common/text_format.h"
#include "ui/plot/sleep_floor_chart.h"
#include "ui/timers/sleep_floor_controls.h"
#include "ui/timers/sleep_floor_page.h"
#include "ui/timers/sleep_floor_table_model.h"
#include "ui/widgets/duration_spin_box.h"

#include "tests/common/test_main.h"
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QLineEdit>
#include <QSignalSpy>

#include <QtTest>

#include <cmath>

using namespace rtscope;
using rtscope::test::checkOnlyFieldChanged;
using rtscope::test::measuringCpu;
using rtscope::test::onlineCpus;
using rtscope::test::setControl;
using rtscope::test::setControlNamed;
using rtscope::test::showStartConfig;

Q_DECLARE_METATYPE(rtscope::SleepFloorConfig)

namespace {

qlonglong sleepMethodMask(const std::vector<SleepMethod>& methods)
{
    return rtscope::test::enumMask(methods);
}

qlonglong requestHash(const std::vector<int64_t>& r)
{
    qlonglong h = qlonglong(r.size());
    for (int64_t v : r)
        h = h * 1'000'003 + v;
    return h;
}

const test::ConfigFields<SleepFloorConfig> kSleepFloorFields = {
    {"requests",
     [](const SleepFloorConfig& c) {
         return requestHash(c.requestsNs);
     }},
    {"samples", &SleepFloorConfig::samples},
    {"methods",
     [](const SleepFloorConfig& c) {
         return sleepMethodMask(c.methods);
     }},
    {"timerSlackNs", &SleepFloorConfig::timerSlackNs},
    {"policy", &SleepFloorConfig::policy},
    {"priority", &SleepFloorConfig::priority},
    {"load", &SleepFloorConfig::backgroundLoad},
    {"margin", &SleepFloorConfig::hybridMarginNs},
    {"cpu", &SleepFloorConfig::cpu},
};

SleepFloorConfig smallSweep()
{
    SleepFloorConfig c;
    c.requestsNs = {0, 1'000, 100'000, 1'000'000};
    c.samples = 20;
    c.cpu = measuringCpu();
    return c;
}

} // namespace

class TestSleepFloorPage : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

private slots:
    void initTestCase() { m_probe = rtscope::test::setUpPageTest(); }

    void everyControlReachesItsField_data()
    {
        test::addColumns<QString, QVariant, QString, qlonglong, QString>("control", "value", "field", "expected",
                                                                         "startAs");

        QTest::newRow("requests with units") << "requests" << QVariant("0, 1ns, 2.5us, 3ms") << "requests"
                                             << requestHash({0, 1, 2'500, 3'000'000}) << "";
        QTest::newRow("requests, bare numbers are µs")
            << "requests" << QVariant("10 100") << "requests" << requestHash({10'000, 100'000}) << "";
        for (int n : {1, 500, 100'000})
            QTest::addRow("samples %d", n) << "samples" << QVariant(n) << "samples" << qlonglong(n) << "";
        const qlonglong all = sleepMethodMask({std::begin(kSleepMethods), std::end(kSleepMethods)});
        for (SleepMethod m : kSleepMethods)
            QTest::addRow("method %s off", sleepMethodName(m))
                << QString("method_%1").arg(sleepMethodName(m)) << QVariant(false) << "methods"
                << (all & ~(1LL << int(m))) << "";
        QTest::newRow("slack default") << "slack" << QVariant(int(SlackChoice::Default)) << "timerSlackNs" << 0LL
                                       << "slack";
        QTest::newRow("slack 1 ns") << "slack" << QVariant(int(SlackChoice::OneNs)) << "timerSlackNs" << 1LL << "";
        QTest::newRow("slack custom") << "slack" << QVariant(int(SlackChoice::Custom)) << "timerSlackNs" << 10'000LL
                                      << "";
        QTest::newRow("slack custom value")
            << "slackCustom" << QVariant(2'000'000LL) << "timerSlackNs" << 2'000'000LL << "slack";
        QTest::newRow("policy fifo") << "policy" << QVariant(int(Policy::Fifo)) << "policy" << qlonglong(Policy::Fifo)
                                     << "";
        QTest::newRow("policy other") << "policy" << QVariant(int(Policy::Other)) << "policy"
                                      << qlonglong(Policy::Other) << "fifo";
        for (int prio : {priorityMin(Policy::Fifo), 50, priorityMax(Policy::Fifo)})
            QTest::addRow("priority %d", prio)
                << "priority" << QVariant(prio) << "priority" << qlonglong(prio) << "fifo";
        QTest::newRow("load on") << "load" << QVariant(true) << "load" << 1LL << "";
        QTest::newRow("load off") << "load" << QVariant(false) << "load" << 0LL << "load";
        for (qlonglong ns : {0LL, 50'000LL, 10'000'000LL})
            QTest::addRow("margin %lld", ns) << "margin" << QVariant(ns) << "margin" << ns << "";
        QTest::newRow("cpu auto") << "cpu" << QVariant(-1) << "cpu" << -1LL << "cpu";
        for (int cpu : onlineCpus())
            QTest::addRow("cpu %d", cpu) << "cpu" << QVariant(cpu) << "cpu" << qlonglong(cpu) << "";
    }
    void everyControlReachesItsField()
    {
        QFETCH(QString, control);
        QFETCH(QVariant, value);
        QFETCH(QString, field);
        QFETCH(qlonglong, expected);
        QFETCH(QString, startAs);

        SleepFloorControls controls(onlineCpus());
        SleepFloorConfig start;
        start.samples = 300;
        start.hybridMarginNs = 20'000;
        if (startAs == "slack")
            start.timerSlackNs = 5'000;
        if (startAs == "fifo") {
            start.policy = Policy::Fifo;
            start.priority = 10;
        }
        if (startAs == "load")
            start.backgroundLoad = true;
        if (startAs == "cpu")
            start.cpu = onlineCpus().front();
        showStartConfig(controls, start);

        QSignalSpy edited(&controls, &SleepFloorControls::edited);
        setControlNamed(controls, control, value);
        QVERIFY(edited.count() >= 1);
        QVERIFY(controls.mapper().textProblems().isEmpty());
        checkOnlyFieldChanged(controls.mapper().config(start), start, field, expected, kSleepFloorFields);
    }

    void configsShowAndReadBack_data()
    {
        QTest::addColumn<SleepFloorConfig>("config");
        const std::vector<int> cpus = onlineCpus();
        int row = 0;
        for (Policy p : {Policy::Other, Policy::Fifo}) {
            for (int64_t slack : {0LL, 1LL, 75'000LL}) {
                for (bool load : {false, true}) {
                    SleepFloorConfig c;
                    c.policy = p;
                    c.priority = isRealtime(p) ? 1 + row * 7 % 99 : 0;
                    c.timerSlackNs = slack;
                    c.backgroundLoad = load;
                    c.samples = 1 + row * 37;
                    c.hybridMarginNs = row * 1'000;
                    c.requestsNs = {int64_t(row) * 7, 1'234, 1'000'000, 999'999'99};
                    c.cpu = row % 3 == 1 ? -1 : cpus[size_t(row) % cpus.size()];
                    c.methods.clear();
                    for (size_t i = 0; i < std::size(kSleepMethods); ++i)
                        if ((row + int(i)) % 3 != 0)
                            c.methods.push_back(kSleepMethods[i]);
                    QTest::addRow("%s slack %lld load %d", policyName(p), qlonglong(slack), int(load)) << c;
                    ++row;
                }
            }
        }
    }
    void configsShowAndReadBack()
    {
        QFETCH(SleepFloorConfig, config);
        SleepFloorControls controls(onlineCpus());
        rtscope::test::checkTimerConfigShown(controls, config);
        QVERIFY(controls.mapper().textProblems().isEmpty());
    }

    void requestTextIsExact()
    {
        QCOMPARE(SleepFloorConfigMapper::requestText({0, 1, 1'500, 2'000'000, 1'000'000'000}),
                 QString("0, 1ns, 1500ns, 2ms, 1s"));
    }

    void invalidValuesShowTheValidationSentence_data()
    {
        test::addColumns<SleepFloorConfig, QString>("config", "sentence");
        SleepFloorConfig c;
        c.samples = 0;
        QTest::newRow("samples 0") << c << "samples must be between 1 and 100000 (got 0)";
        c = SleepFloorConfig{};
        c.requestsNs = {200'000'000};
        QTest::newRow("request too long") << c << "requests must each be between 0 ns and 100";
        c = SleepFloorConfig{};
        c.methods.clear();
        QTest::newRow("no method") << c << "methods must name at least one of";
        c = SleepFloorConfig{};
        c.hybridMarginNs = -1;
        QTest::newRow("margin") << c << "margin must be between 0 ns and";
    }
    void invalidValuesShowTheValidationSentence()
    {
        QFETCH(SleepFloorConfig, config);
        QFETCH(QString, sentence);
        SleepFloorPage page(m_probe);
        rtscope::test::checkRefusedAsAWhole(page, *page.sleepFloorControls(), config, sentence);
    }

    void unreadableRequestTextIsShownAndStartRefuses()
    {
        SleepFloorPage page(m_probe);
        setControl(page.sleepFloorControls()->widgets().requests, "0, 1ns, soon");
        QVERIFY2(page.problems().join(' ').contains("requests: 'soon' is not a duration"),
                 qPrintable(page.problems().join(' ')));
        QVERIFY(!page.start());
        QVERIFY(!page.isRunning());
        setControl(page.sleepFloorControls()->widgets().requests, "");
        QVERIFY2(page.problems().join(' ').contains("requests must list at least one length"),
                 qPrintable(page.problems().join(' ')));
        setControl(page.sleepFloorControls()->widgets().requests, "0, 1us");
        QVERIFY(page.problems().isEmpty());
    }

    void smallSweepFillsTheTableAndTheChart()
    {
        SleepFloorPage page(m_probe);
        QAbstractItemModelTester tester(page.tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.resize(1400, 850);
        page.show();
        const SleepFloorConfig c = smallSweep();
        QVERIFY(page.applyConfig(c).isEmpty());
        QVERIFY2(page.start(), qPrintable(page.problems().join('\n')));
        QCOMPARE(page.busyCpus(), std::vector<int>{measuringCpu()});
        QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 30000);
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        QVERIFY(page.busyCpus().empty());

        const auto snap = page.experiment().snapshot();
        QVERIFY(snap->finished);
        const size_t methods = c.methods.size();
        QCOMPARE(page.tableModel()->rowCount(), int(c.requestsNs.size() * methods));
        QCOMPARE(page.chart()->curveCount(), int(methods));
        for (int m = 0; m < int(methods); ++m) {
            QCOMPARE(page.chart()->medianPoints(m).size(), qsizetype(c.requestsNs.size()));
            QCOMPARE(page.chart()->p99Points(m).size(), qsizetype(c.requestsNs.size()));
            // The 0 ns request sits left of every other, at the nominal position.
            QVERIFY(page.chart()->medianPoints(m).first().x() < page.chart()->medianPoints(m).at(1).x());
            for (int r = 0; r < int(c.requestsNs.size()); ++r)
                QVERIFY(page.chart()->p99Points(m).at(r).y() >= page.chart()->medianPoints(m).at(r).y());
        }
        QVERIFY(page.chart()->requestAxisLabels().contains("0"));
        QVERIFY(!page.chart()->identityPoints().isEmpty());

        size_t busy = methods, sleeper = methods;
        for (size_t m = 0; m < methods; ++m) {
            if (c.methods[m] == SleepMethod::Busy)
                busy = m;
            if (c.methods[m] == SleepMethod::Absolute)
                sleeper = m;
        }
        QVERIFY(busy < methods && sleeper < methods);
        for (int row = 0; row < page.tableModel()->rowCount(); ++row) {
            const auto raw = [&](int col) {
                return page.tableModel()->index(row, col).data(SleepFloorTableModel::RawValueRole);
            };
            QCOMPARE(raw(SleepFloorTableModel::Samples).toULongLong(), 20ULL);
            // No wait ends before it was asked to: the overshoot is never negative.
            QVERIFY(raw(SleepFloorTableModel::Median).toLongLong() >= raw(SleepFloorTableModel::Request).toLongLong());
            QVERIFY(raw(SleepFloorTableModel::P99).toLongLong() >= raw(SleepFloorTableModel::Median).toLongLong());
            QVERIFY(raw(SleepFloorTableModel::Max).toLongLong() >= raw(SleepFloorTableModel::P99).toLongLong());
        }
        // Busy-waiting pays for precision with the CPU: a 1 ms spin costs far more CPU than a 1 ms sleep.
        const size_t oneMs = 3;
        // (CPU time, not its share of the wall time: a busy machine preempts the spinner and dilutes its share.)
        QVERIFY2(snap->cell(oneMs, busy).cpuPerWaitNs > 4 * snap->cell(oneMs, sleeper).cpuPerWaitNs,
                 qPrintable(QString("busy %1 ns vs abs %2 ns of CPU per 1 ms wait")
                                .arg(snap->cell(oneMs, busy).cpuPerWaitNs)
                                .arg(snap->cell(oneMs, sleeper).cpuPerWaitNs)));
        // The facts in large text: clock_getres next to the measured floor, the slack and the policy.
        QCOMPARE(page.resolutionText(), QString::fromStdString(formatDuration(snap->clockResolutionNs)));
        QVERIFY(page.floorText() != "—");
        QVERIFY(snap->floorNs[sleeper] > snap->clockResolutionNs);
        QVERIFY(page.slackText().startsWith(durationQt(snap->effectiveSlackNs)));
        QCOMPARE(page.policyText(), QString("OTHER"));

        rtscope::test::saveScreenshot(page, "sleep-floor.png");
    }

    void stopInsideALongBusyWaitJoinsEverythingWithin100ms()
    {
        SleepFloorPage page(m_probe);
        SleepFloorConfig c;
        c.requestsNs = {50'000'000};
        c.methods = {SleepMethod::Busy};
        c.samples = 100; // 5 s of spinning: stopped long before
        c.cpu = measuringCpu();
        c.backgroundLoad = true;
        QVERIFY(page.applyConfig(c).isEmpty());
        QVERIFY2(page.start(), qPrintable(page.problems().join('\n')));
        const std::vector<int> busy = page.busyCpus();
        QCOMPARE(busy.size(), CpuTopology::current().allowed.size()); // the measuring CPU and the loaded ones
        QTest::qWait(120);
        rtscope::test::stopJoinsWithin100ms(page);
    }

    void destroyingARunningPageStopsIt()
    {
        auto page = std::make_unique<SleepFloorPage>(m_probe);
        SleepFloorConfig c;
        c.requestsNs = {50'000'000};
        c.methods = {SleepMethod::Busy, SleepMethod::Absolute};
        c.samples = 100;
        c.cpu = measuringCpu();
        QVERIFY(page->applyConfig(c).isEmpty());
        QVERIFY(page->start());
        QTest::qWait(60);
        rtscope::test::destructionJoinsWithin100ms(std::move(page));
    }

    void explanationReadsThisKernel()
    {
        SleepFloorPage page(m_probe);
        const QString text = page.explanation();
        QVERIFY(text.contains("clock_getres"));
        QVERIFY(text.contains("how finely the clock can be <i>read</i>"));
        QVERIFY(text.contains("zero slack"));
        QVERIFY(text.contains(QString::fromStdString(formatDuration(m_probe.clockResolutionNs))));
        QVERIFY(text.contains(QString::fromStdString(m_probe.kernelRelease)));
    }
};

RTSCOPE_TEST_MAIN(TestSleepFloorPage)
#include "tst_sleep_floor_page.moc"
