// The starvation page: every control maps to StarvationConfig and back, invalid values are refused with
// validate()'s sentence next to the controls, a real short run fills the table and the chart, and stopping or
// destroying the page during a burst joins every thread within 100 ms.
#include "engine/experiments/starvation/starvation_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "tests/common/data_rows.h"
#include "tests/common/exposed_widget.h"
#include "tests/common/page_test_util.h"
#include "ui/common/gui_thread_affinity.h"
#include "ui/plot/starvation_chart.h"
#include "ui/starvation/burst_table_model.h"
#include "ui/starvation/starvation_controls.h"
#include "ui/starvation/starvation_page.h"
#include "ui/widgets/duration_spin_box.h"

#include "tests/common/test_main.h"
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>

#include <QtTest>

#include <functional>

using namespace rtscope;

namespace {

using StarvationEdit = std::function<void(StarvationConfig&)>;
using Check = std::function<bool(const StarvationControlWidgets&, const StarvationConfig&)>;
using StarvationUserEdit = std::function<void(const StarvationControlWidgets&)>;

bool spinnerCpuAvailable()
{
    const CpuTopology t = StarvationConfig::placementTopology();
    return t.usable(1);
}

} // namespace

Q_DECLARE_METATYPE(StarvationEdit)
Q_DECLARE_METATYPE(Check)
Q_DECLARE_METATYPE(StarvationUserEdit)

class TestStarvationPage : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

    StarvationConfig shortConfig(int64_t burstNs, int64_t gapNs)
    {
        StarvationConfig c;
        c.burstNs = burstNs;
        c.gapNs = gapNs;
        c.bursts = 1;
        c.cpu = 1;
        return c;
    }

    // Why the FIFO tests cannot run here, for RTSCOPE_SKIP_IF in the test itself (a skip in a helper would return
    // from the helper only, and the test would go on).
    rtscope::test::MaybeSkip missingFifoOrCpus() const
    {
        if (rtscope::test::MaybeSkip noFifo = rtscope::test::withoutFifo(m_probe))
            return noFifo;
        if (!spinnerCpuAvailable())
            return rtscope::test::Skip{rtscope::test::SkipKind::Cpus,
                                       "the starvation lab needs CPU 1 free for its spinner (two usable CPUs)"};
        return std::nullopt;
    }

