// LatencyConfig::validate(): every field's bounds, one row per boundary; messages name the field and range.
#include "engine/experiments/latency/latency_config.h"
#include "engine/rt/cpu_topology.h"

#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>
#include <functional>
#include <nlohmann/json.hpp>

using namespace rtscope;

Q_DECLARE_METATYPE(std::function<void(rtscope::LatencyConfig&)>)

namespace {
using Mutator = std::function<void(LatencyConfig&)>;
} // namespace

class TestLatencyConfig : public QObject {
    Q_OBJECT
private slots:
    void defaultsAreValid() { QVERIFY(LatencyConfig{}.validate(rtscope::test::twoCpuTopology()).empty()); }

    void bounds_data()
    {
        QTest::addColumn<Mutator>("mutate");
        QTest::addColumn<QString>("expectedField"); // empty: must be valid
        auto row = [](const char* name, Mutator m, const char* field) {
            QTest::newRow(name) << m << QString(field);
        };
        row(
            "fifo 1",
            [](LatencyConfig& c) {
                c.policy = Policy::Fifo;
                c.priority = 1;
            },
            "");
        row(
            "fifo 99",
            [](LatencyConfig& c) {
                c.policy = Policy::Fifo;
                c.priority = 99;
            },
            "");
        row(
            "fifo 0",
            [](LatencyConfig& c) {
                c.policy = Policy::Fifo;
                c.priority = 0;
            },
            "priority must be between 1 and 99");
        row(
            "rr 100",
            [](LatencyConfig& c) {
                c.policy = Policy::RR;
                c.priority = 100;
            },
            "priority must be between 1 and 99");
        row(
            "other 5", [](LatencyConfig& c) { c.priority = 5; }, "priority must be 0 for other");
        row(
            "nice -20", [](LatencyConfig& c) { c.nice = -20; }, "");
        row(
            "nice 19", [](LatencyConfig& c) { c.nice = 19; }, "");
        row(
            "nice 20", [](LatencyConfig& c) { c.nice = 20; }, "nice must be between -20 and 19");
        row(
            "nice -21", [](LatencyConfig& c) { c.nice = -21; }, "nice must be between -20 and 19");
        row(
            "period 10us", [](LatencyConfig& c) { c.periodNs = 10'000; }, "");
        row(
            "period 10s", [](LatencyConfig& c) { c.periodNs = 10'000'000'000; }, "");
        row(
            "period 9999ns", [](LatencyConfig& c) { c.periodNs = 9'999; }, "period must be between 10");
        row(
            "period 0", [](LatencyConfig& c) { c.periodNs = 0; }, "period must be between");
        row(
            "period 10s+1", [](LatencyConfig& c) { c.periodNs = 10'000'000'001; }, "period must be between");
        row(
            "cpu 1", [](LatencyConfig& c) { c.cpu = 1; }, "");
        row(
            "cpu 2", [](LatencyConfig& c) { c.cpu = 2; },
            "cpu must be one of the online CPUs this process may use (0-1)");
        row(
            "cpu -7", [](LatencyConfig& c) { c.cpu = -7; }, "cpu must be one of");
        row(
            "hogs 256", [](LatencyConfig& c) { c.hogs = 256; }, "");
        row(
            "hogs 257", [](LatencyConfig& c) { c.hogs = 257; }, "hogs must be between 0 and 256 per CPU (got 257)");
        row(
            "hogs -1", [](LatencyConfig& c) { c.hogs = -1; }, "hogs must be between 0 and 256 per CPU (got -1)");
        row(
            "hog fifo", [](LatencyConfig& c) { c.hogPolicy = Policy::Fifo; },
            "hog-policy must be other, batch or idle");
        row(
            "hog idle", [](LatencyConfig& c) { c.hogPolicy = Policy::Idle; }, "");
        row(
            "hog nice 20", [](LatencyConfig& c) { c.hogNice = 20; }, "hog-nice must be between -20 and 19");
        row(
            "hog cpu 9", [](LatencyConfig& c) { c.hogCpu = 9; }, "hog-cpu must be one of");
        row(
            "duration 1ms", [](LatencyConfig& c) { c.durationNs = 1'000'000; }, "");
        row(
            "duration 999us", [](LatencyConfig& c) { c.durationNs = 999'000; }, "duration must be between 1");
        row(
            "duration negative", [](LatencyConfig& c) { c.durationNs = -5; }, "duration must be between 1");
        row(
            "duration 31 days", [](LatencyConfig& c) { c.durationNs = 31LL * 86400 * 1'000'000'000; },
            "duration must be between");
        row(
            "samples and duration",
            [](LatencyConfig& c) {
                c.durationNs = 1'000'000'000;
                c.maxSamples = 10;
            },
            "duration and samples are exclusive");
        row(
            "samples too many", [](LatencyConfig& c) { c.maxSamples = LatencyConfig::kMaxSamples + 1; },
            "samples must be between 1");
        row(
            "histogram 1000000", [](LatencyConfig& c) { c.histogramUs = 1'000'000; }, "");
        row(
            "histogram 1000001", [](LatencyConfig& c) { c.histogramUs = 1'000'001; },
            "histogram must be between 0 and 1000000 us");
        row(
            "histogram -1", [](LatencyConfig& c) { c.histogramUs = -1; }, "histogram must be between 0");
        row(
            "trace", [](LatencyConfig& c) { c.trace = true; }, "");
        row(
            "trace threshold 0", [](LatencyConfig& c) { c.traceThresholdNs = 0; }, "");
        row(
            "trace threshold 10s", [](LatencyConfig& c) { c.traceThresholdNs = 10'000'000'000; }, "");
        row(
            "trace threshold 10s+1", [](LatencyConfig& c) { c.traceThresholdNs = 10'000'000'001; },
            "trace-threshold must be between 0 (none) and 10");
        row(
            "trace threshold -1", [](LatencyConfig& c) { c.traceThresholdNs = -1; },
            "trace-threshold must be between 0 (none) and 10");
        row(
            "trace top 1", [](LatencyConfig& c) { c.traceTop = 1; }, "");
        row(
            "trace top 100", [](LatencyConfig& c) { c.traceTop = 100; }, "");
        row(
            "trace top 0", [](LatencyConfig& c) { c.traceTop = 0; }, "trace-top must be between 1 and 100 (got 0)");
        row(
            "trace top 101", [](LatencyConfig& c) { c.traceTop = 101; },
            "trace-top must be between 1 and 100 (got 101)");
    }
    void bounds()
    {
        QFETCH(Mutator, mutate);
        QFETCH(QString, expectedField);
        LatencyConfig c;
        mutate(c);
        const auto errors = c.validate(rtscope::test::twoCpuTopology());
        if (expectedField.isEmpty()) {
            QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
            return;
        }
        QCOMPARE(errors.size(), size_t(1));
        QVERIFY2(QString::fromStdString(errors.front()).startsWith(expectedField), errors.front().c_str());
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
        for (const auto& mutate : std::vector<Mutator>{[](LatencyConfig& c) { c.trace = true; },
                                                       [](LatencyConfig& c) { c.traceThresholdNs = 100'000; },
                                                       [](LatencyConfig& c) {
                                                           c.traceTop = 25;
                                                       }}) {
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
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not object") << "[1,2]"
                                    << "latency config must be a JSON object";
        QTest::newRow("unknown key") << R"({"perido_ns": 5})"
                                     << "unknown field 'perido_ns'";
        QTest::newRow("string period") << R"({"period_ns": "1ms"})"
                                       << "period_ns must be an integer";
        QTest::newRow("bad policy") << R"({"policy": "fast"})"
                                    << "policy must be one of";
        QTest::newRow("bad waiter") << R"({"waiter": 3})"
                                    << "waiter must be one of";
        QTest::newRow("huge hogs") << R"({"hogs": 99999999999})"
                                   << "hogs is out of range";
        QTest::newRow("negative samples") << R"({"samples": -1})"
                                          << "samples must not be negative";
        QTest::newRow("dma not bool") << R"({"dma_latency": "yes"})"
                                      << "dma_latency must be true or false";
        QTest::newRow("trace not bool") << R"({"trace": 1})"
                                        << "trace must be true or false";
        QTest::newRow("trace threshold string") << R"({"trace_threshold_ns": "100us"})"
                                                << "trace_threshold_ns must be an integer";
        QTest::newRow("trace top float") << R"({"trace_top": 2.5})"
                                         << "trace_top must be an integer";
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
