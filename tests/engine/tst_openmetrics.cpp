// ctest: parallel. Pure exposition formatting.
// The OpenMetrics exposition of `rtscope monitor` (engine/export/openmetrics.*): the bucket bounds, the rule for bins
// that straddle a bound (never a sample counted below a bound it exceeds), the text's families and their
// self-consistency, label escaping, and the per-scrape maximum.
#include "engine/export/openmetrics.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace rtscope;

namespace {

// Every "name{labels} value" line of @p text whose name is @p name, as labels → value.
std::map<std::string, std::string> openMetricsTestSamples(const std::string& text, const std::string& name)
{
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(name + "{", 0) != 0)
            continue;
        const size_t close = line.rfind("} ");
        out[line.substr(name.size() + 1, close - name.size() - 1)] = line.substr(close + 2);
    }
    return out;
}

} // namespace

class TestOpenMetrics : public QObject {
    Q_OBJECT

private slots:
    void boundsAreLogSpacedFromOneMicrosecondToHundredMilliseconds()
    {
        const std::vector<int64_t>& b = openMetricsBucketBoundsNs();
        QCOMPARE(b.size(), size_t(51));
        QCOMPARE(b.front(), int64_t(1000));
        QCOMPARE(b.back(), int64_t(100'000'000));
        for (size_t i = 1; i < b.size(); ++i) {
            const double ratio = double(b[i]) / double(b[i - 1]);
            QVERIFY2(ratio > 1.2 && ratio < 1.32, qPrintable(QString("bound %1 / %2").arg(b[i]).arg(b[i - 1])));
        }
    }

    void straddlingBinsGoToTheNextBoundWhole()
    {
        Histogram h;
        h.record(999);                            // bin [998, 999]: at or below 1 µs
        h.record(1000);                           // bin [1000, 1001] straddles 1 µs: counted from 1.25 µs on
        h.record(4991);                           // bin [4976, 4991]: at or below 5 µs
        h.record(5000);                           // bin [4992, 5007] straddles 5 µs: from 6.3 µs on
        h.record(200'000'000);                    // above the last bound: +Inf only
        h.record(Histogram::kMaxTrackableNs + 1); // the histogram's overflow, in no bin: +Inf only
        const std::vector<int64_t>& b = openMetricsBucketBoundsNs();
        const std::vector<uint64_t> c = openMetricsCumulativeCounts(h);
        QCOMPARE(c.size(), b.size() + 1);
        auto at = [&](int64_t bound) {
            return c[size_t(std::find(b.begin(), b.end(), bound) - b.begin())];
        };
        QCOMPARE(at(1000), uint64_t(1));
        QCOMPARE(at(1250), uint64_t(2));
        QCOMPARE(at(5000), uint64_t(3));
        QCOMPARE(at(6300), uint64_t(4));
        QCOMPARE(at(100'000'000), uint64_t(4));
        QCOMPARE(c.back(), uint64_t(6));
        QCOMPARE(c.back(), h.count());
    }

