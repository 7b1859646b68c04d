// ctest: parallel. Pure data structure.
// DecimatedSeries keeps min and max per bucket, so one spike survives among thousands of small values.
#include "engine/pipeline/decimated_series.h"

#include "tests/common/test_main.h"

#include <QtTest>

using namespace rtscope;

class TestDecimatedSeries : public QObject {
    Q_OBJECT
private slots:
    void spikeSurvivesDecimation()
    {
        DecimatedSeries s(1'000'000, 100);
        for (int i = 0; i < 10'000; ++i)
            s.add(int64_t(i) * 50'000, i == 9321 ? 3'000'000 : 5'000); // 20 kHz for 0.5 s, one 3 ms spike
        const auto pts = s.points();
        QCOMPARE(pts.size(), size_t(100)); // capacity: the oldest 400 buckets were overwritten
        int64_t maxSeen = 0;
        uint64_t n = 0;
        for (const auto& p : pts) {
            maxSeen = std::max(maxSeen, p.maxNs);
            QCOMPARE(p.minNs, p.maxNs == 3'000'000 ? 5'000 : p.minNs);
            n += p.count;
        }
        QCOMPARE(maxSeen, int64_t(3'000'000));
        QCOMPARE(n, uint64_t(100 * 20)); // 20 samples per 1 ms bucket
    }

    void orderAndSince()
    {
        DecimatedSeries s(10, 8);
        for (int t = 0; t < 50; t += 5)
            s.add(t, t);
        const auto pts = s.points();
        QCOMPARE(pts.size(), size_t(5));
        for (size_t i = 1; i < pts.size(); ++i)
            QVERIFY(pts[i].tNs > pts[i - 1].tNs);
        QCOMPARE(s.points(30).size(), size_t(2));
        s.clear();
        QCOMPARE(s.points().size(), size_t(0));
    }

    void lateSampleFoldsIntoOpenBucket()
    {
        DecimatedSeries s(10, 8);
        s.add(25, 1);
        s.add(12, 99); // older than the open bucket
        const auto pts = s.points();
        QCOMPARE(pts.size(), size_t(1));
        QCOMPARE(pts[0].maxNs, int64_t(99));
        QCOMPARE(pts[0].count, 2u);
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestDecimatedSeries)
#include "tst_decimated_series.moc"
