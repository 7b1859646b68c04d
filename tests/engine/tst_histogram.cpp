// ctest: parallel. Pure data structure.
#include "engine/pipeline/histogram.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using rtscope::Histogram;

namespace {

enum class Distribution { TinyUniform, Uniform100us, Normal50us, Exponential, LogNormal, Pareto, Bimodal, Constant };

// Fixed seeds: a failure must reproduce. Every generator stays within [0, kMaxTrackableNs].
std::vector<int64_t> sampleValues(Distribution d, size_t n, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<int64_t> out;
    out.reserve(n);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::normal_distribution<double> normal(50000.0, 8000.0);
    std::exponential_distribution<double> expo(1.0 / 20000.0);
    std::lognormal_distribution<double> lognormal(std::log(30000.0), 1.2);
    const double limit = double(Histogram::kMaxTrackableNs);
    for (size_t i = 0; i < n; ++i) {
        double v = 0;
        switch (d) {
        case Distribution::TinyUniform:
            v = std::floor(unit(rng) * 20.0);
            break;
        case Distribution::Uniform100us:
            v = unit(rng) * 100000.0;
            break;
        case Distribution::Normal50us:
            v = normal(rng);
            break;
        case Distribution::Exponential:
            v = expo(rng);
            break;
        case Distribution::LogNormal:
            v = lognormal(rng);
            break;
        case Distribution::Pareto:
            // alpha 1.1 from a 2 µs floor: a tail that reaches seconds, like a desktop kernel under load.
            v = 2000.0 / std::pow(1.0 - unit(rng), 1.0 / 1.1);
            break;
        case Distribution::Bimodal:
            v = unit(rng) < 0.95 ? 3000.0 + unit(rng) * 2000.0 : 5e6 + unit(rng) * 3e9;
            break;
        case Distribution::Constant:
            v = 12345.0;
            break;
        }
        out.push_back(int64_t(std::clamp(v, 0.0, limit)));
    }
    return out;
}

std::vector<std::pair<int64_t, uint64_t>> buckets(const Histogram& h)
{
    std::vector<std::pair<int64_t, uint64_t>> out;
    h.forEachBucket([&](int64_t low, int64_t, uint64_t n) { out.emplace_back(low, n); });
    return out;
}

} // namespace

class TestHistogram : public QObject {
    Q_OBJECT

private slots:
    void empty();
    void bucketLayout_data();
    void bucketLayout();
    void bucketIndexIsMonotonic();
    void percentilesMatchSortedReference_data();
    void percentilesMatchSortedReference();
    void smallCountsPercentiles();
    void mergeEqualsRecordingBoth();
    void mergeIntoEmptyAndShorterExactRange();
    void reset();
    void overflowCounting();
    void exactUsBinsMatchDirectCount();
    void negativeValues();
    void recordNWeights();
};

void TestHistogram::empty()
{
    Histogram h(10);
    QCOMPARE(h.count(), uint64_t(0));
    QCOMPARE(h.min(), int64_t(0));
    QCOMPARE(h.max(), int64_t(0));
    QCOMPARE(h.mean(), 0.0);
    QCOMPARE(h.percentile(50), int64_t(0));
    QCOMPARE(h.percentile(100), int64_t(0));
    QCOMPARE(h.overflowCount(), uint64_t(0));
    QCOMPARE(h.exactUsBinCount(), size_t(10));
    QVERIFY(buckets(h).empty());
    h.recordN(5, 0);
    QCOMPARE(h.count(), uint64_t(0));
}

void TestHistogram::bucketLayout_data()
{
    QTest::addColumn<qint64>("value");
    const qint64 top = Histogram::kMaxTrackableNs;
    const qint64 values[] = {0,       1,  255, 256, 511, 512, 513, 1023, 1024, 999999, 1 << 20, (top >> 1) + 12345,
                             top - 1, top};
    for (qint64 v : values)
        QTest::addRow("%lld", static_cast<long long>(v)) << v;
}

