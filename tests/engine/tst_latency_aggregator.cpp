// ctest: parallel. Pure aggregation.
// LatencyAggregator on samples written by hand: every figure below is worked out from the samples fed, not taken
// from the code (min/avg/max, the exact µs bins and their overflow bin, overflow sequence numbers, skipped periods,
// sequence gaps, the timeline's 1 ms buckets, reset and clear).
#include "engine/pipeline/latency_aggregator.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <numeric>

using namespace rtscope;

namespace {

constexpr int64_t kAggT0 = 1'000 * kNsPerSec; // a whole millisecond: the timeline's buckets start on it

// One wake-up: @p seq, @p latencyNs late for a deadline @p deadlineOffsetNs after kAggT0, @p skipped periods missed.
LatencySample aggSample(uint64_t seq, int64_t latencyNs, int64_t deadlineOffsetNs = 0, uint32_t skipped = 0)
{
    LatencySample s;
    s.seq = seq;
    s.deadlineNs = kAggT0 + deadlineOffsetNs;
    s.latencyNs = latencyNs;
    s.wakeNs = s.deadlineNs + latencyNs;
    s.skipped = skipped;
    return s;
}

uint64_t aggBinned(const Histogram& h)
{
    const auto& bins = h.exactUsBins();
    return std::accumulate(bins.begin(), bins.end(), uint64_t(0)) + h.exactUsOverflow();
}

} // namespace

class TestLatencyAggregator : public QObject {
    Q_OBJECT
private slots:
    void emptyHasNoFigures()
    {
        const LatencyAggregator agg(5);
        const LatencyThreadStats t = agg.stats(INT64_MIN);
        QCOMPARE(t.samples, uint64_t(0));
        QCOMPARE(t.skipped, uint64_t(0));
        QCOMPARE(t.seqGaps, uint64_t(0));
        QCOMPARE(t.drops, uint64_t(0)); // the run's figure, never the aggregator's
        QCOMPARE(t.lastNs, int64_t(0));
        QCOMPARE(t.histogram.count(), uint64_t(0));
        QCOMPARE(t.histogram.min(), int64_t(0));
        QCOMPARE(t.histogram.max(), int64_t(0));
        QCOMPARE(t.histogram.mean(), 0.0);
        QCOMPARE(t.histogram.exactUsBins(), std::vector<uint64_t>(5, 0));
        QCOMPARE(t.histogram.exactUsOverflow(), uint64_t(0));
        QVERIFY(t.overflowSeqs.empty());
        QVERIFY(t.series.empty());
        QCOMPARE(agg.expectedSeq(), uint64_t(0));
    }

