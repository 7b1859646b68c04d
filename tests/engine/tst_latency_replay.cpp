// ctest: parallel. Replay aggregator, no threads.
// LatencyReplay: known samples in, the live experiment's snapshot shape out (figures from the same aggregator,
// markers in the same words, the timeline window ending at the publish time).
#include "engine/experiments/latency/latency_replay.h"
#include "engine/util/clock.h"

#include "tests/common/latency_samples.h"
#include "tests/common/test_main.h"

#include <QtTest>

using namespace rtscope;

namespace {

constexpr int64_t kReplayT0 = 1'000 * kNsPerSec;

std::vector<LatencySample> samples(const std::vector<int64_t>& latencies, uint64_t firstSeq = 0,
                                   int64_t startNs = kReplayT0, int64_t periodNs = kNsPerMs)
{
    return rtscope::test::periodicSamples(latencies, firstSeq, startNs, periodNs);
}

QStringList labels(const LatencySnapshot& s)
{
    QStringList out;
    for (const auto& m : s.markers)
        out << QString::fromStdString(m.label);
    return out;
}

} // namespace

class TestLatencyReplay : public QObject {
    Q_OBJECT
private slots:
    void figuresMatchTheSamples()
    {
        LatencyReplay r;
        LatencyConfig c;
        r.start(c, kReplayT0);
        std::vector<int64_t> lat;
        for (int us = 1; us <= 1000; ++us)
            lat.push_back(int64_t(us) * kNsPerUs);
        r.add(samples(lat));
        auto snap = r.publish(kReplayT0 + 2 * kNsPerSec);
        QVERIFY(snap);
        QCOMPARE(snap->generation, uint64_t(1));
        QVERIFY(snap->running);
        QCOMPARE(snap->threads.size(), size_t(1));
        const LatencyThreadStats& t = snap->threads.front();
        QCOMPARE(t.samples, uint64_t(1000));
        QCOMPARE(t.histogram.min(), 1 * kNsPerUs);
        QCOMPARE(t.histogram.max(), 1000 * kNsPerUs);
        QCOMPARE(t.seqGaps, uint64_t(0));
        // Nearest rank within the histogram's 0.4 % bucket precision.
        QVERIFY(std::abs(t.histogram.percentile(50) - 500 * kNsPerUs) <= 500 * kNsPerUs / 250);
        QVERIFY(std::abs(t.histogram.percentile(99) - 990 * kNsPerUs) <= 990 * kNsPerUs / 250);
        QVERIFY(!t.series.empty());
        QCOMPARE(snap->markers.size(), size_t(1));
        QCOMPARE(QString::fromStdString(snap->markers.front().label), QString::fromStdString("start: " + c.label()));
        QCOMPARE(r.snapshot(), snap);
        QCOMPARE(r.publish(kReplayT0 + 3 * kNsPerSec)->generation, uint64_t(2));
    }

    void gapsAndDropsAreReported()
    {
        LatencyReplay r;
        r.start({}, kReplayT0);
        r.add(samples(std::vector<int64_t>(10, 5000), 0));
        r.add(samples(std::vector<int64_t>(5, 5000), 15, kReplayT0 + 20 * kNsPerMs));
        r.setDrops(3);
        auto snap = r.publish(kReplayT0 + kNsPerSec);
        QCOMPARE(snap->threads.front().seqGaps, uint64_t(5));
        QCOMPARE(snap->threads.front().drops, uint64_t(3));
        QCOMPARE(r.nextSeq(), uint64_t(20));
    }

    void changesAreLabelledLikeTheLiveExperiment()
    {
        LatencyReplay r;
        LatencyConfig c;
        c.cpu = 1;
        c.hogCpu = 1;
        r.start(c, kReplayT0);
        LatencyConfig next = c;
        next.periodNs = 500'000;
        next.hogs = 3;
        r.reconfigure(next, kReplayT0 + kNsPerSec);
        next.policy = Policy::Fifo;
        next.priority = 80;
        r.reconfigure(next, kReplayT0 + 2 * kNsPerSec);
        next.waiter = WaiterKind::Timerfd;
        r.reconfigure(next, kReplayT0 + 3 * kNsPerSec);
        r.reconfigure(next, kReplayT0 + 4 * kNsPerSec); // nothing changed: no marker
        next.hogs = 16;
        r.reconfigure(next, kReplayT0 + 5 * kNsPerSec);
        auto snap = r.publish(kReplayT0 + 6 * kNsPerSec);
        const QStringList l = labels(*snap);
        QCOMPARE(l.size(), 5);
        QCOMPARE(l[1], QString("period 500.0 us, 3 hogs"));
        QCOMPARE(l[2], QString("FIFO 80"));
        QCOMPARE(l[3], QString("waiter timerfd"));
        QCOMPARE(l[4], QString("16 hogs"));
        QCOMPARE(snap->config.policy, Policy::Fifo);
        for (size_t i = 1; i < snap->markers.size(); ++i)
            QVERIFY(snap->markers[i].tNs > snap->markers[i - 1].tNs);
    }

    void resetKeepsTheTimeline()
    {
        LatencyReplay r;
        r.start({}, kReplayT0);
        r.add(samples(std::vector<int64_t>(2000, 8000)));
        r.resetStatistics(kReplayT0 + 2 * kNsPerSec);
        r.add(samples(std::vector<int64_t>(10, 3000), 2000, kReplayT0 + 2 * kNsPerSec));
        auto snap = r.publish(kReplayT0 + 3 * kNsPerSec);
        const LatencyThreadStats& t = snap->threads.front();
        QCOMPARE(t.samples, uint64_t(10));
        QCOMPARE(t.histogram.max(), int64_t(3000));
        QCOMPARE(t.seqGaps, uint64_t(0)); // sequence tracking survives a reset
        QCOMPARE(snap->resetNs, kReplayT0 + 2 * kNsPerSec);
        QVERIFY(t.series.size() > 1000); // 1 ms buckets of the 2 s before the reset are still there
        QCOMPARE(labels(*snap).last(), QString("reset"));
    }

    void theTimelineEndsAtThePublishTime()
    {
        LatencyReplay r;
        r.setSeriesWindow(2 * kNsPerSec);
        r.start({}, kReplayT0);
        r.add(samples(std::vector<int64_t>(5000, 1000))); // 5 s of 1 ms samples
        auto snap = r.publish(kReplayT0 + 5 * kNsPerSec);
        const auto& series = snap->threads.front().series;
        QVERIFY(!series.empty());
        QVERIFY(series.front().tNs >= kReplayT0 + 3 * kNsPerSec - LatencyAggregator::kSeriesBucketNs);
        QVERIFY(series.size() <= 2001);
        QCOMPARE(snap->threads.front().samples, uint64_t(5000)); // the window limits the timeline only
    }

    void stopEndsTheRun()
    {
        LatencyReplay r;
        r.start({}, kReplayT0);
        r.stop();
        QVERIFY(!r.running());
        QVERIFY(!r.publish(kReplayT0 + 1)->running);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestLatencyReplay)
#include "tst_latency_replay.moc"