private slots:
    void initTestCase() { m_probe = rtscope::test::setUpPageTest(); }
    void cleanup() { GuiThreadAffinity::restore(); }

    void mapperRoundTripsEveryControl_data()
    {
        test::addColumns<StarvationEdit, Check, StarvationUserEdit, StarvationEdit>("edit", "shown", "userEdit",
                                                                                    "expectedFromUser");
        using W = const StarvationControlWidgets&;
        using C = const StarvationConfig&;
        QTest::newRow("burst") << StarvationEdit([](StarvationConfig& c) { c.burstNs = 1'500'000'000; })
                               << Check([](W w, C c) { return w.burst->valueNs() == c.burstNs; })
                               << StarvationUserEdit([](W w) { w.burst->setValueNs(50'000'000); })
                               << StarvationEdit([](StarvationConfig& c) { c.burstNs = 50'000'000; });
        QTest::newRow("gap") << StarvationEdit([](StarvationConfig& c) { c.gapNs = 2'000'000'000; })
                             << Check([](W w, C c) { return w.gap->valueNs() == c.gapNs; })
                             << StarvationUserEdit([](W w) { w.gap->setValueNs(20'000'000); })
                             << StarvationEdit([](StarvationConfig& c) { c.gapNs = 20'000'000; });
        QTest::newRow("bursts") << StarvationEdit([](StarvationConfig& c) { c.bursts = 7; })
                                << Check([](W w, C c) { return w.bursts->value() == c.bursts; })
                                << StarvationUserEdit([](W w) { w.bursts->setValue(0); })
                                << StarvationEdit([](StarvationConfig& c) { c.bursts = 0; });
        QTest::newRow("policy") << StarvationEdit([](StarvationConfig& c) { c.policy = Policy::RR; })
                                << Check([](W w, C c) { return Policy(w.policy->currentData().toInt()) == c.policy; })
                                << StarvationUserEdit(
                                       [](W w) { w.policy->setCurrentIndex(w.policy->findData(int(Policy::RR))); })
                                << StarvationEdit([](StarvationConfig& c) { c.policy = Policy::RR; });
        QTest::newRow("priority") << StarvationEdit([](StarvationConfig& c) { c.priority = 98; })
                                  << Check([](W w, C c) { return w.priority->value() == c.priority; })
                                  << StarvationUserEdit([](W w) { w.priority->setValue(10); })
                                  << StarvationEdit([](StarvationConfig& c) { c.priority = 10; });
        QTest::newRow("counters") << StarvationEdit([](StarvationConfig& c) { c.counters = 8; })
                                  << Check([](W w, C c) { return w.counters->value() == c.counters; })
                                  << StarvationUserEdit([](W w) { w.counters->setValue(3); })
                                  << StarvationEdit([](StarvationConfig& c) { c.counters = 3; });
        QTest::newRow("counter nice") << StarvationEdit([](StarvationConfig& c) { c.counterNice = -20; })
                                      << Check([](W w, C c) { return w.counterNice->value() == c.counterNice; })
                                      << StarvationUserEdit([](W w) { w.counterNice->setValue(19); })
                                      << StarvationEdit([](StarvationConfig& c) { c.counterNice = 19; });
        QTest::newRow("cpu") << StarvationEdit([](StarvationConfig& c) { c.cpu = 1; })
                             << Check([](W w, C c) { return w.cpu->currentData().toInt() == c.cpu; })
                             << StarvationUserEdit([](W w) { w.cpu->setCurrentIndex(w.cpu->findData(1)); })
                             << StarvationEdit([](StarvationConfig& c) { c.cpu = 1; });
        QTest::newRow("control counter") << StarvationEdit([](StarvationConfig& c) {
            c.controlCounter = true;
        }) << Check([](W w, C c) { return w.controlCounter->isChecked() == c.controlCounter; })
                                         << StarvationUserEdit([](W w) { w.controlCounter->setChecked(true); })
                                         << StarvationEdit([](StarvationConfig& c) { c.controlCounter = true; });
    }

    void mapperRoundTripsEveryControl()
    {
        QFETCH(StarvationEdit, edit);
        QFETCH(Check, shown);
        QFETCH(StarvationUserEdit, userEdit);
        QFETCH(StarvationEdit, expectedFromUser);
        if (!spinnerCpuAvailable())
            RTSCOPE_SKIP(Cpus, "needs CPU 1 usable: the configs below place the spinner there");
        StarvationPage page(m_probe);
        StarvationControls& controls = *page.starvationControls();
        rtscope::test::checkMapperRoundTrip(page, controls, edit, userEdit, expectedFromUser,
                                            [&](const StarvationConfig& c) { return shown(controls.widgets(), c); });
        QVERIFY(page.problems().isEmpty());
    }

    void invalidValuesShowTheValidationSentence_data()
    {
        test::addRows<StarvationEdit, QString>(
            {"edit", "sentence"},
            {
                {"priority at the watchdog's", [](StarvationConfig& c) { c.priority = 99; },
                 "priority must be between 1 and 98"},
                {"burst too short", [](StarvationConfig& c) { c.burstNs = 5'000'000; }, "burst must be between"},
                {"burst too long", [](StarvationConfig& c) { c.burstNs = 6'000'000'000; }, "burst must be between"},
                {"gap too short", [](StarvationConfig& c) { c.gapNs = 1'000'000; }, "gap must be between"},
                {"bursts", [](StarvationConfig& c) { c.bursts = 1001; }, "bursts must be between"},
                {"counters", [](StarvationConfig& c) { c.counters = 9; }, "counters must be between 1 and 8"},
                {"nice", [](StarvationConfig& c) { c.counterNice = 20; }, "counter-nice must be between -20 and 19"},
                {"policy OTHER", [](StarvationConfig& c) { c.policy = Policy::Other; }, "policy must be fifo or rr"},
                {"reserved cpu", [](StarvationConfig& c) { c.cpu = 0; }, "cpu must not be a reserved CPU"},
            });
    }

    void invalidValuesShowTheValidationSentence()
    {
        QFETCH(StarvationEdit, edit);
        QFETCH(QString, sentence);
        StarvationPage page(m_probe);
        rtscope::test::checkEditRefusedAsAWhole(page, *page.starvationControls(), edit, sentence);
        QVERIFY2(!page.problems().isEmpty() && page.problems().first().startsWith(sentence),
                 qPrintable(page.problems().join(" | ")));
    }

    void choosingTheReservedCpuInTheControlsIsRefused()
    {
        StarvationPage page(m_probe);
        QComboBox* cpu = page.starvationControls()->widgets().cpu;
        const int idx = cpu->findData(0);
        QVERIFY(idx >= 0); // offered, so that the refusal can be explained
        cpu->setCurrentIndex(idx);
        QVERIFY2(page.problems().join(" ").contains("cpu must not be a reserved CPU"),
                 qPrintable(page.problems().join(" | ")));
        QVERIFY(!page.start());
        QVERIFY(!page.isRunning());
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        // Back to auto: the problem goes away.
        cpu->setCurrentIndex(cpu->findData(-1));
        QVERIFY(page.problems().isEmpty() || !spinnerCpuAvailable());
    }

    void explanationReadsThisKernel()
    {
        StarvationPage page(m_probe);
        const QString text = page.explanation();
        QVERIFY(text.contains("not time-sliced"));
        QVERIFY(text.contains("Nobody should rely on it"));
        QVERIFY(text.contains(QString::fromStdString(m_probe.kernelRelease)));
        if (m_probe.rtRuntimeUs > 0)
            QVERIFY2(text.contains(QString::number(m_probe.rtRuntimeUs)), qPrintable(text));
        QVERIFY(page.kernelLine().contains("RT throttling"));
    }

    void shortRunFillsTheTableAndShadesTheBurst()
    {
        RTSCOPE_SKIP_IF(missingFifoOrCpus());
        StarvationPage page(m_probe);
        QVERIFY(test::showExposed(page, 1200, 800));
        QAbstractItemModelTester tester(page.burstModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        QVERIFY(rtscope::test::startRun(page, shortConfig(300'000'000, 300'000'000)));
        QCOMPARE(page.busyCpus(), std::vector<int>{1});
        QCOMPARE(running.count(), 1);
        // The page notices the end of the run on its own and joins everything.
        QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 5000);
        QCOMPARE(running.count(), 2);
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        QVERIFY(page.busyCpus().empty());

        const BurstTableModel& m = *page.burstModel();
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(m.data(m.index(0, BurstTableModel::Burst), BurstTableModel::RawValueRole).toInt(), 1);
        QVERIFY(m.data(m.index(0, BurstTableModel::Spinner), BurstTableModel::RawValueRole).toLongLong() >=
                300'000'000);
        // The lesson: zero progress on the spinner's CPU during the burst, progress in the gap after it.
        QCOMPARE(m.data(m.index(0, m.duringColumn(0)), BurstTableModel::RawValueRole).toULongLong(), 0ULL);
        QCOMPARE(m.data(m.index(0, m.duringColumn(0))).toString(), QString("0"));
        QVERIFY(m.data(m.index(0, m.afterColumn(0)), BurstTableModel::RawValueRole).toULongLong() > 0);

        QCOMPARE(page.chart()->visibleBursts(), 1);
        QCOMPARE(page.chart()->lineCount(), 1);
        const QList<QPointF> line = page.chart()->linePoints(0);
        QVERIFY(!line.isEmpty());
        // Inside the shaded burst the rate line touches 0.
        const auto snap = page.experiment().snapshot();
        const double b0 = double(snap->bursts[0].startNs - snap->startNs) / 1e9;
        const double b1 = double(snap->bursts[0].endNs - snap->startNs) / 1e9;
        bool zeroInside = false, positiveOutside = false;
        for (const QPointF& p : line) {
            if (p.x() > b0 + 0.05 && p.x() < b1 - 0.05 && p.y() == 0)
                zeroInside = true;
            if ((p.x() < b0 - 0.05 || p.x() > b1 + 0.05) && p.y() > 0)
                positiveOutside = true;
        }
        QVERIFY(zeroInside);
        QVERIFY(positiveOutside);
        QCOMPARE(page.liveCounterTexts().size(), 1);
        QVERIFY(page.watchdogText().isEmpty());
        QVERIFY(!page.findChild<QLabel*>("watchdogBanner")->isVisible());
    }

    void stopDuringABurstJoinsWithinAHundredMilliseconds()
    {
        RTSCOPE_SKIP_IF(missingFifoOrCpus());
        StarvationPage page(m_probe);
        page.show();
        QVERIFY(rtscope::test::startRun(page, shortConfig(2'000'000'000, 20'000'000)));
        QTRY_VERIFY_WITH_TIMEOUT(page.experiment().snapshot() && page.experiment().snapshot()->spinningBurst(), 3000);
        rtscope::test::stopJoinsWithin100ms(page);
        const BurstTableModel& m = *page.burstModel();
        QCOMPARE(m.rowCount(), 1);
        QVERIFY(m.data(m.index(0, BurstTableModel::Burst)).toString().contains("stopped"));
    }

    void destroyingThePageDuringABurstJoinsEverything()
    {
        RTSCOPE_SKIP_IF(missingFifoOrCpus());
        auto* page = new StarvationPage(m_probe);
        QVERIFY(rtscope::test::startRun(*page, shortConfig(2'000'000'000, 20'000'000)));
        QTRY_VERIFY_WITH_TIMEOUT(page->experiment().snapshot() && page->experiment().snapshot()->spinningBurst(), 3000);
        rtscope::test::destructionJoinsWithin100ms(std::unique_ptr<ExperimentPage>(page));
    }

    // docs/screenshots/starvation-throttling.png when RTSCOPE_SCREENSHOT_DIR names where to write it; else the same
    // run and picture, kept in a temporary directory.
    void screenshotOfAThrottlingWindow()
    {
        RTSCOPE_SKIP_IF(missingFifoOrCpus());
        QTemporaryDir temporary;
        const QString dir = qEnvironmentVariableIsEmpty("RTSCOPE_SCREENSHOT_DIR")
                                ? temporary.path()
                                : qEnvironmentVariable("RTSCOPE_SCREENSHOT_DIR");
        StarvationPage page(m_probe);
        QVERIFY(test::showExposed(page, 1400, 850));
        StarvationConfig c = shortConfig(1'500'000'000, 1'000'000'000);
        c.controlCounter = true;
        QVERIFY(rtscope::test::startRun(page, c));
        QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 8000);
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        const auto snap = page.experiment().snapshot();
        QVERIFY(snap && snap->bursts.size() == 1);
        qInfo() << "windows:" << page.chart()->windowLabels() << "kernel:" << page.kernelLine();
        const QString png = QDir(dir).filePath("starvation-throttling.png");
        QVERIFY(page.grab().save(png));
        QCOMPARE(QImage(png).size(), page.size() * page.devicePixelRatio());
    }
};

RTSCOPE_TEST_MAIN(TestStarvationPage)
#include "tst_starvation_page.moc"
