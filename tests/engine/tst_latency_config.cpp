// ctest: parallel. Pure validation.
// LatencyConfig::validate(): every field's bounds, one row per boundary; messages name the field and range.
#include "engine/experiments/latency/latency_config.h"
#include "engine/rt/cpu_topology.h"

#include "tests/common/data_rows.h"
#include "tests/common/field_edit.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>
#include <functional>
#include <nlohmann/json.hpp>

using namespace rtscope;

Q_DECLARE_METATYPE(std::function<void(rtscope::LatencyConfig&)>)

namespace {
using Mutator = std::function<void(LatencyConfig&)>;

Mutator scheduled(Policy policy, int priority)
{
    return [policy, priority](LatencyConfig& c) {
        c.policy = policy;
        c.priority = priority;
    };
}
} // namespace

class TestLatencyConfig : public QObject {
    Q_OBJECT
private slots:
    void defaultsAreValid() { QVERIFY(LatencyConfig{}.validate(rtscope::test::twoCpuTopology()).empty()); }

    void bounds_data()
    {
        using L = LatencyConfig;
        test::addRows<Mutator, QString>(
            {"mutate", "expectedField"}, // expectedField empty: must be valid
            {{"fifo 1", scheduled(Policy::Fifo, 1), ""},
             {"fifo 99", scheduled(Policy::Fifo, 99), ""},
             {"fifo 0", scheduled(Policy::Fifo, 0), "priority must be between 1 and 99"},
             {"rr 100", scheduled(Policy::RR, 100), "priority must be between 1 and 99"},
             {"other 5", test::setField(&L::priority, 5), "priority must be 0 for other"},
             {"nice -20", test::setField(&L::nice, -20), ""},
             {"nice 19", test::setField(&L::nice, 19), ""},
             {"nice 20", test::setField(&L::nice, 20), "nice must be between -20 and 19"},
             {"nice -21", test::setField(&L::nice, -21), "nice must be between -20 and 19"},
             {"period 10us", test::setField(&L::periodNs, 10'000), ""},
             {"period 10s", test::setField(&L::periodNs, 10'000'000'000), ""},
             {"period 9999ns", test::setField(&L::periodNs, 9'999), "period must be between 10"},
             {"period 0", test::setField(&L::periodNs, 0), "period must be between"},
             {"period 10s+1", test::setField(&L::periodNs, 10'000'000'001), "period must be between"},
             {"cpu 1", test::setField(&L::cpu, 1), ""},
             {"cpu 2", test::setField(&L::cpu, 2), "cpu must be one of the online CPUs this process may use (0-1)"},
             {"cpu -7", test::setField(&L::cpu, -7), "cpu must be one of"},
             {"hogs 256", test::setField(&L::hogs, 256), ""},
             {"hogs 257", test::setField(&L::hogs, 257), "hogs must be between 0 and 256 per CPU (got 257)"},
             {"hogs -1", test::setField(&L::hogs, -1), "hogs must be between 0 and 256 per CPU (got -1)"},
             {"hog fifo", test::setField(&L::hogPolicy, Policy::Fifo), "hog-policy must be other, batch or idle"},
             {"hog idle", test::setField(&L::hogPolicy, Policy::Idle), ""},
             {"hog nice 20", test::setField(&L::hogNice, 20), "hog-nice must be between -20 and 19"},
             {"hog cpu 9", test::setField(&L::hogCpu, 9), "hog-cpu must be one of"},
             {"duration 1ms", test::setField(&L::durationNs, 1'000'000), ""},
             {"duration 999us", test::setField(&L::durationNs, 999'000), "duration must be between 1"},
             {"duration negative", test::setField(&L::durationNs, -5), "duration must be between 1"},
             {"duration 31 days", test::setField(&L::durationNs, 31LL * 86400 * 1'000'000'000),
              "duration must be between"},
             {"samples and duration", Mutator([](LatencyConfig& c) {
                  c.durationNs = 1'000'000'000;
                  c.maxSamples = 10;
              }),
              "duration and samples are exclusive"},
             {"samples too many", test::setField(&L::maxSamples, LatencyConfig::kMaxSamples + 1),
              "samples must be between 1"},
             {"histogram 1000000", test::setField(&L::histogramUs, 1'000'000), ""},
             {"histogram 1000001", test::setField(&L::histogramUs, 1'000'001),
              "histogram must be between 0 and 1000000 us"},
             {"histogram -1", test::setField(&L::histogramUs, -1), "histogram must be between 0"},
             {"trace", test::setField(&L::trace, true), ""},
             {"trace threshold 0", test::setField(&L::traceThresholdNs, 0), ""},
             {"trace threshold 10s", test::setField(&L::traceThresholdNs, 10'000'000'000), ""},
             {"trace threshold 10s+1", test::setField(&L::traceThresholdNs, 10'000'000'001),
              "trace-threshold must be between 0 (none) and 10"},
             {"trace threshold -1", test::setField(&L::traceThresholdNs, -1),
              "trace-threshold must be between 0 (none) and 10"},
             {"trace top 1", test::setField(&L::traceTop, 1), ""},
             {"trace top 100", test::setField(&L::traceTop, 100), ""},
             {"trace top 0", test::setField(&L::traceTop, 0), "trace-top must be between 1 and 100 (got 0)"},
             {"trace top 101", test::setField(&L::traceTop, 101), "trace-top must be between 1 and 100 (got 101)"}});
    }
    void bounds()
    {
        QFETCH(Mutator, mutate);
        QFETCH(QString, expectedField);
        LatencyConfig c;
        mutate(c);
        rtscope::test::checkOneProblemOrNone(c.validate(rtscope::test::twoCpuTopology()), expectedField);
    }

    void everyProblemIsReported()
    {
        LatencyConfig c;
        c.periodNs = 1;
        c.hogs = 999;
        c.nice = 50;
        c.policy = Policy::Fifo;
        c.priority = 0;
        QCOMPARE(c.validate(rtscope::test::twoCpuTopology()).size(), size_t(4));
    }

    void defaultCpuIsHighestUsable()
    {
        LatencyConfig c;
        QCOMPARE(c.resolvedCpu(rtscope::test::twoCpuTopology()), 1);
        QCOMPARE(c.resolvedHogCpu(rtscope::test::twoCpuTopology()), 1);
        c.hogCpu = 0;
        QCOMPARE(c.resolvedHogCpu(rtscope::test::twoCpuTopology()), 0);
    }

    void jsonRoundTrip()
    {
        LatencyConfig c;
        c.policy = Policy::Fifo;
        c.priority = 80;
        c.periodNs = 500'000;
        c.hogs = 16;
        c.waiter = WaiterKind::Timerfd;
        c.dmaLatency = true;
        std::vector<std::string> errors;
        const LatencyConfig back = latencyConfigFromJson(toJson(c), errors);
        QVERIFY(errors.empty());
        QVERIFY(back == c);
    }

    // The anatomy's fields: written (all three) only when one is not its default, so a config without tracing
    // writes exactly the keys it wrote before they existed; read back either way.
    void jsonTraceFields()
    {
        const nlohmann::json plain = toJson(LatencyConfig{});
        QVERIFY(!plain.contains("trace"));
        QVERIFY(!plain.contains("trace_threshold_ns"));
        QVERIFY(!plain.contains("trace_top"));
        QCOMPARE(plain.size(), size_t(15));
        using L = LatencyConfig;
        for (const Mutator& mutate : {test::setField(&L::trace, true), test::setField(&L::traceThresholdNs, 100'000),
                                      test::setField(&L::traceTop, 25)}) {
            LatencyConfig c;
            mutate(c);
            const nlohmann::json j = toJson(c);
            QCOMPARE(j.at("trace").get<bool>(), c.trace);
            QCOMPARE(j.at("trace_threshold_ns").get<int64_t>(), c.traceThresholdNs);
            QCOMPARE(j.at("trace_top").get<int>(), c.traceTop);
            std::vector<std::string> errors;
            QVERIFY(latencyConfigFromJson(j, errors) == c);
            QVERIFY(errors.empty());
        }
        std::vector<std::string> errors;
        const LatencyConfig read = latencyConfigFromJson(
            nlohmann::json::parse(R"({"trace": true, "trace_threshold_ns": 250000, "trace_top": 3})"), errors);
        QVERIFY(errors.empty());
        QVERIFY(read.trace);
        QCOMPARE(read.traceThresholdNs, int64_t(250'000));
        QCOMPARE(read.traceTop, 3);
    }

    void jsonErrorsNameTheField_data()
    {
        test::addRows<QString, QString>(
            {"json", "expected"},
            {{"not object", "[1,2]", "latency config must be a JSON object"},
             {"unknown key", R"({"perido_ns": 5})", "unknown field 'perido_ns'"},
             {"string period", R"({"period_ns": "1ms"})", "period_ns must be an integer"},
             {"bad policy", R"({"policy": "fast"})", "policy must be one of"},
             {"bad waiter", R"({"waiter": 3})", "waiter must be one of"},
             {"huge hogs", R"({"hogs": 99999999999})", "hogs is out of range"},
             {"negative samples", R"({"samples": -1})", "samples must not be negative"},
             {"dma not bool", R"({"dma_latency": "yes"})", "dma_latency must be true or false"},
             {"trace not bool", R"({"trace": 1})", "trace must be true or false"},
             {"trace threshold string", R"({"trace_threshold_ns": "100us"})", "trace_threshold_ns must be an integer"},
             {"trace top float", R"({"trace_top": 2.5})", "trace_top must be an integer"}});
    }
    void jsonErrorsNameTheField()
    {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        std::vector<std::string> errors;
        latencyConfigFromJson(nlohmann::json::parse(json.toStdString()), errors);
        QVERIFY(!errors.empty());
        QVERIFY2(QString::fromStdString(errors.front()).startsWith(expected), errors.front().c_str());
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestLatencyConfig)
#include "tst_latency_config.moc"
