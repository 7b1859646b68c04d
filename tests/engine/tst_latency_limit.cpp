// ctest: parallel. Pure limit logic.
// The pass/fail limit of `rtscope latency --fail-above` (engine/export/latency_limit.*): the percentile is the
// summary's, the line names the worst CPU, and an unknown percentile (no samples, lost samples, a rank among the values
// beyond the histogram's range) fails with its reason instead of a number.
#include "engine/experiments/latency/latency_run.h"
#include "engine/export/latency_limit.h"
#include "engine/pipeline/histogram.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace rtscope;

namespace {

// One thread on @p cpu with @p values (ns) recorded.
LatencyThreadStats limitTestThread(int cpu, const std::vector<int64_t>& values)
{
    LatencyThreadStats t;
    t.cpu = cpu;
    for (int64_t v : values)
        t.histogram.record(v);
    t.samples = t.histogram.count();
    return t;
}

// 10 000 values of 10 µs and one of @p worstNs: p99.99 is 10 µs, the maximum @p worstNs.
std::vector<int64_t> limitTestValues(int64_t worstNs)
{
    std::vector<int64_t> v(10000, 10'000);
    v.push_back(worstNs);
    return v;
}

LatencyLimit limitOf(int64_t ns, double percentile = 100)
{
    return LatencyLimit{.limitNs = ns, .percentile = percentile};
}

} // namespace

class TestLatencyLimit : public QObject {
    Q_OBJECT
private slots:
    void percentileParsing()
    {
        QCOMPARE(parseLimitPercentile("max"), std::optional<double>(100.0));
        QCOMPARE(parseLimitPercentile("99.99"), std::optional<double>(99.99));
        QCOMPARE(parseLimitPercentile("p99.9"), std::optional<double>(99.9));
        QCOMPARE(parseLimitPercentile("100"), std::optional<double>(100.0));
        QVERIFY(!parseLimitPercentile(""));
        QVERIFY(!parseLimitPercentile("nan"));
        QVERIFY(!parseLimitPercentile("inf"));
        QVERIFY(!parseLimitPercentile("-5"));
        QVERIFY(!parseLimitPercentile("1e2"));
        QVERIFY(!parseLimitPercentile("99.9.9"));
        QCOMPARE(limitPercentileName(100), std::string("max"));
        QCOMPARE(limitPercentileName(99.99), std::string("p99.99"));
        QCOMPARE(limitPercentileName(50), std::string("p50"));
    }

