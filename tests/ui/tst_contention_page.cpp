// The lock-contention page: every control maps to ContentionConfig and back (the kinds keep a preset's order),
// invalid values are refused with validate()'s sentence, a known snapshot shows exactly its figures in the
// table, the tiles and the charts, and real short runs through the page fill the views and join every thread
// (within 100 ms of stop()).
#include "engine/experiments/locks/contention_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "tests/common/data_rows.h"
#include "tests/common/exposed_widget.h"
#include "tests/common/page_test_util.h"
#include "ui/common/gui_thread_affinity.h"
#include "ui/common/text_format.h"
#include "ui/common/unpinned_topology.h"
#include "ui/locks/contention/contention_controls.h"
#include "ui/locks/contention/contention_page.h"
#include "ui/locks/contention/contention_table_model.h"
#include "ui/plot/contention_chart.h"
#include "ui/widgets/duration_spin_box.h"

#include "tests/common/test_main.h"
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>

#include <QtTest>

#include <nlohmann/json.hpp>

#include <functional>

using namespace rtscope;

namespace {

using ContentionEdit = std::function<void(ContentionConfig&)>;
using ContentionUserEdit = std::function<void(const ContentionControlWidgets&)>;

int lastUsableCpu()
{
    return unpinnedTopology().lastUsable();
}

int firstUsableCpu()
{
    const CpuTopology t = unpinnedTopology();
    for (int c : t.allowed)
        if (t.usable(c))
            return c;
    return -1;
}

std::shared_ptr<ContentionKindResult> kindResult(LockKind kind, KindRunState state, uint64_t acquisitions,
                                                 int64_t elapsedNs)
{
    auto r = std::make_shared<ContentionKindResult>();
    r->kind = kind;
    r->state = state;
    r->elapsedNs = elapsedNs;
    r->counts.acquisitions = acquisitions;
    r->acquisitionsPerSec = elapsedNs ? double(acquisitions) * 1e9 / double(elapsedNs) : 0;
    return r;
}

// Three kinds with figures chosen so every shown value is known: spin twice as fast as the mutex, pi pending.
ContentionSnapshot knownSnapshot()
{
    ContentionSnapshot s;
    s.config.kinds = {LockKind::Mutex, LockKind::Spin, LockKind::Adaptive, LockKind::Pi};
    s.config.threads = 2;
    s.startNs = 1;
    s.publishedNs = 2;
    s.finished = false;
    s.running = false;

    auto mutex = kindResult(LockKind::Mutex, KindRunState::Done, 1000, 1'000'000'000);
    mutex->wait.recordN(100, 99);
    mutex->wait.record(20'000);
    mutex->voluntarySwitches = 50;
    mutex->involuntarySwitches = 5;
    mutex->cpuNsPerAcquisition = 6300;
    mutex->fairness = 0.954;
    mutex->minShare = 0.87;
    mutex->maxShare = 1.12;
    mutex->counts.uncontended = 966;
    mutex->counts.spun = 20;
    mutex->counts.slept = 14;

    auto spin = kindResult(LockKind::Spin, KindRunState::Done, 2000, 1'000'000'000);
    spin->wait.recordN(150, 100);
    spin->counts.uncontended = 2000;
    spin->fairness = 1;
    spin->minShare = spin->maxShare = 1;

    auto adaptive = kindResult(LockKind::Adaptive, KindRunState::Stopped, 500, 500'000'000);
    adaptive->wait.recordN(300, 10);
    adaptive->counts.slept = 500;
    adaptive->counts.sleptOwnerOnThisCpu = 494;
    adaptive->counts.sleptSpinLimit = 6;
    adaptive->counts.futexSleeps = 703;
    adaptive->samplesDropped = 3;

    auto pi = std::make_shared<ContentionKindResult>();
    pi->kind = LockKind::Pi;
    s.kinds = {mutex, spin, adaptive, pi};
    return s;
}

} // namespace

Q_DECLARE_METATYPE(ContentionEdit)
Q_DECLARE_METATYPE(ContentionUserEdit)

class TestContentionPage : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

    ContentionConfig shortConfig()
    {
        ContentionConfig c;
        c.kinds = {LockKind::Mutex, LockKind::Adaptive};
        c.threads = 2;
        c.placement = Placement::OneCpu;
        c.durationNs = 100'000'000;
        c.holdNs = 1'000;
        c.workNs = 1'000;
        return c;
    }

private slots:
    void initTestCase() { m_probe = rtscope::test::setUpPageTest(); }
    void cleanup() { GuiThreadAffinity::restore(); }

    void mapperRoundTripsEveryControl_data()
    {
        test::addColumns<ContentionEdit, ContentionUserEdit, ContentionEdit>("edit", "userEdit", "expectedFromUser");
        using W = const ContentionControlWidgets&;
        using C = ContentionConfig&;
        QTest::newRow("kinds") << ContentionEdit([](C c) {
            c.kinds = {LockKind::Pi, LockKind::Mutex};
        }) << ContentionUserEdit([](W w) {
            w.kinds.at(LockKind::Spin)->setChecked(false);
        }) << ContentionEdit([](C c) {
            c.kinds = {LockKind::Mutex, LockKind::AdaptiveGlibc, LockKind::Adaptive, LockKind::Pi};
        });
        QTest::newRow("threads") << ContentionEdit([](C c) { c.threads = 32; })
                                 << ContentionUserEdit([](W w) { w.threads->setValue(7); })
                                 << ContentionEdit([](C c) { c.threads = 7; });
        QTest::newRow("placement") << ContentionEdit([](C c) {
            c.placement = Placement::OneCpu;
            c.cpu = 0;
        }) << ContentionUserEdit([](W w) {
            w.placement->setCurrentIndex(w.placement->findData(int(Placement::OneCpu)));
        }) << ContentionEdit([](C c) { c.placement = Placement::OneCpu; });
        QTest::newRow("policy") << ContentionEdit([](C c) { c.policy = Policy::Batch; }) << ContentionUserEdit([](W w) {
            w.policy->setCurrentIndex(w.policy->findData(int(Policy::Idle)));
        }) << ContentionEdit([](C c) { c.policy = Policy::Idle; });
        QTest::newRow("nice") << ContentionEdit([](C c) { c.nice = 19; })
                              << ContentionUserEdit([](W w) { w.nice->setValue(-5); })
                              << ContentionEdit([](C c) { c.nice = -5; });
        QTest::newRow("hold") << ContentionEdit([](C c) { c.holdNs = 1'000'000; })
                              << ContentionUserEdit([](W w) { w.hold->setValueNs(0); })
                              << ContentionEdit([](C c) { c.holdNs = 0; });
        QTest::newRow("work") << ContentionEdit([](C c) { c.workNs = 0; })
                              << ContentionUserEdit([](W w) { w.work->setValueNs(250'000); })
                              << ContentionEdit([](C c) { c.workNs = 250'000; });
        QTest::newRow("duration") << ContentionEdit([](C c) { c.durationNs = 3600LL * 1'000'000'000; })
                                  << ContentionUserEdit([](W w) { w.duration->setValueNs(10'000'000); })
                                  << ContentionEdit([](C c) { c.durationNs = 10'000'000; });
        QTest::newRow("spin limit") << ContentionEdit([](C c) { c.spinLimit = 10'000'000; })
                                    << ContentionUserEdit([](W w) { w.spinLimit->setValue(100); })
                                    << ContentionEdit([](C c) { c.spinLimit = 100; });
        QTest::newRow("stealing") << ContentionEdit([](C c) { c.stealing = false; })
                                  << ContentionUserEdit([](W w) { w.stealing->setChecked(false); })
                                  << ContentionEdit([](C c) { c.stealing = false; });
    }

    void mapperRoundTripsEveryControl()
    {
        QFETCH(ContentionEdit, edit);
        QFETCH(ContentionUserEdit, userEdit);
        QFETCH(ContentionEdit, expectedFromUser);
        ContentionPage page(m_probe);
        QVERIFY(page.config() == ContentionConfig{});
        // Exactly, a preset's kind order included.
        rtscope::test::checkMapperRoundTrip(page, *page.contentionControls(), edit, userEdit, expectedFromUser,
                                            [&](const ContentionConfig& c) { return page.configJson() == toJson(c); });
    }

    void realtimePriorityOnlyWithFifo()
    {
        ContentionPage page(m_probe);
        const auto& w = page.contentionControls()->widgets();
        QVERIFY(!w.priority->isEnabled());
        ContentionConfig c = page.config();
        c.kinds = {LockKind::Mutex};
        c.policy = Policy::Fifo;
        c.priority = 42;
        c.placement = Placement::OneCpu;
        c.cpu = lastUsableCpu();
        if (firstUsableCpu() == c.cpu)
            RTSCOPE_SKIP(Cpus, "FIFO workers need a CPU other than the first usable one");
        QCOMPARE(page.applyConfig(c), QStringList());
        QVERIFY(w.priority->isEnabled());
        QCOMPARE(w.priority->value(), 42);
        QVERIFY(!w.nice->isEnabled());
        QVERIFY(page.config() == c);
    }

    void invalidValuesShowTheValidationSentence_data()
    {
        test::addRows<ContentionEdit, QString>(
            {"edit", "sentence"},
            {
                {"threads", [](ContentionConfig& c) { c.threads = 33; }, "threads must be between 2 and 32 (got 33)"},
                {"hold", [](ContentionConfig& c) { c.holdNs = 2'000'000; }, "hold must be between"},
                {"no kinds", [](ContentionConfig& c) { c.kinds.clear(); }, "kinds must name 1 to 5"},
                {"ceiling", [](ContentionConfig& c) { c.kinds = {LockKind::Ceiling}; },
                 "kinds: ceiling is not a contention kind"},
                {"fifo spread",
                 [](ContentionConfig& c) {
                     c.kinds = {LockKind::Mutex};
                     c.policy = Policy::Fifo;
                     c.priority = 10;
                 },
                 "placement must be one-cpu with policy fifo"},
            });
    }

    void invalidValuesShowTheValidationSentence()
    {
        QFETCH(ContentionEdit, edit);
        QFETCH(QString, sentence);
        ContentionPage page(m_probe);
        rtscope::test::checkEditRefusedAsAWhole(page, *page.contentionControls(), edit, sentence);
    }

    void uncheckingEveryKindIsRefusedAtOnce()
    {
        ContentionPage page(m_probe);
        for (auto& [k, box] : page.contentionControls()->widgets().kinds)
            box->setChecked(false);
        QVERIFY2(page.problems().join(" ").contains("kinds must name 1 to 5"), qPrintable(page.problems().join("|")));
        QVERIFY(!page.start());
        QCOMPARE(rtscope::test::threadsAlive(), 0);
    }

    void configJsonNamesTheBadField()
    {
        ContentionPage page(m_probe);
        const ContentionConfig before = page.config();
        QStringList problems = page.applyConfigJson(nlohmann::json{{"threads", "four"}});
        QCOMPARE(problems, QStringList("threads must be an integer"));
        problems = page.applyConfigJson(nlohmann::json{{"spinlimit", 5}});
        QCOMPARE(problems, QStringList("unknown field 'spinlimit'"));
        QVERIFY(page.config() == before);
        ContentionConfig c;
        c.kinds = {LockKind::AdaptiveGlibc, LockKind::Mutex};
        c.threads = 6;
        c.holdNs = 2'000;
        QCOMPARE(page.applyConfigJson(toJson(c)), QStringList());
        QVERIFY(page.config() == c);
    }

    void knownSnapshotShowsExactlyItsFigures()
    {
        ContentionPage page(m_probe);
        QVERIFY(test::showExposed(page, 1400, 900));
        const ContentionTableModel& m = *page.tableModel();
        QAbstractItemModelTester tester(page.tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.showSnapshot(knownSnapshot());

        // Fastest first; the pending kind last.
        QCOMPARE(m.rowCount(), 4);
        auto cell = [&m](int row, int column) {
            return m.data(m.index(row, column)).toString();
        };
        QCOMPARE(cell(0, ContentionTableModel::Kind), QString("spin"));
        QCOMPARE(cell(1, ContentionTableModel::Kind), QString("mutex"));
        QCOMPARE(cell(2, ContentionTableModel::Kind), QString("adaptive"));
        QCOMPARE(cell(3, ContentionTableModel::Kind), QString("pi"));

        QCOMPARE(cell(0, ContentionTableModel::Throughput), QString("2.0 k/s"));
        QCOMPARE(cell(0, ContentionTableModel::VsMutex), QString("2.00×"));
        QCOMPARE(cell(1, ContentionTableModel::Throughput), QString("1.0 k/s"));
        QCOMPARE(cell(1, ContentionTableModel::VsMutex), QString("1.00×"));
        QCOMPARE(cell(1, ContentionTableModel::State), QString("done"));
        QCOMPARE(cell(1, ContentionTableModel::WaitP50), QString("100 ns"));
        QCOMPARE(cell(1, ContentionTableModel::WaitP99), QString("100 ns"));
        QCOMPARE(cell(1, ContentionTableModel::WaitMax), QString("20.0 µs"));
        QCOMPARE(cell(1, ContentionTableModel::Switches), QString("50.0 · 5.0"));
        QCOMPARE(cell(1, ContentionTableModel::CpuPerAcquisition), QString("6.30 µs"));
        QCOMPARE(cell(1, ContentionTableModel::Fairness), QString("0.954"));
        QVERIFY(
            m.data(m.index(1, ContentionTableModel::Fairness), Qt::ToolTipRole).toString().contains("0.87× and 1.12×"));
        QCOMPARE(cell(1, ContentionTableModel::Paths), QString("96.6 · 2.0 · 1.4"));
        QCOMPARE(m.data(m.index(1, ContentionTableModel::WaitMax), ContentionTableModel::RawValueRole).toLongLong(),
                 20'000LL);
        QCOMPARE(cell(2, ContentionTableModel::State), QString("stopped"));
        QCOMPARE(cell(2, ContentionTableModel::Throughput), QString("1.0 k/s"));
        QCOMPARE(cell(2, ContentionTableModel::Paths), QString("0.0 · 0.0 · 100.0"));
        QCOMPARE(cell(2, ContentionTableModel::Dropped), QString("3"));
        QCOMPARE(cell(3, ContentionTableModel::State), QString("pending"));
        QCOMPARE(cell(3, ContentionTableModel::Throughput), QString("–"));

        // The bars in the same order, with the same figures.
        const ContentionChart& chart = *page.chart();
        QCOMPARE(chart.barNames(), QStringList({"spin", "mutex", "adaptive", "pi"}));
        QCOMPARE(chart.throughputValues(), QList<double>({2000.0, 1000.0, 1000.0, 0.0}));
        QCOMPARE(chart.throughputLabels(),
                 QStringList({"2.0 k/s · 2.00×", "1.0 k/s · 1.00×", "1.0 k/s · 1.00× · stopped", "pending"}));
        QCOMPARE(chart.switchValues(true), QList<double>({0.0, 50.0, 0.0, 0.0}));
        QCOMPARE(chart.switchValues(false), QList<double>({0.0, 5.0, 0.0, 0.0}));
        QCOMPARE(chart.switchLabels(), QStringList({"0.0 + 0.0", "50.0 + 5.0", "0.0 + 0.0", "pending"}));
        // One wait curve per kind that measured a wait, in run order, in the kind's colour.
        QCOMPARE(chart.waitCurveCount(), 3);
        QCOMPARE(chart.waitCurveName(0), QString("mutex"));
        QCOMPARE(chart.waitCurveName(1), QString("spin"));
        QCOMPARE(chart.waitCurveColor(0), lockKindColor(1, page.palette()));
        QCOMPARE(chart.waitCurveColor(1), lockKindColor(0, page.palette()));
        double mutexPeak = 0, spinPeak = 0, mutexSum = 0;
        for (const QPointF& p : chart.waitCurvePoints(0)) {
            mutexPeak = std::max(mutexPeak, p.y());
            mutexSum += p.y() >= 1 ? p.y() : 0;
        }
        for (const QPointF& p : chart.waitCurvePoints(1))
            spinPeak = std::max(spinPeak, p.y());
        QCOMPARE(mutexPeak, 99.0);
        QCOMPARE(mutexSum, 2.0 * 100); // a step line visits every bin twice: 99 + 1 waits
        QCOMPARE(spinPeak, 100.0);

        QVERIFY2(page.fastestText().startsWith("spin · 2.0 k/s · 2.00× the mutex"), qPrintable(page.fastestText()));
        QVERIFY2(page.noteText().contains("adaptive slept because: owner on this CPU 494 · spin limit 6 · owner "
                                          "blocked 0 (703 futex sleeps)"),
                 qPrintable(page.noteText()));
        auto* warning = page.findChild<QLabel*>("dataLossWarning");
        QVERIFY(warning->isVisible());
        QVERIFY2(warning->text().contains("3 wait samples dropped"), qPrintable(warning->text()));
    }

    void shortRunThroughThePage()
    {
        ContentionPage page(m_probe);
        page.resize(1400, 900);
        page.show();
        QAbstractItemModelTester tester(page.tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        const ContentionConfig c = shortConfig();
        QVERIFY(rtscope::test::startRun(page, c));
        QCOMPARE(running.count(), 1);
        const std::vector<int> busy = page.busyCpus();
        QCOMPARE(busy, std::vector<int>{lastUsableCpu()});
        if (firstUsableCpu() != lastUsableCpu())
            QVERIFY(std::find(busy.begin(), busy.end(), firstUsableCpu()) == busy.end());
        QVERIFY(page.contentionControls()->findChild<QWidget*>("threads")->isEnabled() == false);

        // The run ends by itself; the page notices and joins every thread.
        QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 5000);
        QCOMPARE(running.count(), 2);
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        QVERIFY(page.busyCpus().empty());
        QVERIFY(page.framesDrawn() > 0);

        const auto snap = page.experiment().snapshot();
        QVERIFY(snap && snap->finished);
        const ContentionTableModel& m = *page.tableModel();
        QCOMPARE(m.rowCount(), 2);
        for (int r = 0; r < 2; ++r) {
            const ContentionKindSummary& k = m.row(r);
            QCOMPARE(k.state, KindRunState::Done);
            QVERIFY(k.acquisitions > 0);
            const ContentionKindResult* result = snap->result(k.kind);
            QVERIFY(result);
            // Exactly the engine's figures, and every acquisition's wait reached the histogram.
            QCOMPARE(k.acquisitions, result->counts.acquisitions);
            QCOMPARE(k.waitSamples + k.samplesDropped, k.acquisitions);
            QCOMPARE(m.data(m.index(r, ContentionTableModel::Throughput)).toString(),
                     formatRate(result->acquisitionsPerSec));
            QCOMPARE(m.data(m.index(r, ContentionTableModel::WaitMax)).toString(),
                     formatLatency(double(result->wait.max())));
        }
        QCOMPARE(page.chart()->waitCurveCount(), 2);
        QVERIFY(page.progressText().startsWith("done"));
        QVERIFY(page.setupText().contains(QString("2 threads, all on CPU %1").arg(lastUsableCpu())));
    }

    void stopJoinsWithinAHundredMilliseconds()
    {
        ContentionPage page(m_probe);
        ContentionConfig c = shortConfig();
        c.kinds = {LockKind::Spin, LockKind::Mutex};
        c.threads = 4;
        c.placement = Placement::Spread;
        c.durationNs = 10'000'000'000;
        QVERIFY(rtscope::test::startRun(page, c));
        QTRY_VERIFY_WITH_TIMEOUT(page.experiment().snapshot() && page.experiment().snapshot()->currentKind == 0, 3000);
        QTest::qWait(50);
        rtscope::test::stopJoinsWithin100ms(page);
        const ContentionTableModel& m = *page.tableModel();
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.row(0).kind, LockKind::Spin);
        QCOMPARE(m.row(0).state, KindRunState::Stopped);
        QCOMPARE(m.row(1).state, KindRunState::Pending);
        QVERIFY(page.progressText().startsWith("stopped"));
    }

    void fifoWorkersStopWithinAHundredMilliseconds()
    {
        RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe));
        if (firstUsableCpu() == lastUsableCpu())
            RTSCOPE_SKIP(Cpus, "FIFO workers need a CPU other than the first usable one");
        ContentionPage page(m_probe);
        ContentionConfig c = shortConfig();
        c.kinds = {LockKind::Mutex};
        c.policy = Policy::Fifo;
        c.priority = 10;
        c.threads = 3;
        c.durationNs = 10'000'000'000;
        QVERIFY(rtscope::test::startRun(page, c));
        QCOMPARE(page.busyCpus(), std::vector<int>{lastUsableCpu()});
        QTRY_VERIFY_WITH_TIMEOUT(page.experiment().snapshot() && page.experiment().snapshot()->currentKind == 0, 3000);
        QTest::qWait(50);
        rtscope::test::stopJoinsWithin100ms(page);
    }

    void destroyingThePageDuringARunJoinsEverything()
    {
        auto* page = new ContentionPage(m_probe);
        ContentionConfig c = shortConfig();
        c.durationNs = 10'000'000'000;
        QVERIFY(rtscope::test::startRun(*page, c));
        QTest::qWait(50);
        rtscope::test::destructionJoinsWithin100ms(std::unique_ptr<ExperimentPage>(page));
    }

    void settingsRoundTrip()
    {
        ContentionConfig c;
        c.kinds = {LockKind::Pi, LockKind::Spin};
        c.threads = 12;
        c.workNs = 0;
        c.spinLimit = 77;
        ContentionPage saved(m_probe);
        QCOMPARE(saved.applyConfig(c), QStringList());
        ContentionPage page(m_probe);
        rtscope::test::saveAndRestore(saved, page);
        QVERIFY(page.config() == c);
        QVERIFY(page.problems().isEmpty());
    }

    void explanationReadsThisMachine()
    {
        ContentionPage page(m_probe);
        const QString text = page.explanation();
        QVERIFY(text.contains(QString::fromStdString(m_probe.kernelRelease)));
        QVERIFY(text.contains(QString::fromStdString(m_probe.scheduler)));
        QVERIFY(text.contains("glibc.pthread.mutex_spin_count"));
        if (m_probe.virtualMachine)
            QVERIFY(text.contains("lock-holder preemption"));
    }
};

RTSCOPE_TEST_MAIN(TestContentionPage)
#include "tst_contention_page.moc"