void TestHistogram::bucketLayout()
{
    QFETCH(qint64, value);
    const size_t i = Histogram::bucketIndex(value);
    QVERIFY(i < Histogram(0).bucketCount());
    const int64_t low = Histogram::bucketLow(i);
    const int64_t high = Histogram::bucketHigh(i);
    QVERIFY2(low <= value && value <= high,
             qPrintable(QStringLiteral("%1 not in [%2, %3]").arg(value).arg(low).arg(high)));
    // The promised precision: a bucket is never wider than 2^-kSubBucketBits of its values.
    QVERIFY(double(high - low + 1) <= std::max(1.0, double(low) / double(1 << Histogram::kSubBucketBits)));
    if (value < 512)
        QCOMPARE(high, low);
}

void TestHistogram::bucketIndexIsMonotonic()
{
    // Walk the boundaries of every bucket: indices must be contiguous and the ranges must tile [0, 2^35].
    const size_t last = Histogram::bucketIndex(Histogram::kMaxTrackableNs);
    QCOMPARE(last, Histogram().bucketCount() - 1); // no bucket is allocated that only overflows could fill
    int64_t expectedLow = 0;
    for (size_t i = 0; i <= last; ++i) {
        QCOMPARE(Histogram::bucketLow(i), expectedLow);
        QCOMPARE(Histogram::bucketIndex(Histogram::bucketLow(i)), i);
        QCOMPARE(Histogram::bucketIndex(Histogram::bucketHigh(i)), i);
        expectedLow = Histogram::bucketHigh(i) + 1;
    }
    QCOMPARE(expectedLow, Histogram::kMaxTrackableNs + 1);
}

void TestHistogram::percentilesMatchSortedReference_data()
{
    QTest::addColumn<int>("distribution");
    QTest::addColumn<quint64>("seed");
    QTest::newRow("tiny uniform 0-20 ns") << int(Distribution::TinyUniform) << quint64(1);
    QTest::newRow("uniform 0-100 us") << int(Distribution::Uniform100us) << quint64(2);
    QTest::newRow("normal 50 us") << int(Distribution::Normal50us) << quint64(3);
    QTest::newRow("exponential 20 us") << int(Distribution::Exponential) << quint64(4);
    QTest::newRow("lognormal") << int(Distribution::LogNormal) << quint64(5);
    QTest::newRow("pareto tail to seconds") << int(Distribution::Pareto) << quint64(6);
    QTest::newRow("bimodal us + seconds") << int(Distribution::Bimodal) << quint64(7);
    QTest::newRow("constant") << int(Distribution::Constant) << quint64(8);
}

void TestHistogram::percentilesMatchSortedReference()
{
    QFETCH(int, distribution);
    QFETCH(quint64, seed);
    constexpr size_t kN = 200000; // every percentile below is an integer rank of it
    std::vector<int64_t> values = sampleValues(Distribution(distribution), kN, seed);

    Histogram h;
    long double sum = 0;
    for (int64_t v : values) {
        h.record(v);
        sum += v;
    }
    std::sort(values.begin(), values.end());

    QCOMPARE(h.count(), uint64_t(kN));
    QCOMPARE(h.min(), values.front());
    QCOMPARE(h.max(), values.back());
    QVERIFY(h.sum() == sum);
    QCOMPARE(h.overflowCount(), uint64_t(0));

    // Nearest rank: percentile p is the ceil(p/100·N)-th smallest value.
    const struct {
        double p;
        size_t rank;
    } cases[] = {{0, 1},
                 {50, kN / 2},
                 {90, kN * 9 / 10},
                 {99, kN * 99 / 100},
                 {99.9, kN * 999 / 1000},
                 {99.99, kN * 9999 / 10000},
                 {100, kN}};
    for (const auto& c : cases) {
        const int64_t expected = values[c.rank - 1];
        const int64_t got = h.percentile(c.p);
        const double tolerance = std::max(1.0, 0.01 * double(expected));
        QVERIFY2(std::abs(double(got - expected)) <= tolerance,
                 qPrintable(QStringLiteral("p%1: got %2, sorted reference %3").arg(c.p).arg(got).arg(expected)));
    }
    QCOMPARE(h.percentile(0), values.front());
    QCOMPARE(h.percentile(100), values.back());
}