    void oneSample()
    {
        LatencyAggregator agg(10);
        agg.add(aggSample(0, 7'500, 200'000)); // wakes at T0 + 207.5 µs: the first 1 ms bucket
        const LatencyThreadStats t = agg.stats(INT64_MIN);
        QCOMPARE(t.samples, uint64_t(1));
        QCOMPARE(t.histogram.count(), uint64_t(1));
        QCOMPARE(t.histogram.min(), int64_t(7'500));
        QCOMPARE(t.histogram.max(), int64_t(7'500));
        QCOMPARE(t.histogram.mean(), 7'500.0);
        QCOMPARE(t.lastNs, int64_t(7'500));
        std::vector<uint64_t> bins(10, 0);
        bins[7] = 1; // 7.5 µs truncates to bin 7, as cyclictest bins it
        QCOMPARE(t.histogram.exactUsBins(), bins);
        QCOMPARE(t.histogram.exactUsOverflow(), uint64_t(0));
        QCOMPARE(t.seqGaps, uint64_t(0));
        QCOMPARE(agg.expectedSeq(), uint64_t(1));
        QCOMPARE(t.series.size(), size_t(1));
        QCOMPARE(t.series[0].tNs, kAggT0);
        QCOMPARE(t.series[0].minNs, int64_t(7'500));
        QCOMPARE(t.series[0].maxNs, int64_t(7'500));
        QCOMPARE(t.series[0].count, 1u);
    }

    void minMeanMaxAndTheNewestSample()
    {
        LatencyAggregator agg(10);
        const int64_t latencies[] = {3'000, 12'000, 5'000, 4'000};
        for (uint64_t i = 0; i < 4; ++i)
            agg.add(aggSample(i, latencies[i], int64_t(i) * kNsPerMs));
        const LatencyThreadStats t = agg.stats(INT64_MIN);
        QCOMPARE(t.samples, uint64_t(4));
        QCOMPARE(t.histogram.min(), int64_t(3'000));
        QCOMPARE(t.histogram.max(), int64_t(12'000));
        QCOMPARE(t.histogram.mean(), 6'000.0); // 24 000 / 4
        QCOMPARE(t.lastNs, int64_t(4'000));    // "Act": the newest, not the largest
        std::vector<uint64_t> bins(10, 0);
        bins[3] = bins[4] = bins[5] = 1;
        QCOMPARE(t.histogram.exactUsBins(), bins);
        QCOMPARE(t.histogram.exactUsOverflow(), uint64_t(1)); // 12 µs: past the last of 10 bins
        QCOMPARE(aggBinned(t.histogram), t.samples);
        QCOMPARE(t.overflowSeqs, std::vector<uint64_t>{1});
        QCOMPARE(agg.current().samples, uint64_t(4)); // current() holds the same counts, without the timeline
        QCOMPARE(agg.current().histogram.max(), int64_t(12'000));
    }

    void overflowBinEdges()
    {
        // With 2 exact bins, [0, 1) µs and [1, 2) µs: 1999 ns is the last value inside, 2000 ns the first overflow.
        LatencyAggregator agg(2);
        agg.add(aggSample(0, 999));
        agg.add(aggSample(1, 1'000));
        agg.add(aggSample(2, 1'999));
        agg.add(aggSample(3, 2'000));
        agg.add(aggSample(4, -500)); // a clock step: clamped into bin 0, while min stays exact
        const LatencyThreadStats t = agg.stats(INT64_MIN);
        QCOMPARE(t.histogram.exactUsBins(), (std::vector<uint64_t>{2, 2}));
        QCOMPARE(t.histogram.exactUsOverflow(), uint64_t(1));
        QCOMPARE(t.overflowSeqs, std::vector<uint64_t>{3});
        QCOMPARE(t.histogram.min(), int64_t(-500));
        QCOMPARE(aggBinned(t.histogram), uint64_t(5));
    }

    void overflowSequenceNumbersAreCappedAtTheBinCount()
    {
        // cyclictest keeps as many overflow cycle numbers as it has bins: the first ones.
        LatencyAggregator agg(2);
        for (uint64_t i = 0; i < 5; ++i)
            agg.add(aggSample(i, 50'000));
        const LatencyThreadStats t = agg.stats(INT64_MIN);
        QCOMPARE(t.overflowSeqs, (std::vector<uint64_t>{0, 1}));
        QCOMPARE(t.histogram.exactUsOverflow(), uint64_t(5)); // every one is counted all the same
    }

    void withoutExactBinsNothingOverflows()
    {
        LatencyAggregator agg(0);
        agg.add(aggSample(0, 5 * kNsPerSec));
        const LatencyThreadStats t = agg.stats(INT64_MIN);
        QCOMPARE(t.histogram.exactUsBinCount(), size_t(0));
        QCOMPARE(t.histogram.exactUsOverflow(), uint64_t(0));
        QVERIFY(t.overflowSeqs.empty());
        QCOMPARE(t.histogram.max(), 5 * kNsPerSec);
    }

    void pastTheHistogramsRangeOnlyMaxIsExact()
    {
        LatencyAggregator agg(0);
        agg.add(aggSample(0, 1'000));
        agg.add(aggSample(1, Histogram::kMaxTrackableNs + 1));
        const LatencyThreadStats t = agg.stats(INT64_MIN);
        QCOMPARE(t.samples, uint64_t(2));
        QCOMPARE(t.histogram.count(), uint64_t(2));
        QCOMPARE(t.histogram.overflowCount(), uint64_t(1));
        QCOMPARE(t.histogram.max(), Histogram::kMaxTrackableNs + 1);
        QCOMPARE(t.lastNs, Histogram::kMaxTrackableNs + 1);
    }

    void skippedPeriodsAddUp()
    {
        LatencyAggregator agg(0);
        agg.add(aggSample(0, 1'000, 0, 0));
        agg.add(aggSample(1, 1'000, 3 * kNsPerMs, 2)); // two deadlines passed unmeasured before this one
        agg.add(aggSample(2, 1'000, 7 * kNsPerMs, 3));
        const LatencyThreadStats t = agg.stats(INT64_MIN);
        QCOMPARE(t.skipped, uint64_t(5));
        QCOMPARE(t.samples, uint64_t(3)); // a skipped period is not a sample ...
        QCOMPARE(t.seqGaps, uint64_t(0)); // ... and not a lost one: the sequence has no hole
    }

    void sequenceGapsCountTheMissingSamples()
    {
        LatencyAggregator agg(0);
        for (uint64_t seq : {0, 1, 4, 5, 9})
            agg.add(aggSample(seq, 1'000));
        // 2 and 3 missing, then 6, 7 and 8.
        QCOMPARE(agg.stats(INT64_MIN).seqGaps, uint64_t(5));
        QCOMPARE(agg.stats(INT64_MIN).samples, uint64_t(5));
        QCOMPARE(agg.expectedSeq(), uint64_t(10));
    }

    void aFirstSampleAfterZeroIsAGap()
    {
        LatencyAggregator agg(0);
        agg.add(aggSample(3, 1'000)); // 0, 1 and 2 never arrived
        QCOMPARE(agg.stats(INT64_MIN).seqGaps, uint64_t(3));
        QCOMPARE(agg.expectedSeq(), uint64_t(4));
    }

    void aLateSampleIsNoGap()
    {
        // A sample behind the expected one (out of order, or a repeat) is counted, but no gap: no negative or
        // wrapped-around count.
        LatencyAggregator agg(0);
        agg.add(aggSample(5, 1'000));
        agg.add(aggSample(2, 2'000));
        const LatencyThreadStats t = agg.stats(INT64_MIN);
        QCOMPARE(t.seqGaps, uint64_t(5)); // 0 … 4 before the first one, nothing for the late one
        QCOMPARE(t.samples, uint64_t(2));
        QCOMPARE(agg.expectedSeq(), uint64_t(3)); // the expectation follows the newest sample
    }

    void timelineKeepsMinAndMaxPerMillisecond()
    {
        LatencyAggregator agg(0);
        agg.add(aggSample(0, 5'000, 200'000));    // wakes T0 + 0.205 ms
        agg.add(aggSample(1, 9'000, 700'000));    // T0 + 0.709 ms: same bucket
        agg.add(aggSample(2, 2'000, 1'500'000));  // T0 + 1.502 ms
        agg.add(aggSample(3, 40'000, 3'100'000)); // T0 + 3.140 ms
        const std::vector<SeriesPoint> all = agg.stats(INT64_MIN).series;
        QCOMPARE(all.size(), size_t(3)); // no point for the empty bucket at 2 ms
        QCOMPARE(all[0].tNs, kAggT0);
        QCOMPARE(all[0].minNs, int64_t(5'000));
        QCOMPARE(all[0].maxNs, int64_t(9'000));
        QCOMPARE(all[0].count, 2u);
        QCOMPARE(all[1].tNs, kAggT0 + kNsPerMs);
        QCOMPARE(all[1].count, 1u);
        QCOMPARE(all[2].tNs, kAggT0 + 3 * kNsPerMs);
        QCOMPARE(all[2].maxNs, int64_t(40'000));
        // The window: buckets that start at or after the given time.
        QCOMPARE(agg.stats(kAggT0 + kNsPerMs).series.size(), size_t(2));
        QCOMPARE(agg.stats(kAggT0 + kNsPerMs + 1).series.size(), size_t(1));
        QCOMPARE(agg.stats(kAggT0 + 4 * kNsPerMs).series.size(), size_t(0));
    }

    void timelineKeepsTheLastHundredAndTwentySeconds()
    {
        LatencyAggregator agg(0);
        const uint64_t n = LatencyAggregator::kSeriesCapacity + 1;
        for (uint64_t i = 0; i < n; ++i)
            agg.add(aggSample(i, 1'000, int64_t(i) * LatencyAggregator::kSeriesBucketNs));
        const std::vector<SeriesPoint> all = agg.stats(INT64_MIN).series;
        QCOMPARE(all.size(), LatencyAggregator::kSeriesCapacity);
        QCOMPARE(all.front().tNs, kAggT0 + LatencyAggregator::kSeriesBucketNs); // the first bucket was overwritten
        QCOMPARE(agg.stats(INT64_MIN).samples, n);                              // the statistics lose nothing
    }

    void bothStoragesGiveTheSameFigures()
    {
        // A live run allocates the timeline up front, a replay as samples come: the figures must not differ.
        LatencyAggregator live(20, DecimatedSeries::Storage::Upfront);
        LatencyAggregator replay(20, DecimatedSeries::Storage::OnDemand);
        for (uint64_t i = 0; i < 50; ++i) {
            const LatencySample s = aggSample(i * 2, int64_t(i % 7) * 3'000, int64_t(i) * 400'000, uint32_t(i % 3));
            live.add(s);
            replay.add(s);
        }
        const LatencyThreadStats a = live.stats(INT64_MIN), b = replay.stats(INT64_MIN);
        QCOMPARE(a.samples, b.samples);
        QCOMPARE(a.skipped, b.skipped);
        QCOMPARE(a.seqGaps, b.seqGaps);
        QCOMPARE(a.overflowSeqs, b.overflowSeqs);
        QCOMPARE(a.histogram.exactUsBins(), b.histogram.exactUsBins());
        QCOMPARE(a.histogram.max(), b.histogram.max());
        QCOMPARE(a.series.size(), b.series.size());
        for (size_t i = 0; i < a.series.size(); ++i) {
            QCOMPARE(a.series[i].tNs, b.series[i].tNs);
            QCOMPARE(a.series[i].minNs, b.series[i].minNs);
            QCOMPARE(a.series[i].maxNs, b.series[i].maxNs);
            QCOMPARE(a.series[i].count, b.series[i].count);
        }
        QCOMPARE(a.seqGaps, uint64_t(49)); // every other sequence number missing after 0
        QCOMPARE(a.skipped, uint64_t(49)); // 0+1+2 repeated: 16 × 3, then 0 and 1 for i = 48, 49
    }

    void resetClearsStatisticsButKeepsTimelineAndSequence()
    {
        LatencyAggregator agg(4);
        agg.add(aggSample(0, 1'000, 0, 1));
        agg.add(aggSample(3, 9'000, kNsPerMs)); // two missing, one overflow
        agg.resetStatistics();
        LatencyThreadStats t = agg.stats(INT64_MIN);
        QCOMPARE(t.samples, uint64_t(0));
        QCOMPARE(t.skipped, uint64_t(0));
        QCOMPARE(t.seqGaps, uint64_t(0));
        QCOMPARE(t.lastNs, int64_t(0));
        QCOMPARE(t.histogram.count(), uint64_t(0));
        QCOMPARE(t.histogram.max(), int64_t(0));
        QCOMPARE(t.histogram.exactUsBins(), std::vector<uint64_t>(4, 0)); // same size, emptied
        QCOMPARE(t.histogram.exactUsOverflow(), uint64_t(0));
        QVERIFY(t.overflowSeqs.empty());
        QCOMPARE(t.series.size(), size_t(2)); // the timeline stays
        QCOMPARE(agg.expectedSeq(), uint64_t(4));

        agg.add(aggSample(4, 2'000, 2 * kNsPerMs)); // continues the sequence: no gap
        agg.add(aggSample(6, 3'000, 3 * kNsPerMs)); // one missing, counted from the reset on
        t = agg.stats(INT64_MIN);
        QCOMPARE(t.samples, uint64_t(2));
        QCOMPARE(t.seqGaps, uint64_t(1));
        QCOMPARE(t.histogram.min(), int64_t(2'000));
        QCOMPARE(t.histogram.mean(), 2'500.0);
        QCOMPARE(t.histogram.exactUsBins(), (std::vector<uint64_t>{0, 0, 1, 1}));
        QCOMPARE(t.series.size(), size_t(4));
    }

    void clearStartsANewRun()
    {
        LatencyAggregator agg(4);
        agg.add(aggSample(0, 1'000));
        agg.add(aggSample(5, 9'000, kNsPerMs));
        agg.clear(3);
        LatencyThreadStats t = agg.stats(INT64_MIN);
        QCOMPARE(t.samples, uint64_t(0));
        QCOMPARE(t.seqGaps, uint64_t(0));
        QVERIFY(t.series.empty());
        QVERIFY(t.overflowSeqs.empty());
        QCOMPARE(t.histogram.exactUsBins(), std::vector<uint64_t>(3, 0)); // the new size
        QCOMPARE(agg.expectedSeq(), uint64_t(0));

        agg.add(aggSample(0, 3'500)); // sequence 0 again: no gap; 3 µs is past 3 bins now
        t = agg.stats(INT64_MIN);
        QCOMPARE(t.seqGaps, uint64_t(0));
        QCOMPARE(t.histogram.exactUsOverflow(), uint64_t(1));
        QCOMPARE(t.overflowSeqs, std::vector<uint64_t>{0});

        agg.clear(3); // the same size: emptied in place
        QCOMPARE(agg.stats(INT64_MIN).histogram.exactUsBins(), std::vector<uint64_t>(3, 0));
        QCOMPARE(agg.stats(INT64_MIN).histogram.exactUsOverflow(), uint64_t(0));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestLatencyAggregator)
#include "tst_latency_aggregator.moc"