    void validateNamesTheFlagAndRange()
    {
        QVERIFY(limitOf(100'000).validate().empty());
        QVERIFY(limitOf(LatencyLimit::kMaxLimitNs, 0.001).validate().empty());
        const auto zero = limitOf(0).validate();
        QCOMPARE(zero.size(), size_t(1));
        QVERIFY2(zero[0].starts_with("fail-above must be more than 0 and at most 10.000 s (got"), zero[0].c_str());
        QCOMPARE(limitOf(LatencyLimit::kMaxLimitNs + 1).validate().size(), size_t(1));
        for (double p : {0.0, -1.0, 100.5}) {
            const auto problems = limitOf(1000, p).validate();
            QCOMPARE(problems.size(), size_t(1));
            QVERIFY2(problems[0].starts_with("fail-percentile must be more than 0 and at most 100, or max"),
                     problems[0].c_str());
        }
    }

    void microsecondsKeepEveryNanosecond()
    {
        QCOMPARE(limitMicroseconds(142'000), std::string("142"));
        QCOMPARE(limitMicroseconds(100'250), std::string("100.25"));
        QCOMPARE(limitMicroseconds(100'001), std::string("100.001"));
        QCOMPARE(limitMicroseconds(0), std::string("0"));
        QCOMPARE(limitMicroseconds(850), std::string("0.85"));
    }

    void passNamesTheHighestValue()
    {
        LatencySnapshot s;
        s.threads = {limitTestThread(0, limitTestValues(40'000)), limitTestThread(1, limitTestValues(57'000))};
        const LatencyLimitVerdict v = evaluateLatencyLimit(s, limitOf(100'000));
        QVERIFY(v.pass);
        QCOMPARE(v.line, std::string("rtscope: PASS: max over cpus max 57 us <= 100 us"));
        QCOMPARE(v.cpus.size(), size_t(2));
        QCOMPARE(*v.cpus[1].valueNs, int64_t(57'000)); // the maximum is exact
        QVERIFY(!v.cpus[0].broken && !v.cpus[1].broken);
        // The limit itself passes: "above" is strictly above.
        QVERIFY(evaluateLatencyLimit(s, limitOf(57'000)).pass);
    }

    void failNamesTheWorstCpu()
    {
        LatencySnapshot s;
        s.threads = {limitTestThread(0, limitTestValues(120'000)), limitTestThread(1, limitTestValues(142'000)),
                     limitTestThread(2, limitTestValues(50'000))};
        const LatencyLimitVerdict v = evaluateLatencyLimit(s, limitOf(100'000));
        QVERIFY(!v.pass);
        QCOMPARE(v.line, std::string("rtscope: FAIL: cpu 1 max 142 us > 100 us"));
        QVERIFY(v.cpus[0].broken && v.cpus[1].broken && !v.cpus[2].broken);
    }

    void percentileIsTheSummarys()
    {
        LatencySnapshot s;
        s.threads = {limitTestThread(3, limitTestValues(5'000'000))};
        const LatencyLimitVerdict v = evaluateLatencyLimit(s, limitOf(100'000, 99.99));
        QVERIFY2(v.pass, v.line.c_str());
        QCOMPARE(*v.cpus[0].valueNs, s.threads[0].histogram.percentile(99.99));
        QCOMPARE(v.line,
                 "rtscope: PASS: max over cpus p99.99 " + limitMicroseconds(*v.cpus[0].valueNs) + " us <= 100 us");
        // The same run fails on its maximum.
        const LatencyLimitVerdict m = evaluateLatencyLimit(s, limitOf(100'000));
        QCOMPARE(m.line, std::string("rtscope: FAIL: cpu 3 max 5000 us > 100 us"));
    }

    void unknownPercentileFailsWithItsReason()
    {
        // No samples.
        LatencySnapshot empty;
        empty.threads = {limitTestThread(0, {})};
        const LatencyLimitVerdict e = evaluateLatencyLimit(empty, limitOf(100'000));
        QVERIFY(!e.pass);
        QCOMPARE(e.line, std::string("rtscope: FAIL: cpu 0 max unknown (cpu 0 has no samples); limit 100 us"));
        QVERIFY(!e.cpus[0].valueNs);

        // Samples lost between the measuring thread and the histogram: their latencies are not known.
        LatencySnapshot lost;
        lost.threads = {limitTestThread(1, limitTestValues(20'000))};
        lost.threads[0].drops = 3;
        const LatencyLimitVerdict l = evaluateLatencyLimit(lost, limitOf(100'000, 99.99));
        QVERIFY(!l.pass);
        QVERIFY2(l.line.starts_with("rtscope: FAIL: cpu 1 p99.99 unknown (cpu 1 lost 3 samples in its ring"),
                 l.line.c_str());

        // p50 among the values beyond the histogram's range: unknown; the maximum stays exact and known.
        LatencySnapshot over;
        over.threads = {limitTestThread(2, {1000, Histogram::kMaxTrackableNs + 5, Histogram::kMaxTrackableNs + 7})};
        const LatencyLimitVerdict o = evaluateLatencyLimit(over, limitOf(100'000, 50));
        QVERIFY(!o.pass);
        QVERIFY2(o.line.find("p50 unknown (cpu 2 has 2 samples above the histogram's range") != std::string::npos,
                 o.line.c_str());
        const LatencyLimitVerdict om = evaluateLatencyLimit(over, limitOf(100'000));
        QCOMPARE(*om.cpus[0].valueNs, Histogram::kMaxTrackableNs + 7);

        // No CPU at all.
        const LatencyLimitVerdict none = evaluateLatencyLimit(LatencySnapshot{}, limitOf(100'000));
        QVERIFY(!none.pass);
        QVERIFY(none.line.starts_with("rtscope: FAIL: no CPU was measured"));
    }

    void knownBreachComesBeforeAnUnknown()
    {
        LatencySnapshot s;
        s.threads = {limitTestThread(0, {}), limitTestThread(1, limitTestValues(300'000))};
        const LatencyLimitVerdict v = evaluateLatencyLimit(s, limitOf(100'000));
        QCOMPARE(v.line, std::string("rtscope: FAIL: cpu 1 max 300 us > 100 us"));
        // Under the limit but with a CPU unknown: still a fail, naming the unknown one.
        const LatencyLimitVerdict u = evaluateLatencyLimit(s, limitOf(1'000'000));
        QVERIFY(!u.pass);
        QVERIFY(u.line.starts_with("rtscope: FAIL: cpu 0 max unknown"));
    }

    void jsonObject()
    {
        LatencySnapshot s;
        s.threads = {limitTestThread(0, {}), limitTestThread(1, limitTestValues(142'000))};
        const nlohmann::json j = latencyLimitJson(evaluateLatencyLimit(s, limitOf(100'000, 99.99)));
        QCOMPARE(j["limit_ns"].get<int64_t>(), int64_t(100'000));
        QCOMPARE(j["percentile"].get<double>(), 99.99);
        QCOMPARE(j["percentile_name"].get<std::string>(), std::string("p99.99"));
        QCOMPARE(j["verdict"].get<std::string>(), std::string("fail"));
        QVERIFY(j["line"].get<std::string>().starts_with("rtscope: FAIL: "));
        QCOMPARE(j["cpus"].size(), size_t(2));
        QVERIFY(j["cpus"][0]["value_ns"].is_null());
        QVERIFY(!j["cpus"][0]["unknown_reason"].get<std::string>().empty());
        QCOMPARE(j["cpus"][1]["cpu"].get<int>(), 1);
        QCOMPARE(j["cpus"][1]["value_ns"].get<int64_t>(), s.threads[1].histogram.percentile(99.99));
        QCOMPARE(j["cpus"][1]["over_limit"].get<bool>(), false);
        QCOMPARE(j["cpus"][1]["samples"].get<uint64_t>(), uint64_t(10001));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestLatencyLimit)
#include "tst_latency_limit.moc"