void TestHistogram::smallCountsPercentiles()
{
    Histogram h;
    for (int64_t v : {100, 200, 300, 400})
        h.record(v);
    QCOMPARE(h.percentile(25), int64_t(100));
    QCOMPARE(h.percentile(25.0001), int64_t(200));
    QCOMPARE(h.percentile(50), int64_t(200));
    QCOMPARE(h.percentile(75), int64_t(300));
    QCOMPARE(h.percentile(99), int64_t(400));
    QCOMPARE(h.percentile(-5), int64_t(100));
    QCOMPARE(h.percentile(150), int64_t(400));
    QCOMPARE(h.percentile(std::nan("")), int64_t(100));
    QCOMPARE(h.mean(), 250.0);
}

void TestHistogram::mergeEqualsRecordingBoth()
{
    const auto a = sampleValues(Distribution::LogNormal, 50000, 11);
    const auto b = sampleValues(Distribution::Pareto, 30000, 12);
    Histogram ha(200), hb(200), both(200);
    for (int64_t v : a) {
        ha.record(v);
        both.record(v);
    }
    for (int64_t v : b) {
        hb.record(v);
        both.record(v);
    }
    hb.record(Histogram::kMaxTrackableNs + 1); // overflows merge too
    both.record(Histogram::kMaxTrackableNs + 1);
    ha.merge(hb);

    QCOMPARE(ha.count(), both.count());
    QCOMPARE(ha.min(), both.min());
    QCOMPARE(ha.max(), both.max());
    QVERIFY(ha.sum() == both.sum());
    QCOMPARE(ha.overflowCount(), both.overflowCount());
    QCOMPARE(buckets(ha), buckets(both));
    QCOMPARE(ha.exactUsBins(), both.exactUsBins());
    QCOMPARE(ha.exactUsOverflow(), both.exactUsOverflow());
    for (double p : {50.0, 90.0, 99.0, 99.9, 99.99})
        QCOMPARE(ha.percentile(p), both.percentile(p));

    Histogram empty(200);
    ha.merge(empty);
    QCOMPARE(ha.count(), both.count());
}

void TestHistogram::mergeIntoEmptyAndShorterExactRange()
{
    Histogram small(5), large(10);
    large.record(-1000); // min must carry over into an empty histogram
    large.record(2500);
    large.record(7500);  // bin 7: beyond small's range
    large.record(20000); // large's own overflow
    small.merge(large);
    QCOMPARE(small.count(), uint64_t(4));
    QCOMPARE(small.min(), int64_t(-1000));
    QCOMPARE(small.max(), int64_t(20000));
    QCOMPARE(small.exactUsBins(), (std::vector<uint64_t>{1, 0, 1, 0, 0}));
    QCOMPARE(small.exactUsOverflow(), uint64_t(2));
}

void TestHistogram::reset()
{
    Histogram h(50);
    for (int64_t v : sampleValues(Distribution::Exponential, 1000, 21))
        h.record(v);
    h.record(Histogram::kMaxTrackableNs * 2);
    h.reset();
    QCOMPARE(h.count(), uint64_t(0));
    QCOMPARE(h.overflowCount(), uint64_t(0));
    QCOMPARE(h.min(), int64_t(0));
    QCOMPARE(h.max(), int64_t(0));
    QVERIFY(h.sum() == 0);
    QCOMPARE(h.exactUsBinCount(), size_t(50));
    QCOMPARE(h.exactUsOverflow(), uint64_t(0));
    QVERIFY(std::all_of(h.exactUsBins().begin(), h.exactUsBins().end(), [](uint64_t v) { return v == 0; }));
    QVERIFY(buckets(h).empty());
    h.record(77);
    QCOMPARE(h.min(), int64_t(77));
    QCOMPARE(h.max(), int64_t(77));
}

