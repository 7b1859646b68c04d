// The priority-inversion page: controls ↔ InversionConfig, validate()'s sentences for bad values, known
// snapshots (a mutex run held as the reference, a pi run live) shown with exactly their figures in the table,
// the tiles and the lanes, and real runs through the page — including the one-Start comparison — that join every
// thread within 100 ms of stop(), on a CPU that is not the GUI's.
#include "engine/experiments/locks/inversion_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "tests/common/data_rows.h"
#include "tests/common/exposed_widget.h"
#include "tests/common/page_test_util.h"
#include "ui/common/gui_thread_affinity.h"
#include "ui/common/text_format.h"
#include "ui/common/unpinned_topology.h"
#include "ui/locks/inversion/inversion_controls.h"
#include "ui/locks/inversion/inversion_page.h"
#include "ui/locks/inversion/inversion_table_model.h"
#include "ui/plot/inversion_timeline.h"
#include "ui/widgets/duration_spin_box.h"

#include "tests/common/test_main.h"
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>

#include <QtTest>

#include <nlohmann/json.hpp>

#include <functional>

using namespace rtscope;

namespace {

using InversionEdit = std::function<void(InversionConfig&)>;
using InversionUserEdit = std::function<void(const InversionControlWidgets&)>;

CpuTopology topology()
{
    return unpinnedTopology();
}

// Three periods of 100 ms, a 1 ms section, a 50 ms burst, published 350 ms after period 0 (so periods 0–2 are
// complete). With a mutex medium runs inside high's wait; with pi low finishes first and medium runs after.
std::shared_ptr<InversionSnapshot> knownRun(LockKind lock)
{
    auto s = std::make_shared<InversionSnapshot>();
    s->config.lock = lock;
    s->config.mediumBurstNs = 50 * kNsPerMs;
    s->config.holdNs = 1 * kNsPerMs;
    s->config.periodNs = 100 * kNsPerMs;
    s->config.durationNs = 1000 * kNsPerMs;
    s->config.cpu = 1;
    s->running = true;
    s->startNs = 1000 * kNsPerMs;
    s->t0Ns = s->startNs + 50 * kNsPerMs;
    s->publishedNs = s->t0Ns + 350 * kNsPerMs;
    const bool mutex = lock == LockKind::Mutex;
    for (int64_t k = 0; k < 3; ++k) {
        const int64_t p = s->t0Ns + k * 100 * kNsPerMs;
        const int64_t release = p + 333'333;
        const int64_t acquired = mutex ? p + 51 * kNsPerMs : p + 1 * kNsPerMs;
        const int64_t mediumStart = mutex ? p + 666'666 : acquired + 20'000;
        using L = InversionLane;
        using S = SegmentState;
        if (mutex) {
            s->timeline.push_back({p, mediumStart, L::Low, S::HoldingLock});
            s->timeline.push_back({release, acquired, L::High, S::WaitingForLock});
            s->timeline.push_back({mediumStart, mediumStart + 50 * kNsPerMs, L::Medium, S::Running});
            s->timeline.push_back({mediumStart + 50 * kNsPerMs, acquired, L::Low, S::HoldingLock});
            s->timeline.push_back({acquired, acquired + 20'000, L::High, S::HoldingLock});
        } else {
            s->timeline.push_back({p, acquired, L::Low, S::HoldingLock});
            s->timeline.push_back({release, acquired, L::High, S::WaitingForLock});
            s->timeline.push_back({acquired, acquired + 20'000, L::High, S::HoldingLock});
            s->timeline.push_back({mediumStart, mediumStart + 50 * kNsPerMs, L::Medium, S::Running});
        }
        InversionPeriod period;
        period.releaseNs = release;
        period.wakeNs = release;
        period.acquiredNs = acquired;
        period.doneNs = acquired + 20'000;
        period.contended = true;
        s->periods.push_back(period);
        s->highWait.record(period.waitNs());
        s->highWaitTotalNs += period.waitNs();
    }
    std::stable_sort(s->timeline.begin(), s->timeline.end(),
                     [](const TimelineSegment& a, const TimelineSegment& b) { return a.startNs < b.startNs; });
    s->highPeriods = 3;
    s->highContended = 3;
    s->lowSections = 3;
    s->mediumBursts = 3;
    s->mediumRanWhileHighWaitedNs = mutex ? 3 * 50 * kNsPerMs : 0;
    s->lowRanWhileHighWaitedNs = 3 * 666'667;
    return s;
}

std::vector<InversionTimeline::Block> laneBlocks(const InversionTimeline* t, int lane)
{
    std::vector<InversionTimeline::Block> out;
    for (const auto& b : t->blocks())
        if (b.lane == lane)
            out.push_back(b);
    return out;
}

} // namespace

Q_DECLARE_METATYPE(InversionEdit)
Q_DECLARE_METATYPE(InversionUserEdit)

class TestInversionPage : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

    // Why the FIFO tests cannot run here, for RTSCOPE_SKIP_IF in the test itself (a skip in a helper would return
    // from the helper only, and the test would go on).
    rtscope::test::MaybeSkip missingFifoOrCpus() const
    {
        if (rtscope::test::MaybeSkip noFifo = rtscope::test::withoutFifo(m_probe))
            return noFifo;
        if (InversionConfig{}.resolvedCpu(topology()) < 0)
            return rtscope::test::Skip{
                rtscope::test::SkipKind::Cpus,
                "the inversion lab needs two usable CPUs (one stays free for the GUI and the watchdog)"};
        return std::nullopt;
    }

    InversionConfig shortConfig()
    {
        InversionConfig c;
        c.mediumBurstNs = 20 * kNsPerMs;
        c.holdNs = 2 * kNsPerMs;
        c.periodNs = 40 * kNsPerMs;
        c.durationNs = 400 * kNsPerMs;
        return c;
    }

private slots:
    void initTestCase() { m_probe = rtscope::test::setUpPageTest(); }
    void cleanup() { GuiThreadAffinity::restore(); }

    void mapperRoundTripsEveryControl_data()
    {
        test::addColumns<InversionEdit, InversionUserEdit, InversionEdit>("edit", "userEdit", "expectedFromUser");
        using W = const InversionControlWidgets&;
        using C = InversionConfig&;
        QTest::newRow("lock") << InversionEdit([](C c) { c.lock = LockKind::Ceiling; }) << InversionUserEdit([](W w) {
            w.lock->setCurrentIndex(w.lock->findData(int(LockKind::Pi)));
        }) << InversionEdit([](C c) { c.lock = LockKind::Pi; });
        QTest::newRow("burst") << InversionEdit([](C c) { c.mediumBurstNs = 1000 * kNsPerMs; })
                               << InversionUserEdit([](W w) { w.burst->setValueNs(120 * kNsPerMs); })
                               << InversionEdit([](C c) { c.mediumBurstNs = 120 * kNsPerMs; });
        QTest::newRow("hold") << InversionEdit([](C c) { c.holdNs = 100'000; })
                              << InversionUserEdit([](W w) { w.hold->setValueNs(2 * kNsPerMs); })
                              << InversionEdit([](C c) { c.holdNs = 2 * kNsPerMs; });
        QTest::newRow("period") << InversionEdit([](C c) { c.periodNs = 10'000 * kNsPerMs; })
                                << InversionUserEdit([](W w) { w.period->setValueNs(40 * kNsPerMs); })
                                << InversionEdit([](C c) { c.periodNs = 40 * kNsPerMs; });
        QTest::newRow("duration") << InversionEdit([](C c) { c.durationNs = 600'000 * kNsPerMs; })
                                  << InversionUserEdit([](W w) { w.duration->setValueNs(1000 * kNsPerMs); })
                                  << InversionEdit([](C c) { c.durationNs = 1000 * kNsPerMs; });
        QTest::newRow("priorities") << InversionEdit([](C c) {
            c.lowPriority = 1;
            c.mediumPriority = 50;
            c.highPriority = 98;
        }) << InversionUserEdit([](W w) { w.highPriority->setValue(40); })
                                    << InversionEdit([](C c) { c.highPriority = 40; });
    }

    void mapperRoundTripsEveryControl()
    {
        QFETCH(InversionEdit, edit);
        QFETCH(InversionUserEdit, userEdit);
        QFETCH(InversionEdit, expectedFromUser);
        if (InversionConfig{}.resolvedCpu(topology()) < 0)
            RTSCOPE_SKIP(Cpus, "needs two usable CPUs: validate() refuses every config on one");
        InversionPage page(m_probe);
        QVERIFY(page.config() == InversionConfig{});
        rtscope::test::checkMapperRoundTrip(page, *page.inversionControls(), edit, userEdit, expectedFromUser,
                                            [&](const InversionConfig& c) { return page.configJson() == toJson(c); });
        QVERIFY(page.problems().isEmpty());
    }

    void invalidValuesShowTheValidationSentence_data()
    {
        test::addRows<InversionEdit, QString>(
            {"edit", "sentence"},
            {
                {"priorities not rising", [](InversionConfig& c) { c.mediumPriority = 40; },
                 "priorities must rise from low to medium to high"},
                {"hold above half the period", [](InversionConfig& c) { c.holdNs = 60 * kNsPerMs; },
                 "hold must be at most half the period"},
                {"burst", [](InversionConfig& c) { c.mediumBurstNs = 2000 * kNsPerMs; },
                 "medium-burst must be between"},
                {"priority 99", [](InversionConfig& c) { c.highPriority = 99; },
                 "high-priority must be between 1 and 98"},
            });
    }

    void invalidValuesShowTheValidationSentence()
    {
        QFETCH(InversionEdit, edit);
        QFETCH(QString, sentence);
        InversionPage page(m_probe);
        rtscope::test::checkEditRefusedAsAWhole(page, *page.inversionControls(), edit, sentence);
    }

    void theReservedCpuIsOfferedAndRefused()
    {
        const int reserved = InversionConfig::reservedCpu(topology());
        if (InversionConfig{}.resolvedCpu(topology()) < 0)
            RTSCOPE_SKIP(Cpus, "needs two usable CPUs");
        InversionPage page(m_probe);
        QComboBox* cpu = page.inversionControls()->widgets().cpu;
        QVERIFY(cpu->findData(reserved) >= 0);
        cpu->setCurrentIndex(cpu->findData(reserved));
        QVERIFY2(page.problems().join(" ").contains(QString("cpu must not be %1").arg(reserved)),
                 qPrintable(page.problems().join(" | ")));
        QVERIFY(!page.start());
        QCOMPARE(rtscope::test::threadsAlive(), 0);
    }

    void configJsonNamesTheBadField()
    {
        InversionPage page(m_probe);
        QCOMPARE(page.applyConfigJson(nlohmann::json{{"lock", "spin"}}),
                 QStringList("lock must be mutex, pi or ceiling (got spin)"));
        QCOMPARE(page.applyConfigJson(nlohmann::json{{"lock", "futex"}}),
                 QStringList("lock must be one of mutex, pi, ceiling"));
        QCOMPARE(page.applyConfigJson(nlohmann::json{{"burst", 5}}), QStringList("unknown field 'burst'"));
        QVERIFY(page.config() == InversionConfig{});
    }

    void knownRunsShowExactlyTheirFigures()
    {
        InversionPage page(m_probe);
        QVERIFY(test::showExposed(page, 1400, 950));
        QAbstractItemModelTester tester(page.tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reference(&page, &ExperimentPage::referenceChanged);
        QCOMPARE(page.periodsShown(), 2);

        // The mutex run, live.
        const auto mutex = knownRun(LockKind::Mutex);
        page.showLive(mutex);
        const InversionTableModel& m = *page.tableModel();
        QCOMPARE(m.rowCount(), 1);
        auto cell = [&m](int row, int column) {
            return m.data(m.index(row, column)).toString();
        };
        QCOMPARE(cell(0, InversionTableModel::Periods), QString("3"));
        QCOMPARE(cell(0, InversionTableModel::Contended), QString("3"));
        QCOMPARE(cell(0, InversionTableModel::Missed), QString("0"));
        QCOMPARE(cell(0, InversionTableModel::WaitP50), formatLatency(double(mutex->highWait.percentile(50))));
        QCOMPARE(cell(0, InversionTableModel::WaitMax), QString("50.7 ms"));
        QCOMPARE(m.data(m.index(0, InversionTableModel::WaitMax), InversionTableModel::RawValueRole).toLongLong(),
                 qlonglong(51 * kNsPerMs - 333'333));
        QCOMPARE(cell(0, InversionTableModel::MediumRan), QString("150 ms (50.0 ms / period)"));

        // The lanes show periods 2 and 3 (the last two complete ones), each with medium running inside high's wait.
        const InversionTimeline* live = page.liveTimeline();
        QCOMPARE(live->data().fromNs, mutex->t0Ns + 100 * kNsPerMs);
        QCOMPARE(live->data().toNs, mutex->t0Ns + 300 * kNsPerMs);
        const auto medium = laneBlocks(live, InversionTimelineData::Medium);
        QCOMPARE(int(medium.size()), 2);
        for (int i = 0; i < 2; ++i) {
            const int64_t p = mutex->t0Ns + (i + 1) * 100 * kNsPerMs;
            QVERIFY(medium[size_t(i)].inversion);
            QCOMPARE(medium[size_t(i)].x0, live->xOf(p + 666'666));
            QCOMPARE(medium[size_t(i)].x1, live->xOf(p + 50 * kNsPerMs + 666'666));
        }
        QCOMPARE(int(live->periodMarkerX().size()), 3);
        QCOMPARE(live->tickLabels().last(), QString("200"));
        QVERIFY(live->data().title.contains("periods 2–3 of 10"));

        // Hold it: the frozen lanes appear, the live view waits for the next run.
        QVERIFY(page.holdAsReference());
        QCOMPARE(reference.count(), 1);
        QVERIFY(page.hasReference());
        QVERIFY(page.referenceTimeline()->isVisible());
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(m.data(m.index(0, InversionTableModel::Run), InversionTableModel::RawValueRole).toString(),
                 QString("reference"));
        QVERIFY(page.liveTimeline()->blocks().empty());

        // The pi run, live, under the reference.
        const auto pi = knownRun(LockKind::Pi);
        page.showLive(pi);
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.liveRow(), 1);
        QCOMPARE(cell(0, InversionTableModel::Lock), QString("mutex"));
        QCOMPARE(cell(1, InversionTableModel::Lock), QString("pi"));
        QCOMPARE(cell(1, InversionTableModel::WaitMax), QString("667 µs"));
        QCOMPARE(cell(1, InversionTableModel::MediumRan), QString("0 ns (0 ns / period)"));
        for (const auto& b : laneBlocks(page.liveTimeline(), InversionTimelineData::Medium))
            QVERIFY(!b.inversion);
        QCOMPARE(int(laneBlocks(page.referenceTimeline(), InversionTimelineData::Medium).size()), 2);
        QVERIFY(laneBlocks(page.referenceTimeline(), InversionTimelineData::Medium)[0].inversion);

        const QString refP50 = formatLatency(double(mutex->highWait.percentile(50)));
        QVERIFY2(page.waitText().startsWith(formatLatency(double(pi->highWait.percentile(50))) + " · p99 "),
                 qPrintable(page.waitText()));
        QVERIFY2(page.waitText().endsWith("reference mutex: p50 " + refP50), qPrintable(page.waitText()));
        QCOMPARE(page.inversionText(),
                 QString("0 ns / period · 0 ns in 3 periods\nreference mutex: 50.0 ms per period"));
        QCOMPARE(page.missedText(), QString("0 of 3 · 0 skipped releases\nreference mutex: 0 of 3"));

        page.clearReference();
        QCOMPARE(reference.count(), 2);
        QVERIFY(!page.hasReference());
        QVERIFY(!page.referenceTimeline()->isVisible());
        QCOMPARE(m.rowCount(), 1);
    }

    void nothingToHoldBeforeARun()
    {
        InversionPage page(m_probe);
        QSignalSpy status(&page, &ExperimentPage::statusMessage);
        QVERIFY(!page.holdAsReference());
        QVERIFY(!page.hasReference());
        QCOMPARE(status.count(), 1);
    }

    void oneStartRunsTheMutexThenPiUnderIt()
    {
        RTSCOPE_SKIP_IF(missingFifoOrCpus());
        InversionPage page(m_probe);
        page.resize(1400, 950);
        page.show();
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        page.inversionControls()->setCompareWith(LockKind::Pi);
        QVERIFY(rtscope::test::startRun(page, shortConfig()));
        const int cpu = shortConfig().resolvedCpu(topology());
        QCOMPARE(page.busyCpus(), std::vector<int>{cpu});
        const int reserved = InversionConfig::reservedCpu(topology());
        QVERIFY(cpu != reserved);

        QTRY_VERIFY_WITH_TIMEOUT(page.hasReference() && page.isRunning(), 5000);
        QCOMPARE(page.config().lock, LockKind::Pi);
        GuiThreadAffinity::keepOff(page.busyCpus());
        QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 5000);
        QCOMPARE(running.count(), 4); // mutex on and off, pi on and off: one follow-up, no chain
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        QVERIFY(page.busyCpus().empty());

        const InversionTableModel& m = *page.tableModel();
        QCOMPARE(m.rowCount(), 2);
        auto raw = [&m](int row, int column) {
            return m.data(m.index(row, column), InversionTableModel::RawValueRole);
        };
        QCOMPARE(raw(0, InversionTableModel::Lock).toString(), QString("mutex"));
        QCOMPARE(raw(1, InversionTableModel::Lock).toString(), QString("pi"));
        QVERIFY(raw(0, InversionTableModel::Periods).toULongLong() >= 8);
        QVERIFY(raw(1, InversionTableModel::Periods).toULongLong() >= 8);
        // The lesson, as a shape: with the mutex medium ran inside high's waits, with pi (almost) not.
        const qlonglong refMedium = raw(0, InversionTableModel::MediumRan).toLongLong();
        const qlonglong liveMedium = raw(1, InversionTableModel::MediumRan).toLongLong();
        QVERIFY2(refMedium > 10 * liveMedium, qPrintable(QString("%1 vs %2").arg(refMedium).arg(liveMedium)));
        QVERIFY(raw(0, InversionTableModel::WaitP50).toLongLong() >
                4 * raw(1, InversionTableModel::WaitP50).toLongLong());
        QCOMPARE(raw(0, InversionTableModel::Dropped).toULongLong(), 0ULL);
        QVERIFY(!laneBlocks(page.referenceTimeline(), InversionTimelineData::Medium).empty());
        // A watchdog trip (another real-time load on the same CPU can cause one) is never hidden: one banner line
        // per trip of the run shown.
        const auto last = page.experiment().snapshot();
        QVERIFY(last);
        const QString trips = page.watchdogText();
        QCOMPARE(trips.isEmpty() ? 0 : int(trips.split('\n').size()), int(last->watchdogTrips.size()));
        if (!trips.isEmpty())
            qInfo() << "watchdog:" << trips;
    }

    void stopDuringABurstJoinsWithinAHundredMilliseconds()
    {
        RTSCOPE_SKIP_IF(missingFifoOrCpus());
        InversionPage page(m_probe);
        InversionConfig c = shortConfig();
        c.mediumBurstNs = 500 * kNsPerMs;
        c.periodNs = 1000 * kNsPerMs;
        c.durationNs = 5000 * kNsPerMs;
        QVERIFY(rtscope::test::startRun(page, c));
        QTest::qWait(200); // period 0 released after 50 ms; medium spins from then on
        rtscope::test::stopJoinsWithin100ms(page);
    }

    void destroyingThePageDuringABurstJoinsEverything()
    {
        RTSCOPE_SKIP_IF(missingFifoOrCpus());
        auto* page = new InversionPage(m_probe);
        InversionConfig c = shortConfig();
        c.mediumBurstNs = 500 * kNsPerMs;
        c.periodNs = 1000 * kNsPerMs;
        c.durationNs = 5000 * kNsPerMs;
        QVERIFY(rtscope::test::startRun(*page, c));
        QTest::qWait(200);
        rtscope::test::destructionJoinsWithin100ms(std::unique_ptr<ExperimentPage>(page));
    }

    void settingsRoundTrip()
    {
        if (InversionConfig{}.resolvedCpu(topology()) < 0)
            RTSCOPE_SKIP(Cpus, "needs two usable CPUs");
        InversionConfig c = shortConfig();
        c.lock = LockKind::Ceiling;
        InversionPage saved(m_probe);
        QCOMPARE(saved.applyConfig(c), QStringList());
        saved.setPeriodsShown(5);
        saved.inversionControls()->setCompareWith(LockKind::Mutex);
        InversionPage page(m_probe);
        rtscope::test::saveAndRestore(saved, page);
        QVERIFY(page.config() == c);
        QCOMPARE(page.periodsShown(), 5);
        QCOMPARE(page.inversionControls()->compareWith(), std::optional<LockKind>(LockKind::Mutex));
        QVERIFY(page.problems().isEmpty());
    }

    void explanationReadsThisKernel()
    {
        InversionPage page(m_probe);
        const QString text = page.explanation();
        QVERIFY(text.contains("Mars Pathfinder"));
        QVERIFY(text.contains(QString::fromStdString(m_probe.kernelRelease)));
        if (m_probe.rtRuntimeUs >= 0 && m_probe.rtPeriodUs > 0)
            QVERIFY(text.contains(QString::number(m_probe.rtRuntimeUs)));
        if (m_probe.fairServer)
            QVERIFY(text.contains("fair server"));
    }
};

RTSCOPE_TEST_MAIN(TestInversionPage)
#include "tst_inversion_page.moc"
