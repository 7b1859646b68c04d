// ctest: parallel. Pure JSON round trip.
// Tracing over the agent link (docs/remote.md, "Tracing on the target"): the latency Status frame carries the
// target's reason when --trace could not start there ("tracing_unavailable"), so the controller says it as soon as
// a local run would; absent otherwise, bounded, and a frame with a bad one is not read (untrusted input).
#include "engine/remote/agent_protocol.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <memory>
#include <string>

using namespace rtscope;

namespace {

LatencySnapshot agentTraceStatusSnapshot(std::shared_ptr<LatencyTracing> tracing)
{
    LatencySnapshot s;
    s.config.priority = 80;
    s.config.periodNs = 1'000'000;
    s.config.trace = tracing != nullptr;
    LatencyThreadStats t;
    t.cpu = 1;
    t.tid = 77;
    t.samples = 1;
    t.histogram = Histogram(100);
    t.histogram.record(4000);
    s.threads.push_back(t);
    s.tracing = std::move(tracing);
    return s;
}

} // namespace

class TestAgentTraceStatus : public QObject {
    Q_OBJECT

private slots:
    void unavailableReasonRoundTrips()
    {
        auto tracing = std::make_shared<LatencyTracing>();
        tracing->unavailable = "permission denied on /sys/kernel/tracing (tracefs is root's): run rtscope as root";
        const nlohmann::json j = agentLatencyStatusJson(agentTraceStatusSnapshot(tracing));
        QCOMPARE(j.at("tracing_unavailable").get<std::string>(), tracing->unavailable);
        const auto back = agentLatencyStatusFromJson(j);
        QVERIFY(back);
        QCOMPARE(back->tracingUnavailable, tracing->unavailable);
        QCOMPARE(back->threads.size(), size_t(1)); // the rest of the frame as before
        QCOMPARE(back->threads[0].tid, 77);
    }

    void absentWhenTracingRunsOrWasNotAsked()
    {
        auto active = std::make_shared<LatencyTracing>();
        active->active = true;
        for (const LatencySnapshot& s : {agentTraceStatusSnapshot(active), agentTraceStatusSnapshot(nullptr)}) {
            const nlohmann::json j = agentLatencyStatusJson(s);
            QVERIFY2(!j.contains("tracing_unavailable"), j.dump().c_str());
            const auto back = agentLatencyStatusFromJson(j);
            QVERIFY(back);
            QVERIFY(back->tracingUnavailable.empty());
        }
    }

    // A reason longer than the bound is cut by the writer, never sent whole.
    void longReasonIsCutToTheBound()
    {
        auto tracing = std::make_shared<LatencyTracing>();
        tracing->unavailable = std::string(kMaxAgentTracingReason + 100, 'x');
        const auto back = agentLatencyStatusFromJson(agentLatencyStatusJson(agentTraceStatusSnapshot(tracing)));
        QVERIFY(back);
        QCOMPARE(back->tracingUnavailable.size(), kMaxAgentTracingReason);
    }

    void hostileReasonIsNotRead_data()
    {
        QTest::addColumn<QString>("value");
        QTest::newRow("a number") << "42";
        QTest::newRow("an object") << R"({"why": "no"})";
        QTest::newRow("null") << "null";
        QTest::newRow("too long") << QString::fromStdString(
            nlohmann::json(std::string(kMaxAgentTracingReason + 1, 'y')).dump());
    }
    void hostileReasonIsNotRead()
    {
        QFETCH(QString, value);
        nlohmann::json j = agentLatencyStatusJson(agentTraceStatusSnapshot(nullptr));
        QVERIFY(agentLatencyStatusFromJson(j)); // sound without it
        j["tracing_unavailable"] = nlohmann::json::parse(value.toStdString());
        QVERIFY2(!agentLatencyStatusFromJson(j), j.dump().substr(0, 200).c_str());
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestAgentTraceStatus)
#include "tst_agent_trace_status.moc"