void TestHistogram::overflowCounting()
{
    Histogram h;
    h.record(Histogram::kMaxTrackableNs); // the limit itself is trackable
    QCOMPARE(h.overflowCount(), uint64_t(0));
    h.record(Histogram::kMaxTrackableNs + 1);
    h.recordN(std::numeric_limits<int64_t>::max(), 3);
    QCOMPARE(h.overflowCount(), uint64_t(4));
    QCOMPARE(h.count(), uint64_t(5));
    QCOMPARE(h.max(), std::numeric_limits<int64_t>::max());
    QVERIFY(h.sum() == (long double)Histogram::kMaxTrackableNs + (long double)(Histogram::kMaxTrackableNs + 1) +
                           3.0L * (long double)std::numeric_limits<int64_t>::max());
    uint64_t inBuckets = 0;
    h.forEachBucket([&](int64_t, int64_t, uint64_t n) { inBuckets += n; });
    QCOMPARE(inBuckets, uint64_t(1));
    // A rank among the overflows can only be answered with the exact maximum.
    QCOMPARE(h.percentile(50), std::numeric_limits<int64_t>::max());
    QVERIFY(std::abs(double(h.percentile(10) - Histogram::kMaxTrackableNs)) <=
            0.01 * double(Histogram::kMaxTrackableNs));
}

void TestHistogram::exactUsBinsMatchDirectCount()
{
    constexpr size_t kBins = 300;
    Histogram h(kBins);
    std::vector<uint64_t> direct(kBins, 0);
    uint64_t directOverflow = 0;
    auto values = sampleValues(Distribution::Exponential, 100000, 31);
    // The bin edges themselves are where an off-by-one would hide.
    for (int64_t edge : {0, 999, 1000, 1001, 299999, 300000, 300001})
        values.push_back(edge);
    for (int64_t v : values) {
        h.record(v);
        const auto bin = uint64_t(v / 1000);
        if (bin < kBins)
            ++direct[bin];
        else
            ++directOverflow;
    }
    QCOMPARE(h.exactUsBins(), direct);
    QCOMPARE(h.exactUsOverflow(), directOverflow);
    QVERIFY(directOverflow > 0);
}

void TestHistogram::negativeValues()
{
    Histogram h(4);
    h.record(-500);
    h.record(-20);
    h.record(3000);
    QCOMPARE(h.count(), uint64_t(3));
    QCOMPARE(h.min(), int64_t(-500));
    QCOMPARE(h.max(), int64_t(3000));
    QVERIFY(h.sum() == 2480);
    QCOMPARE(h.percentile(0), int64_t(-500));
    // Clamped to 0 in the buckets: the low percentiles read 0, never below min or above max.
    QCOMPARE(h.percentile(50), int64_t(0));
    const auto b = buckets(h);
    QCOMPARE(b.front(), std::make_pair(int64_t(0), uint64_t(2)));
    QCOMPARE(h.exactUsBins(), (std::vector<uint64_t>{2, 0, 0, 1}));

    Histogram onlyNegative;
    onlyNegative.record(-7);
    QCOMPARE(onlyNegative.percentile(50), int64_t(-7));
    QCOMPARE(Histogram::bucketIndex(std::numeric_limits<int64_t>::min()), size_t(0));
}

void TestHistogram::recordNWeights()
{
    Histogram weighted(10), repeated(10);
    weighted.recordN(4200, 1000);
    weighted.recordN(9100, 5);
    for (int i = 0; i < 1000; ++i)
        repeated.record(4200);
    for (int i = 0; i < 5; ++i)
        repeated.record(9100);
    QCOMPARE(buckets(weighted), buckets(repeated));
    QCOMPARE(weighted.exactUsBins(), repeated.exactUsBins());
    QVERIFY(weighted.sum() == repeated.sum());
    QCOMPARE(weighted.percentile(99.9), repeated.percentile(99.9));
}

RTSCOPE_TEST_APPLESS_MAIN(TestHistogram)
#include "tst_histogram.moc"
