// ctest: parallel. Pure JSON depth limits.
// JSON from outside nested deeper than kMaxJsonDepth (engine/util/json_text.h) is refused with one sentence that
// names where it came from and the limit, at every entry point in the engine: a recording's header (its probe) and
// a marker's config, an agent frame of either direction, a cyclictest JSON file. Nested 100 000 deep, such a value
// overflowed the stack of whatever copied or dumped it (a replay, File › Compare, the agent, the controller).
#include "engine/formats/cyclictest_format.h"
#include "engine/recording/recording_replay.h"
#include "engine/remote/agent_protocol.h"
#include "engine/util/json_text.h"
#include "tests/common/recording_bytes.h"

#include "tests/common/test_main.h"

#include <QtTest>

using namespace rtscope;
using rtscope::test::RecordingBytes;

namespace {

constexpr size_t kHostileDepth = 100'000;

std::string nested(size_t levels)
{
    return std::string(levels, '[') + std::string(levels, ']');
}

bool has(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

class TestDeepJson : public QObject {
    Q_OBJECT

private slots:
    void depthIsCountedOutsideStrings()
    {
        QCOMPARE(jsonNestingDepth("17"), size_t(0));
        QCOMPARE(jsonNestingDepth("{\"a\":[1,{\"b\":[]}]}"), size_t(4));
        QCOMPARE(jsonNestingDepth("{\"a\":\"[[[\\\"[[{\",\"b\":[]}"), size_t(2));
        QCOMPARE(jsonNestingDepth(nested(kHostileDepth)), kHostileDepth);
    }

    void theLimitIsTheLastDepthRead()
    {
        const ParsedJson at = parseJsonText(nested(kMaxJsonDepth), "x");
        QVERIFY2(at.ok(), at.notJson.c_str());
        QVERIFY(at.value.is_array());
        const ParsedJson over = parseJsonText(nested(kMaxJsonDepth + 1), "the thing");
        QVERIFY(!over.ok());
        QCOMPARE(over.tooDeep,
                 std::string("the thing nests lists and objects 65 levels deep; rtscope reads at most 64"));
        QCOMPARE(over.error("other words"), over.tooDeep);
        const ParsedJson cut = parseJsonText("{\"a\":", "x");
        QVERIFY(!cut.ok() && cut.tooDeep.empty());
        QVERIFY2(has(cut.notJson, "parse error at line 1"), cut.notJson.c_str());
        QCOMPARE(cut.error("not JSON"), std::string("not JSON"));
    }

    void aRecordingsProbe()
    {
        RecordingBytes b({0}, nlohmann::json::object(), "board", "rtscope latency", nested(kHostileDepth));
        b.samples(0, 0, RecordingBytes::kStartNs, 10);
        const ReplayedRun r = replayRecording(b.end(RecordingBytes::kStartNs + 20'000'000));
        QVERIFY(!r.read.ok);
        QVERIFY(!r.snapshot);
        QVERIFY2(has(r.read.error, "header block: the header nests lists and objects 100001 levels deep; rtscope "
                                   "reads at most 64"),
                 r.read.error.c_str());
    }

    void aMarkersConfig()
    {
        RecordingBytes b({0});
        b.samples(0, 0, RecordingBytes::kStartNs, 10);
        // A marker block is at most 64 KiB long: 10 000 levels fit, and are as far past the limit as the probe's.
        b.markerWithText(RecordingBytes::kStartNs + 10'000'000, 10, "deep", "{\"a\":" + nested(10'000) + "}");
        const ReplayedRun r = replayRecording(b.end(RecordingBytes::kStartNs + 20'000'000));
        QVERIFY(!r.read.ok);
        QVERIFY2(has(r.read.error, "the config nests lists and objects 10001 levels deep"), r.read.error.c_str());
        QCOMPARE(r.read.samples, uint64_t(10)); // what came before is kept
    }

    void anAgentFrame_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<QString>("name");
        // Both directions: the controller's start (its view) and the agent's hello (its probe), status, started.
        QTest::newRow("start") << int(AgentFrameType::Start) << "start";
        QTest::newRow("hello") << int(AgentFrameType::Hello) << "hello";
        QTest::newRow("status") << int(AgentFrameType::Status) << "status";
        QTest::newRow("started") << int(AgentFrameType::Started) << "started";
    }
    void anAgentFrame()
    {
        QFETCH(int, type);
        QFETCH(QString, name);
        const AgentFrame f{AgentFrameType(type), "{\"view\":" + nested(kHostileDepth) + "}"};
        std::string error;
        QVERIFY(!f.json(error));
        QCOMPARE(QString::fromStdString(error),
                 name + ": the payload nests lists and objects 100001 levels deep; rtscope reads at most 64");
    }

    void aCyclictestJsonFile()
    {
        CyclictestData data;
        std::string error;
        QVERIFY(!parseCyclictestJson("{\"thread\":" + nested(kHostileDepth) + "}", data, error));
        QCOMPARE(error, std::string("the file nests lists and objects 100001 levels deep; rtscope reads at most 64"));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestDeepJson)
#include "tst_deep_json.moc"
