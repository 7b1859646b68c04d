// ctest: parallel. Framing; one fixed-count SCHED_OTHER run with a 5 s guard.
// The agent protocol's framing (docs/remote.md): frames survive any split of the byte stream; truncated, oversized
// and garbage input is named and leaves the decoder usable; a version mismatch names both versions; and a
// RecordingWriter given a byte sink streams exactly the recording it would have written to a file.
#include "engine/experiments/latency/latency_experiment.h"
#include "engine/recording/recording_replay.h"
#include "engine/recording/recording_writer.h"
#include "engine/remote/agent_client.h"
#include "engine/remote/agent_protocol.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <mutex>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace rtscope;

namespace {

// Feeds @p bytes @p step bytes at a time and collects every frame and every error.
struct AgentDecoded {
    std::vector<AgentFrame> frames;
    std::vector<std::string> errors;
};
AgentDecoded agentDecodeAll(std::string_view bytes, size_t step, AgentFrameDecoder& d)
{
    AgentDecoded out;
    for (size_t i = 0; i < bytes.size(); i += step) {
        d.feed(bytes.substr(i, step));
        AgentFrame f;
        std::string e;
        for (AgentFrameDecoder::Result r; (r = d.next(f, e)) != AgentFrameDecoder::Result::NeedMore;) {
            if (r == AgentFrameDecoder::Result::Frame)
                out.frames.push_back(f);
            else
                out.errors.push_back(e);
        }
    }
    return out;
}

std::string agentRawHeader(uint32_t length, uint8_t type)
{
    std::string h;
    for (int i = 0; i < 4; ++i)
        h.push_back(char((length >> (8 * i)) & 0xff));
    h.push_back(char(type));
    return h;
}

// Runs @p exp, a SCHED_OTHER latency run of @p samples at 500 us whose recording goes to @p writer, to its end
// (5 s at most) and stops it.
void agentRunLatencyInto(LatencyExperiment& exp, RecordingWriter& writer, uint64_t samples)
{
    exp.setRunSink(&writer);
    LatencyConfig c;
    c.periodNs = 500'000;
    c.maxSamples = samples;
    QVERIFY(!exp.start(c, CpuTopology::current()));
    const int64_t deadline = nowNs() + 5 * kNsPerSec;
    while (!exp.finished() && nowNs() < deadline)
        usleep(10'000);
    exp.stop();
}

} // namespace

class TestAgentProtocol : public QObject {
    Q_OBJECT

private slots:
    void framesSurviveAnySplit()
    {
        const std::string payload(70'000, 'x');
        const std::string stream = encodeAgentJsonFrame(AgentFrameType::Hello, agentHello(nlohmann::json::object())) +
                                   encodeAgentFrame(AgentFrameType::Heartbeat, std::string_view()) +
                                   encodeAgentFrame(AgentFrameType::Recording, payload);
        for (size_t step : {size_t(1), size_t(3), size_t(4096), stream.size()}) {
            AgentFrameDecoder d;
            const AgentDecoded got = agentDecodeAll(stream, step, d);
            QVERIFY2(got.errors.empty(), got.errors.empty() ? "" : got.errors.front().c_str());
            QCOMPARE(got.frames.size(), size_t(3));
            QCOMPARE(got.frames[0].type, AgentFrameType::Hello);
            std::string error;
            const auto hello = got.frames[0].json(error);
            QVERIFY(hello);
            QCOMPARE(hello->at("protocol").get<int>(), kAgentProtocolVersion);
            QCOMPARE(got.frames[1].type, AgentFrameType::Heartbeat);
            QVERIFY(got.frames[1].payload.empty());
            QCOMPARE(got.frames[2].payload, payload);
            QCOMPARE(d.pending(), size_t(0));
        }
    }

    void truncatedFrameWaitsAndCounts()
    {
        const std::string frame = encodeAgentFrame(AgentFrameType::Stop, std::string_view("abc"));
        AgentFrameDecoder d;
        const AgentDecoded got = agentDecodeAll(std::string_view(frame).substr(0, frame.size() - 1), 1, d);
        QVERIFY(got.frames.empty());
        QVERIFY(got.errors.empty());
        QCOMPARE(d.pending(), frame.size() - 1); // at EOF this says "cut inside a frame"
    }

    void oversizedIsRefusedAndTheStreamResynchronises()
    {
        AgentFrameDecoder d;
        // The limit itself is allowed…
        const std::string atLimit(kMaxAgentPayload, 'r');
        AgentDecoded got = agentDecodeAll(encodeAgentFrame(AgentFrameType::Recording, atLimit), 1 << 20, d);
        QCOMPARE(got.frames.size(), size_t(1));
        // …one more byte is not, and nothing of it is buffered.
        got = agentDecodeAll(agentRawHeader(kMaxAgentPayload + 1, 2) + "junk", 64, d);
        QCOMPARE(got.errors.size(), size_t(1));
        QVERIFY2(got.errors[0].find("frame of 1048577 bytes exceeds the 1048576-byte limit") != std::string::npos,
                 got.errors[0].c_str());
        QCOMPARE(d.pending(), size_t(0));
        got = agentDecodeAll(agentRawHeader(0xffffffffu, 0xff), 64, d);
        QCOMPARE(got.errors.size(), size_t(1));
        QVERIFY(got.errors[0].find("4294967295") != std::string::npos);
        // The next read that starts with a frame is read.
        got = agentDecodeAll(encodeAgentFrame(AgentFrameType::Heartbeat, std::string_view()), 64, d);
        QCOMPARE(got.frames.size(), size_t(1));
        QVERIFY(got.errors.empty());
    }

    void garbageTypesAreNamedAndSkipped()
    {
        AgentFrameDecoder d;
        const std::string stream = agentRawHeader(3, 0) + "abc" + agentRawHeader(2, 200) + "zz" +
                                   encodeAgentFrame(AgentFrameType::Stop, std::string_view());
        const AgentDecoded got = agentDecodeAll(stream, 2, d);
        QCOMPARE(got.errors.size(), size_t(2));
        QVERIFY2(got.errors[0].find("unknown frame type 0") != std::string::npos, got.errors[0].c_str());
        QVERIFY2(got.errors[1].find("unknown frame type 200") != std::string::npos, got.errors[1].c_str());
        QCOMPARE(got.frames.size(), size_t(1));
        QCOMPARE(got.frames[0].type, AgentFrameType::Stop);
        AgentFrame notJson{AgentFrameType::Start, "{not json"};
        std::string error;
        QVERIFY(!notJson.json(error));
        QVERIFY2(error.find("start: the payload is not a JSON object") != std::string::npos, error.c_str());
        AgentFrame array{AgentFrameType::Hello, "[1,2]"};
        QVERIFY(!array.json(error));
    }

    void versionMismatchNamesBothVersions()
    {
        QVERIFY(agentProtocolMismatch(agentHello(nullptr), "agent").empty());
        const std::string m = agentProtocolMismatch({{"protocol", 2}, {"version", "9.0"}}, "agent");
        QVERIFY2(m.find("the agent speaks protocol 2") != std::string::npos, m.c_str());
        QVERIFY2(m.find("this rtscope speaks protocol 1") != std::string::npos, m.c_str());
        const std::string missing = agentProtocolMismatch({{"version", "9.0"}}, "controller");
        QVERIFY2(missing.find("protocol is missing") != std::string::npos, missing.c_str());
        QVERIFY(!agentProtocolMismatch({{"protocol", "1"}}, "agent").empty()); // a string is not the number
    }

    // An agent that refuses a second controller writes its sentence and closes, which may happen before the
    // controller's hello is written: the hello then fails with EPIPE (seen on Debian 13 in cli/agent_transports). The
    // controller still reports the agent's sentence, not the broken pipe.
    void refusalThatClosesBeforeTheHelloIsNamed()
    {
        int fds[2];
        QCOMPARE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        QVERIFY(!AgentFrameWriter(fds[1]).sendJson(AgentFrameType::Error,
                                                   agentError("system", "another controller is connected")));
        ::close(fds[1]);
        AgentClient client(fds[0], fds[0]);
        const Error e = client.connect(5000);
        QVERIFY(e);
        QVERIFY2(e.message.find("another controller is connected") != std::string::npos, e.message.c_str());
    }

    void errorKindsRoundTrip()
    {
        for (ErrorKind k : {ErrorKind::InvalidConfig, ErrorKind::Permission})
            QCOMPARE(errorKindOfAgentError(agentErrorKind(k)), k);
        QCOMPARE(errorKindOfAgentError(agentErrorKind(ErrorKind::Unavailable)), ErrorKind::System);
    }

    void statusRoundTrips()
    {
        LatencySnapshot s;
        s.config.priority = 80;
        s.config.periodNs = 500'000;
        LatencyThreadStats t;
        t.cpu = 1;
        t.tid = 4242;
        t.samples = 3;
        t.lastNs = 7000;
        t.histogram = Histogram(100);
        t.histogram.record(5000);
        t.histogram.record(7000);
        t.histogram.record(9000);
        s.threads.push_back(t);
        const auto back = agentLatencyStatusFromJson(agentLatencyStatusJson(s));
        QVERIFY(back);
        QCOMPARE(back->priority, 80);
        QCOMPARE(back->periodNs, int64_t(500'000));
        QCOMPARE(back->threads.size(), size_t(1));
        QCOMPARE(back->threads[0].tid, 4242);
        QCOMPARE(back->threads[0].samples, uint64_t(3));
        QCOMPARE(back->threads[0].minNs, t.histogram.min());
        QCOMPARE(back->threads[0].maxNs, t.histogram.max());
        QCOMPARE(back->threads[0].lastNs, int64_t(7000));
        QVERIFY(!agentLatencyStatusFromJson({{"priority", "high"}}));
    }

    // The writer's byte sink gets the very recording a file would hold: it replays whole, with every sample the
    // writer counted.
    void recordingWriterStreamsToASink()
    {
        std::mutex m;
        std::string streamed;
        size_t calls = 0;
        RecordingWriter writer(
            probeSystem(),
            [&](std::string_view bytes) {
                std::lock_guard lock(m);
                streamed.append(bytes);
                ++calls;
                return Error{};
            },
            RecordingWriter::Limits{});
        LatencyExperiment exp;
        agentRunLatencyInto(exp, writer, 300);
        const RecordingWriter::Status st = writer.status();
        QVERIFY2(st.complete, st.error.c_str());
        QCOMPARE(st.samples, uint64_t(300));
        QVERIFY(st.path.empty());
        std::lock_guard lock(m);
        QVERIFY(calls >= 1);
        QCOMPARE(uint64_t(streamed.size()), st.bytes);
        const ReplayedRun r = replayRecording(streamed);
        QVERIFY2(r.read.ok, r.read.error.c_str());
        QCOMPARE(r.read.samples, uint64_t(300));
        QVERIFY(r.snapshot);
        QCOMPARE(r.snapshot->threads.front().samples, uint64_t(300));
    }

    // A sink that fails (the link dropped) ends the run's writing with its sentence, never the run.
    void failingSinkIsReported()
    {
        RecordingWriter writer(
            probeSystem(),
            [](std::string_view) {
                return Error{ErrorKind::System, "the connection closed"};
            },
            RecordingWriter::Limits{});
        LatencyExperiment exp;
        agentRunLatencyInto(exp, writer, 100);
        const RecordingWriter::Status st = writer.status();
        QVERIFY(!st.complete);
        QCOMPARE(QString::fromStdString(st.error), QString("the connection closed"));
        QCOMPARE(exp.snapshot()->threads.front().samples, uint64_t(100));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestAgentProtocol)
#include "tst_agent_protocol.moc"
