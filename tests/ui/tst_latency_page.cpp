// The latency page driven two ways: by a replay with known samples (exact bins, percentiles, table rows, the
// frozen reference) and by the live experiment (a control change reaches the engine and leaves a marker).
#include "engine/pipeline/histogram.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "tests/common/exposed_widget.h"
#include "tests/common/latency_samples.h"
#include "tests/common/model_cell.h"
#include "tests/common/page_test_util.h"
#include "tests/common/privilege_drop.h"
#include "tests/common/probed_test.h"
#include "tests/common/thread_census.h"
#include "ui/common/latency_source.h"
#include "ui/latency/latency_page.h"
#include "ui/latency/latency_stats_model.h"
#include "ui/plot/histogram_chart.h"
#include "ui/plot/timeline_chart.h"
#include "ui/widgets/duration_spin_box.h"
#include "ui/widgets/latency_controls.h"
#include "ui/widgets/period_editor.h"

#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>

#include <QtTest>

using namespace rtscope;
using namespace rtscope::test;

namespace {

// 600 × 10 µs, 300 × 20 µs, 99 × 100 µs, 1 × 3 ms: p50 10 µs, p90 20 µs, p99 and p99.9 100 µs, max 3 ms.
std::vector<int64_t> knownLatencies()
{
    std::vector<int64_t> v;
    v.insert(v.end(), 600, 10'000);
    v.insert(v.end(), 300, 20'000);
    v.insert(v.end(), 99, 100'000);
    v.push_back(3'000'000);
    return v;
}

void feed(ReplayLatencySource& src, const std::vector<int64_t>& latencies, int64_t startNs)
{
    for (const LatencySample& s : rtscope::test::periodicSamples(latencies, src.replay().nextSeq(), startNs))
        src.replay().add(s);
}

// Where the display puts a recorded value: the middle of its histogram bucket, in µs.
double bucketMidUs(int64_t ns)
{
    const size_t i = Histogram::bucketIndex(ns);
    return double(Histogram::bucketLow(i) + Histogram::bucketHigh(i) + 1) / 2e3;
}

double latencyPageStepAt(const QList<QPointF>& points, double x)
{
    for (qsizetype i = 0; i + 1 < points.size(); i += 2)
        if (points[i].x() <= x && x < points[i + 1].x())
            return points[i].y();
    return -1;
}

// A source that refuses real-time policies the way the engine does without the privilege.
class RefusingSource : public ReplayLatencySource {
public:
    Error start(const LatencyConfig& c, const CpuTopology& cpus) override
    {
        if (isRealtime(c.policy))
            return refusal();
        return ReplayLatencySource::start(c, cpus);
    }
    Error reconfigure(const LatencyConfig& c) override
    {
        if (isRealtime(c.policy))
            return refusal();
        return ReplayLatencySource::reconfigure(c);
    }
    static Error refusal()
    {
        return {ErrorKind::Permission, "Cannot run thread 'rtscope-measure' as SCHED_FIFO priority 80: "
                                       "RLIMIT_RTPRIO is 0 (EPERM)."};
    }
};

} // namespace

class TestLatencyPage : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

private slots:
    // 60 times a second the live row gets new figures, most of them as they were: only the cells whose text changed
    // are reported, one cell each, so the table repaints those cells and not its whole viewport (docs/BENCHMARKS.md).
    void newFiguresReportOnlyTheCellsThatChanged()
    {
        LatencyStatsModel m;
        LatencyRunSummary s;
        s.label = "FIFO 80";
        s.samples = 1000;
        s.minNs = 4'000;
        s.p50Ns = 5'000;
        s.maxNs = 90'000;
        m.setLive(s);
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.setLive(s);
        QCOMPARE(changed.count(), 0);
        s.samples = 1001;
        s.maxNs = 95'000;
        m.setLive(s);
        QCOMPARE(changed.count(), 2);
        QList<int> columns;
        for (const QList<QVariant>& args : changed) {
            const auto from = args[0].value<QModelIndex>(), to = args[1].value<QModelIndex>();
            QCOMPARE(from, to);
            QCOMPARE(from.row(), 0);
            columns << from.column();
        }
        std::sort(columns.begin(), columns.end());
        QCOMPARE(columns, (QList<int>{LatencyStatsModel::Samples, LatencyStatsModel::Max}));
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Samples).toULongLong(), 1001ULL);
    }