    // Against a brute force over random latencies: each bucket holds exactly the samples whose bin lies at or below
    // its bound, so never one above the bound, and misses none more than a bin's width (1/256) below it.
    void countsNeverExceedTheTrueCountBelowABound()
    {
        std::mt19937_64 rng(18);
        std::lognormal_distribution<double> dist(std::log(20'000.0), 2.0);
        Histogram h;
        std::vector<int64_t> values;
        for (int i = 0; i < 20'000; ++i) {
            const auto v = int64_t(dist(rng));
            values.push_back(v);
            h.record(v);
        }
        const std::vector<int64_t>& b = openMetricsBucketBoundsNs();
        const std::vector<uint64_t> c = openMetricsCumulativeCounts(h);
        for (size_t i = 0; i < b.size(); ++i) {
            uint64_t atOrBelow = 0, wholeBinBelow = 0, wellBelow = 0;
            for (int64_t v : values) {
                atOrBelow += v <= b[i];
                wholeBinBelow += Histogram::bucketHigh(Histogram::bucketIndex(v)) <= b[i];
                wellBelow += v < b[i] - b[i] / 256 - 1;
            }
            QCOMPARE(c[i], wholeBinBelow);
            QVERIFY(c[i] <= atOrBelow);
            QVERIFY(c[i] >= wellBelow);
            if (i > 0)
                QVERIFY(c[i] >= c[i - 1]);
        }
        QCOMPARE(c.back(), uint64_t(values.size()));
    }

    void numbersAndEscapes()
    {
        QCOMPARE(openMetricsNumber(0.00125), std::string("0.00125"));
        QCOMPARE(openMetricsNumber(1e-06), std::string("1e-06"));
        QCOMPARE(openMetricsNumber(0.1), std::string("0.1"));
        QCOMPARE(openMetricsNumber(0.0001), std::string("0.0001"));
        QCOMPARE(openMetricsNumber(2.5e-05), std::string("2.5e-05"));
        QCOMPARE(openMetricsNumber(0.0063), std::string("0.0063"));
        QCOMPARE(openMetricsNumber(0), std::string("0"));
        QCOMPARE(openMetricsNumber(123456.5), std::string("123456.5"));
        QCOMPARE(openMetricsNumber(1234567.0), std::string("1.234567e+06"));
        QCOMPARE(openMetricsNumber(0.163033345), std::string("0.163033345"));
        QCOMPARE(openMetricsNumber(std::nan("")), std::string("NaN"));
        QCOMPARE(openMetricsNumber(INFINITY), std::string("+Inf"));
        QCOMPARE(openMetricsEscape("a\"b\\c\nd"), std::string("a\\\"b\\\\c\\nd"));
        QCOMPARE(openMetricsEscape("6.18.0-rt (full)"), std::string("6.18.0-rt (full)"));
    }

    void textIsSelfConsistentPerCpu()
    {
        Histogram h1, h3;
        for (int64_t v : {3'000, 12'000, 12'500, 80'000, 150'000'000})
            h1.record(v);
        h3.record(7'000);
        OpenMetricsInput in;
        in.info = {{"kernel", "6.18.0 \"test\"\\x\ny"}, {"preempt", "PREEMPT_RT"}};
        in.cpus = {{1, &h1, 5, 2, 0, int64_t(150'000'000), int64_t(80'000)},
                   {3, &h3, 1, 0, 4, int64_t(7'000), std::nullopt}};
        const std::string text = openMetricsText(in);

        QVERIFY(text.rfind("# TYPE rtscope_monitor info\n", 0) == 0);
        QVERIFY(text.size() > 6 && text.substr(text.size() - 6) == "# EOF\n");
        QVERIFY(text.find("# UNIT rtscope_wakeup_latency_seconds seconds\n") != std::string::npos);
        QVERIFY(text.find("# TYPE rtscope_samples counter\n") != std::string::npos);
        QVERIFY(text.find("no scrape resets it") != std::string::npos);
        QVERIFY(text.find("# TYPE rtscope_wakeup_latency_recent_max_seconds gauge\n") != std::string::npos);
        QVERIFY(text.find("rtscope_monitor_info{kernel=\"6.18.0 \\\"test\\\"\\\\x\\ny\",preempt=\"PREEMPT_RT\"} 1\n") !=
                std::string::npos);

        const auto buckets = openMetricsTestSamples(text, "rtscope_wakeup_latency_seconds_bucket");
        QCOMPARE(buckets.size(), 2 * (openMetricsBucketBoundsNs().size() + 1));
        QCOMPARE(buckets.at("cpu=\"1\",le=\"+Inf\""), std::string("5"));
        QCOMPARE(buckets.at("cpu=\"1\",le=\"0.0001\""), std::string("4"));
        QCOMPARE(buckets.at("cpu=\"1\",le=\"1e-06\""), std::string("0"));
        QCOMPARE(buckets.at("cpu=\"3\",le=\"+Inf\""), std::string("1"));
        const auto count = openMetricsTestSamples(text, "rtscope_wakeup_latency_seconds_count");
        QCOMPARE(count.at("cpu=\"1\""), std::string("5"));
        QCOMPARE(count.at("cpu=\"3\""), std::string("1"));
        const auto sum = openMetricsTestSamples(text, "rtscope_wakeup_latency_seconds_sum");
        QCOMPARE(std::stod(sum.at("cpu=\"1\"")), (3'000 + 12'000 + 12'500 + 80'000 + 150'000'000) / 1e9);
        const auto samples = openMetricsTestSamples(text, "rtscope_samples_total");
        QCOMPARE(samples.at("cpu=\"1\""), std::string("5"));
        QCOMPARE(openMetricsTestSamples(text, "rtscope_skipped_periods_total").at("cpu=\"1\""), std::string("2"));
        QCOMPARE(openMetricsTestSamples(text, "rtscope_dropped_samples_total").at("cpu=\"3\""), std::string("4"));
        const auto max = openMetricsTestSamples(text, "rtscope_wakeup_latency_max_seconds");
        QCOMPARE(max.at("cpu=\"1\""), std::string("0.15"));
        QCOMPARE(max.at("cpu=\"3\""), std::string("7e-06"));
        const auto recent = openMetricsTestSamples(text, "rtscope_wakeup_latency_recent_max_seconds");
        QCOMPARE(recent.at("cpu=\"1\""), std::string("8e-05"));
        QCOMPARE(recent.at("cpu=\"3\""), std::string("NaN")); // no sample in the window: unknown, not 0

        // The buckets of one CPU come in increasing le, cumulative, +Inf last.
        std::istringstream lines(text);
        std::string line;
        double lastLe = -1;
        uint64_t lastCount = 0;
        while (std::getline(lines, line)) {
            if (line.rfind("rtscope_wakeup_latency_seconds_bucket{cpu=\"1\"", 0) != 0)
                continue;
            const size_t le = line.find("le=\"") + 4;
            const std::string bound = line.substr(le, line.find('"', le) - le);
            const double leValue = bound == "+Inf" ? INFINITY : std::stod(bound);
            const uint64_t n = std::stoull(line.substr(line.rfind(' ') + 1));
            QVERIFY(leValue > lastLe);
            QVERIFY(n >= lastCount);
            lastLe = leValue;
            lastCount = n;
        }
        QVERIFY(std::isinf(lastLe));
    }

    void noCpusStillAValidExposition()
    {
        const std::string text = openMetricsText({});
        QVERIFY(text.find("rtscope_samples_total") == std::string::npos);
        QVERIFY(text.find("# TYPE rtscope_wakeup_latency_seconds histogram") != std::string::npos);
        QVERIFY(text.substr(text.size() - 6) == "# EOF\n");
    }

    // The maxima are per CPU; reading them changes nothing (two scrapers see the same figures); the recent one
    // forgets a second once it is kRecentMaxSeconds old, the one since the start never.
    void maximaArePerCpuAndNotResetByReading()
    {
        LatencyMaxima m;
        LatencyRunInfo info;
        info.cpus = {1, 3};
        m.onRunStart(info);
        QVERIFY(m.read(0).empty());
        const int64_t t0 = 1000 * kNsPerSec;
        // {seq, deadline, wake, latency, skipped, epoch}
        m.onSamples(0, std::vector<LatencySample>{{0, 0, t0, 5'000, 0, 0}, {1, 0, t0 + 1, 90'000, 0, 0}});
        m.onSamples(1, std::vector<LatencySample>{{0, 0, t0, 7'000, 0, 0}});
        m.onSamples(0, std::vector<LatencySample>{{2, 0, t0 + 30 * kNsPerSec, 4'000, 0, 0}});
        for (int i = 0; i < 2; ++i) { // a read is not a reset
            const auto now = m.read(t0 + 30 * kNsPerSec);
            QCOMPARE(now.size(), size_t(2));
            QCOMPARE(now.at(1).sinceStartNs, int64_t(90'000));
            QCOMPARE(now.at(1).recentNs.value_or(-1), int64_t(90'000));
            QCOMPARE(now.at(3).recentNs.value_or(-1), int64_t(7'000));
        }
        // 60 s after t0's second: the 90 µs has left the window, the 4 µs (30 s later) has not.
        const auto later = m.read(t0 + int64_t(kRecentMaxSeconds) * kNsPerSec);
        QCOMPARE(later.at(1).sinceStartNs, int64_t(90'000));
        QCOMPARE(later.at(1).recentNs.value_or(-1), int64_t(4'000));
        QVERIFY(!later.at(3).recentNs); // nothing on CPU 3 for a minute: unknown, not 0
        QCOMPARE(later.at(3).sinceStartNs, int64_t(7'000));
        // A slot reused by a later second starts again from that second's samples.
        m.onSamples(0, std::vector<LatencySample>{{3, 0, t0 + int64_t(kRecentMaxSeconds) * kNsPerSec, 1'000, 0, 0}});
        QCOMPARE(m.read(t0 + int64_t(kRecentMaxSeconds + 31) * kNsPerSec).at(1).recentNs.value_or(-1), int64_t(1'000));
        // A restart moves thread 0 to CPU 2.
        m.onRestart(0, {2});
        m.onSamples(0, std::vector<LatencySample>{{0, 0, t0, 6'000, 0, 0}});
        QCOMPARE(m.read(t0).at(2).sinceStartNs, int64_t(6'000));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestOpenMetrics)
#include "tst_openmetrics.moc"