    void initTestCase() { m_probe = rtscope::test::probeWithWakeSignal(); }

    void replayedSamplesGiveExactFiguresAndBins()
    {
        auto owned = std::make_unique<ReplayLatencySource>();
        ReplayLatencySource& src = *owned;
        LatencyPage page(std::move(owned), m_probe);
        QVERIFY(test::showExposed(page, 1200, 800));
        QAbstractItemModelTester tester(page.statsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        QVERIFY(page.start());
        const int64_t t0 = nowNs() - 2 * kNsPerSec;
        feed(src, knownLatencies(), t0);
        src.publish();
        page.refreshNow();

        Histogram expected;
        for (int64_t v : knownLatencies())
            expected.record(v);
        const LatencyStatsModel& m = *page.statsModel();
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Samples).toULongLong(), 1000ULL);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Min).toLongLong(), 10'000LL);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Max).toLongLong(), 3'000'000LL);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::P50).toLongLong(), expected.percentile(50));
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::P90).toLongLong(), expected.percentile(90));
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::P99).toLongLong(), expected.percentile(99));
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::P999).toLongLong(), expected.percentile(99.9));
        // Within the histogram's 0.4 % bucket precision of the values put in.
        QVERIFY(qAbs(test::rawCell(m, 0, LatencyStatsModel::P50).toLongLong() - 10'000) <= 40);
        QVERIFY(qAbs(test::rawCell(m, 0, LatencyStatsModel::P90).toLongLong() - 20'000) <= 80);
        QVERIFY(qAbs(test::rawCell(m, 0, LatencyStatsModel::P999).toLongLong() - 100'000) <= 400);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Avg).toDouble(), expected.mean());
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Dropped).toULongLong(), 0ULL);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Samples, Qt::DisplayRole).toString(), QString("1000"));
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Max, Qt::DisplayRole).toString(), QString("3000"));
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Min, Qt::DisplayRole).toString(), QString("10.0"));
        QVERIFY(test::rawCell(m, 0, LatencyStatsModel::Config).toString().startsWith("OTHER · 1.00 ms · 0 hogs"));

        // The histogram: each value in its bin with its count, nothing lost, the four markers drawn.
        const QList<QPointF> pts = page.histogramChart()->livePoints();
        QCOMPARE(latencyPageStepAt(pts, bucketMidUs(10'000)), 600.0);
        QCOMPARE(latencyPageStepAt(pts, bucketMidUs(20'000)), 300.0);
        QCOMPARE(latencyPageStepAt(pts, bucketMidUs(100'000)), 99.0);
        QCOMPARE(latencyPageStepAt(pts, bucketMidUs(3'000'000)), 1.0);
        double sum = 0;
        for (qsizetype i = 0; i < pts.size(); i += 2)
            sum += pts[i].y() >= 1 ? pts[i].y() : 0;
        QCOMPARE(sum, 1000.0);
        QCOMPARE(page.histogramChart()->visibleMarkers(), 4);
        QVERIFY(page.histogramChart()->latencyAxisMax() >= 3000);
        QVERIFY(page.timelineChart()->latencyAxisMax() >= 3000);
        QVERIFY(page.dataLossWarning().isEmpty());

        // Same generation again: nothing is redrawn.
        const uint64_t frames = page.framesDrawn();
        page.refreshNow();
        QCOMPARE(page.framesDrawn(), frames);
        page.stop();
    }

    void holdAsReferenceKeepsTheFrozenRun()
    {
        auto owned = std::make_unique<ReplayLatencySource>();
        ReplayLatencySource& src = *owned;
        LatencyPage page(std::move(owned), m_probe);
        QAbstractItemModelTester tester(page.statsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy held(&page, &ExperimentPage::referenceChanged);
        QVERIFY(!page.holdAsReference()); // nothing measured yet

        QVERIFY(page.start());
        const int64_t t0 = nowNs() - 3 * kNsPerSec;
        feed(src, knownLatencies(), t0);
        src.publish();
        page.refreshNow();
        QVERIFY(page.holdAsReference());
        QCOMPARE(held.count(), 1);
        QVERIFY(page.hasReference());
        const QList<QPointF> frozen = page.histogramChart()->referencePoints();
        QVERIFY(!frozen.isEmpty());

        // New data under another config: FIFO, fast, after a reset.
        LatencyConfig fifo = page.config();
        fifo.policy = Policy::Fifo;
        fifo.priority = 80;
        QVERIFY(page.applyConfig(fifo).isEmpty());
        page.resetStatistics();
        feed(src, std::vector<int64_t>(500, 4'000), t0 + 2 * kNsPerSec);
        src.publish();
        page.refreshNow();

        const LatencyStatsModel& m = *page.statsModel();
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.rowKind(1), LatencyStatsModel::RowKind::Reference);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Samples).toULongLong(), 500ULL);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Max).toLongLong(), 4'000LL);
        QVERIFY(test::rawCell(m, 0, LatencyStatsModel::Config).toString().startsWith("FIFO 80"));
        QCOMPARE(test::rawCell(m, 1, LatencyStatsModel::Samples).toULongLong(), 1000ULL);
        QCOMPARE(test::rawCell(m, 1, LatencyStatsModel::Max).toLongLong(), 3'000'000LL);
        QVERIFY(test::rawCell(m, 1, LatencyStatsModel::Config).toString().startsWith("OTHER"));
        QCOMPARE(m.headerData(1, Qt::Vertical).toString(), QString("Reference"));
        QCOMPARE(page.histogramChart()->referencePoints(), frozen);
        QVERIFY(page.histogramChart()->referenceName().startsWith("reference: OTHER"));
        QVERIFY(page.histogramChart()->liveName().startsWith("live: FIFO 80"));
        QVERIFY(page.findChild<QLabel*>("referenceLabel")->text().contains("OTHER"));

        page.clearReference();
        QCOMPARE(m.rowCount(), 1);
        QVERIFY(page.histogramChart()->referencePoints().isEmpty());
        QCOMPARE(held.count(), 2);
    }

    void lostSamplesAreShownProminently()
    {
        auto owned = std::make_unique<ReplayLatencySource>();
        ReplayLatencySource& src = *owned;
        LatencyPage page(std::move(owned), m_probe);
        page.show();
        QVERIFY(page.start());
        const int64_t t0 = nowNs() - kNsPerSec;
        feed(src, std::vector<int64_t>(10, 5'000), t0);
        src.replay().add(LatencySample{20, t0 + 20 * kNsPerMs, t0 + 20 * kNsPerMs + 5'000, 5'000, 0, 0});
        src.replay().setDrops(7);
        src.publish();
        page.refreshNow();
        const QString warning = page.dataLossWarning();
        QVERIFY2(warning.contains("7 samples dropped") && warning.contains("10 missing"), qPrintable(warning));
        QVERIFY(page.findChild<QLabel*>("dataLossWarning")->isVisible());
        const LatencyStatsModel& m = *page.statsModel();
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Dropped).toULongLong(), 7ULL);
        QVERIFY(test::rawCell(m, 0, LatencyStatsModel::Dropped, Qt::ForegroundRole).isValid());
    }

    void pausedDisplayDoesNotRedraw()
    {
        auto owned = std::make_unique<ReplayLatencySource>();
        ReplayLatencySource& src = *owned;
        LatencyPage page(std::move(owned), m_probe);
        QVERIFY(page.start());
        feed(src, std::vector<int64_t>(10, 5'000), nowNs() - kNsPerSec);
        src.publish();
        page.refreshNow();
        const uint64_t frames = page.framesDrawn();
        page.setDisplayPaused(true);
        feed(src, std::vector<int64_t>(10, 9'000), nowNs() - kNsPerSec / 2);
        src.publish();
        page.refreshNow();
        QCOMPARE(page.framesDrawn(), frames);
        QCOMPARE(test::rawCell(*page.statsModel(), 0, LatencyStatsModel::Samples).toULongLong(), 10ULL);
        page.setDisplayPaused(false);
        QCOMPARE(page.framesDrawn(), frames + 1);
        QCOMPARE(test::rawCell(*page.statsModel(), 0, LatencyStatsModel::Samples).toULongLong(), 20ULL);
    }

    void invalidConfigIsShownAndNothingChanges()
    {
        LatencyPage page(std::make_unique<ReplayLatencySource>(), m_probe);
        LatencyConfig bad = page.config();
        bad.periodNs = 5;
        rtscope::test::checkRefusedAsAWhole(page, *page.latencyControls(), bad, "period must be between");
        QVERIFY2(!page.problems().isEmpty() && page.problems().first().startsWith("period must be between"),
                 qPrintable(page.problems().join(" | ")));
    }

    void refusedFifoShowsTheErrorInsteadOfRunningOther()
    {
        LatencyPage page(std::make_unique<RefusingSource>(), m_probe);
        LatencyConfig fifo = page.config();
        fifo.policy = Policy::Fifo;
        fifo.priority = 80;
        QVERIFY(page.applyConfig(fifo).isEmpty()); // a valid config: the refusal comes at start
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        QVERIFY(!page.start());
        QVERIFY(!page.isRunning());
        QCOMPARE(running.count(), 0);
        QVERIFY2(page.problems().join(" ").contains("RLIMIT_RTPRIO"), qPrintable(page.problems().join(" ")));

        // Running OTHER, a switch to FIFO is refused: the run and the controls stay OTHER, the reason is shown.
        LatencyConfig other = fifo;
        other.policy = Policy::Other;
        other.priority = 0;
        QVERIFY(page.applyConfig(other).isEmpty());
        QVERIFY(page.start());
        auto* policy = page.latencyControls()->findChild<QComboBox*>("policy");
        policy->setCurrentIndex(policy->findData(int(Policy::Fifo)));
        QCOMPARE(Policy(policy->currentData().toInt()), Policy::Other);
        QCOMPARE(page.config().policy, Policy::Other);
        QVERIFY(page.isRunning());
        QVERIFY(page.problems().join(" ").contains("RLIMIT_RTPRIO"));
        page.stop();
    }

    // A live change the kernel refuses, whose undo it refuses too (real-time privilege gone in the middle of a
    // FIFO run): the engine ends the run, and the page must show it stopped with the reason, not "Running".
    void refusedChangeAndRefusedUndoShowTheRunStopped()
    {
        RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe)); // the run that later loses it is FIFO
        auto owned = std::make_unique<LiveLatencySource>();
        LiveLatencySource& src = *owned;
        LatencyPage page(std::move(owned), m_probe);
        LatencyConfig c = page.config();
        c.policy = Policy::Fifo;
        c.priority = 80;
        c.periodNs = 1'000'000;
        c.hogs = 0;
        QVERIFY(page.applyConfig(c).isEmpty());
        QVERIFY(page.start());
        QTRY_VERIFY(src.snapshot() && !src.snapshot()->threads.empty() && src.snapshot()->threads.front().samples > 20);
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        {
            WithoutRealtimePrivilege unprivileged;
            QVERIFY(unprivileged.ok());
            auto* waiter = page.latencyControls()->findChild<QComboBox*>("waiter");
            waiter->setCurrentIndex(waiter->findData(int(WaiterKind::Timerfd))); // restarts the measuring thread
        }
        QVERIFY(!src.running());
        QVERIFY(!page.isRunning());
        QCOMPARE(running.count(), 1);
        QCOMPARE(running.front().front().toBool(), false);
        QVERIFY2(page.problems().join(" ").contains("Putting back the previous setting failed too"),
                 qPrintable(page.problems().join(" | ")));
        QCOMPARE(rtscope::test::threadsAlive(), 0);
    }

    void liveChangesReachTheEngineAndLeaveMarkers()
    {
        auto owned = std::make_unique<LiveLatencySource>();
        LiveLatencySource& src = *owned;
        LatencyPage page(std::move(owned), m_probe);
        QVERIFY(test::showExposed(page, 1200, 800));
        LatencyConfig c = page.config();
        c.periodNs = 1'000'000;
        c.hogs = 0;
        QVERIFY(page.applyConfig(c).isEmpty());
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        QVERIFY(page.start());
        QCOMPARE(running.count(), 1);
        QTRY_VERIFY(src.snapshot() && !src.snapshot()->threads.empty() && src.snapshot()->threads.front().samples > 20);
        QTRY_VERIFY(page.framesDrawn() > 0); // the refresh timer draws on its own

        // Hogs: a user edit of the spin box is applied before the call returns.
        page.latencyControls()->findChild<QSpinBox*>("hogs")->setValue(2);
        QCOMPARE(src.experiment().config().hogs, 2);
        QTRY_COMPARE(rtscope::test::threadsAlive("rtscope-hog"), 2);

        // Period through the spin box.
        page.latencyControls()->findChild<DurationSpinBox*>("period")->setValueNs(500'000);
        QCOMPARE(src.experiment().config().periodNs, int64_t(500'000));

        // Period through the slider: throttled, still well within 100 ms of the last move.
        auto* editor = page.latencyControls()->widgets().period;
        editor->slider()->setValue(editor->sliderPosition(2'000'000));
        QTRY_COMPARE_WITH_TIMEOUT(src.experiment().config().periodNs,
                                  editor->periodAt(editor->sliderPosition(2'000'000)), 1000);

        // Waiter: restarts the measuring thread, sequence continues.
        auto* waiter = page.latencyControls()->findChild<QComboBox*>("waiter");
        waiter->setCurrentIndex(waiter->findData(int(WaiterKind::Timerfd)));
        QCOMPARE(src.experiment().config().waiter, WaiterKind::Timerfd);

        if (m_probe.rtAvailable) {
            auto* policy = page.latencyControls()->findChild<QComboBox*>("policy");
            policy->setCurrentIndex(policy->findData(int(Policy::Fifo)));
            QCOMPARE(src.experiment().config().policy, Policy::Fifo);
            QCOMPARE(src.experiment().config().priority, 80);
        }

        auto labels = [&src] {
            QStringList out;
            for (const Marker& m : src.snapshot()->markers)
                out << QString::fromStdString(m.label);
            return out;
        };
        // The last change's marker arrives with the next snapshot; the earlier ones are in it then too.
        QTRY_VERIFY2(labels().contains(m_probe.rtAvailable ? "FIFO 80" : "waiter timerfd"),
                     qPrintable(labels().join(" | ")));
        QVERIFY2(labels().contains("2 hogs"), qPrintable(labels().join(" | ")));
        QVERIFY2(labels().contains("period 500.0 us"), qPrintable(labels().join(" | ")));
        QVERIFY2(labels().contains("waiter timerfd"), qPrintable(labels().join(" | ")));
        // Reset on change is on by default: each change is followed by a reset of the statistics.
        QVERIFY(labels().contains("reset"));
        QVERIFY(page.problems().isEmpty());

        // The markers reach the timeline view too.
        QTRY_VERIFY(page.timelineChart()->visibleMarkers() >= 4);

        page.stop();
        QCOMPARE(running.count(), 2);
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        const auto snap = src.snapshot();
        QCOMPARE(snap->threads.front().drops, uint64_t(0));
        QCOMPARE(snap->threads.front().seqGaps, uint64_t(0));
        if (!m_probe.rtAvailable)
            RTSCOPE_SKIP(RtPrivilege, "SCHED_FIFO is not permitted here; the policy change was not exercised live");
    }
};

RTSCOPE_TEST_MAIN(TestLatencyPage)
#include "tst_latency_page.moc"
