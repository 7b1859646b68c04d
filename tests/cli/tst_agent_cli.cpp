// `rtscope agent --stdio` as a child process (docs/remote.md): hello, start, stop with the recording stream; the
// CLI client end to end (`rtscope latency --target-cmd`); the agent's threads gone within the stop budget when its
// controller goes away (stdin closed, or the controller SIGKILLed); hostile input answered with error frames while
// the agent stays up.
#include "tests/common/agent_frames.h"
#include "tests/common/agent_test_config.h"
#include "tests/common/cli_process.h"

#include "engine/formats/system_threads_json.h"
#include "engine/recording/recording_replay.h"
#include "engine/remote/agent_client.h"
#include "engine/remote/agent_protocol.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"
#include "tests/common/thread_census.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::test;

namespace {

// The stop budget (kJoinBudgetMs) plus as much again for noticing the EOF and leaving on a loaded 2-CPU machine.
constexpr double kAgentCliStopBoundMs = 2 * kJoinBudgetMs;

// Waits until @p pid has no thread but its main one left running, or is gone; returns the milliseconds since @p t0
// (nowNs()) or -1 after @p timeoutMs.
double agentCliMsUntilThreadsGone(pid_t pid, int64_t t0, int timeoutMs)
{
    while (nowNs() - t0 < int64_t(timeoutMs) * kNsPerMs) {
        if (liveTasksOf(pid) <= 1)
            return double(nowNs() - t0) / 1e6;
        usleep(1000);
    }
    return -1;
}

std::string agentCliErrorMessage(const AgentFrame& f)
{
    std::string e;
    const auto j = f.json(e);
    return j ? j->value("message", std::string()) : e;
}

void agentCliSend(int fd, const std::string& bytes)
{
    QCOMPARE(::write(fd, bytes.data(), bytes.size()), ssize_t(bytes.size()));
}

} // namespace

class TestAgentCli : public rtscope::test::CliTest {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        setUp();
        std::signal(SIGPIPE, SIG_IGN);
    }

    // Hello with the target's probe, a start answered with the config as run, a stop, and a recording stream that
    // replays whole with every sample the run took.
    void helloStartStopOverAPipe()
    {
        AgentProcess p;
        QVERIFY(!spawnAgentProcess(agentStdioCommand(), p));
        {
            AgentClient client(p.fromAgent, p.toAgent);
            const Error connected = client.connect(10'000);
            QVERIFY2(!connected, connected.message.c_str());
            const nlohmann::json hello = client.agentHello();
            QCOMPARE(hello.at("protocol").get<int>(), kAgentProtocolVersion);
            QVERIFY(hello.at("probe").contains("kernel_release"));
            nlohmann::json started;
            const Error e = client.start("latency", test::agentLatencyConfig(500'000, 0), 10'000, &started);
            QVERIFY2(!e, e.message.c_str());
            QVERIFY(started.at("config").at("cpu").get<int>() >= 0); // resolved by the agent
            usleep(300'000);
            QVERIFY(!client.stop());
            QVERIFY(client.waitEnded(5000));
            QVERIFY2(client.connectionError().empty(), client.connectionError().c_str());
            const ReplayedRun r = replayRecording(client.recording());
            QVERIFY2(r.read.ok, r.read.error.c_str());
            QVERIFY(r.read.samples > 100); // 300 ms at 500 us, with room for a loaded machine
            QCOMPARE(r.snapshot->threads.front().samples, r.read.samples);
            QCOMPARE(r.read.lost, uint64_t(0));
            // A second run on the same connection.
            QVERIFY(!client.start("latency", test::agentLatencyConfig(500'000, 50), 10'000, nullptr));
            QVERIFY(client.waitEnded(5000));
            QCOMPARE(replayRecording(client.recording()).read.samples, uint64_t(50));
            QVERIFY(client.endedInfo().at("finished").get<bool>());
        }
        const int status = reapAgentProcess(p.pid, 2000);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
    }

    // The client end to end: the summary, --json and --record of a remote run agree with each other and with a
    // replay of what was received.
    void latencyTargetCmdEndToEnd()
    {
        const Run r = run({"latency", "--target-cmd", QString::fromStdString(agentStdioCommand()), "--period", "500us",
                           "-l", "400", "--json", path("remote.json"), "--record", path("remote.rtrec"), "--histfile",
                           path("remote.hist")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains("# target: "), qPrintable(r.out));
        QVERIFY2(r.out.contains("400 samples"), qPrintable(r.out));
        const nlohmann::json j = nlohmann::json::parse(readAll(path("remote.json")).toStdString());
        QCOMPARE(j.at("rtscope").at("threads").at(0).at("samples").get<uint64_t>(), uint64_t(400));
        const ReplayedRun replayed = replayRecordingFile(path("remote.rtrec").toStdString());
        QVERIFY2(replayed.read.ok, replayed.read.error.c_str());
        QCOMPARE(replayed.read.samples, uint64_t(400));
        QVERIFY(!readAll(path("remote.hist")).isEmpty());
    }

    // The agent refuses what the target cannot do with the local CLI's sentence and exit code.
    void refusalsAreTheLocalSentences()
    {
        const Run local = run({"latency", "-a", "4000", "-l", "10"});
        QCOMPARE(local.exitCode, 2);
        const Run remote =
            run({"latency", "--target-cmd", QString::fromStdString(agentStdioCommand()), "-a", "4000", "-l", "10"});
        QCOMPARE(remote.exitCode, 2);
        const QString sentence = local.err.trimmed().split('\n').first();
        QVERIFY2(remote.err.contains(sentence), qPrintable(remote.err + " | local: " + sentence));
        QVERIFY(remote.out.isEmpty());
    }

    // EOF on the agent's stdin mid-run: every thread of the agent is gone within the stop budget (100 ms, with
    // margin for a loaded machine) and the process exits.
    void closedStdinStopsEveryThread()
    {
        AgentProcess p;
        QVERIFY(!spawnAgentProcess(agentStdioCommand(), p));
        AgentFrameDecoder d;
        QVERIFY(agentCliRead(p.fromAgent, d, AgentFrameType::Hello, 10'000));
        agentCliSend(p.toAgent, encodeAgentJsonFrame(AgentFrameType::Hello, agentHello(nullptr)));
        nlohmann::json cfg = test::agentLatencyConfig(200'000, 0);
        cfg["hogs"] = 1;
        agentCliSend(p.toAgent, encodeAgentJsonFrame(AgentFrameType::Start,
                                                     nlohmann::json{{"experiment", "latency"}, {"config", cfg}}));
        QVERIFY(agentCliRead(p.fromAgent, d, AgentFrameType::Started, 10'000));
        usleep(200'000);
        QVERIFY2(liveTasksOf(p.pid) >= 4, "the run's threads (measuring, hog, collector, recorder)");
        const int64_t closedNs = nowNs();
        ::close(p.toAgent);
        const double ms = agentCliMsUntilThreadsGone(p.pid, closedNs, 2000);
        qInfo("agent threads gone %.1f ms after its stdin closed", ms);
        QVERIFY2(ms >= 0 && ms < kAgentCliStopBoundMs, qPrintable(QString::number(ms)));
        const int status = reapAgentProcess(p.pid, 2000);
        QVERIFY(WIFEXITED(status));
        ::close(p.fromAgent);
    }

    // The controller SIGKILLed mid-run (no stop, no goodbye): the agent's stdin reaches EOF and its threads go.
    void killedControllerStopsTheAgent()
    {
        // Orphans come to this process, so the agent can be found and reaped after its parent dies.
        QCOMPARE(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        QProcess client;
        client.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        client.start(binary(), {"latency", "--target-cmd", QString::fromStdString(agentStdioCommand()), "--period",
                                "200us", "--hogs", "1"});
        QVERIFY(client.waitForStarted());
        // The agent is the client's child: wait for it and for its run to be going.
        pid_t agent = -1;
        const int64_t deadline = nowNs() + 10 * kNsPerSec;
        while (nowNs() < deadline) {
            QFile children(QString("/proc/%1/task/%1/children").arg(client.processId()));
            if (children.open(QIODevice::ReadOnly)) {
                const QByteArray text = children.readAll().trimmed();
                if (!text.isEmpty())
                    agent = pid_t(text.split(' ').first().toInt());
            }
            if (agent > 0 && liveTasksOf(agent) >= 4)
                break;
            usleep(10'000);
        }
        QVERIFY2(agent > 0 && liveTasksOf(agent) >= 4, "the agent's run did not start");
        const int64_t killedNs = nowNs();
        kill(pid_t(client.processId()), SIGKILL);
        client.waitForFinished();
        const double ms = agentCliMsUntilThreadsGone(agent, killedNs, 2000);
        qInfo("agent threads gone %.1f ms after its controller was killed", ms);
        QVERIFY2(ms >= 0 && ms < kAgentCliStopBoundMs, qPrintable(QString::number(ms)));
        int status = 0;
        QCOMPARE(waitpid(agent, &status, 0), agent);
        QVERIFY(WIFEXITED(status));
        prctl(PR_SET_CHILD_SUBREAPER, 0);
    }

    // Garbage, oversized, unknown and out-of-order frames, and a hello of another version: each answered with an
    // error frame naming it; the agent then still runs a measurement.
    void hostileInputIsAnsweredAndSurvived()
    {
        AgentProcess p;
        QVERIFY(!spawnAgentProcess(agentStdioCommand(), p));
        AgentFrameDecoder d;
        QVERIFY(agentCliRead(p.fromAgent, d, AgentFrameType::Hello, 10'000));
        const auto expectError = [&](const std::string& bytes, const std::string& expected) {
            agentCliSend(p.toAgent, bytes);
            const auto f = agentCliRead(p.fromAgent, d, AgentFrameType::Error, 5000);
            QVERIFY2(f, ("no error frame for: " + expected).c_str());
            const std::string m = agentCliErrorMessage(*f);
            QVERIFY2(m.find(expected) != std::string::npos, (m + " | expected: " + expected).c_str());
        };
        const auto start = [](const nlohmann::json& cfg) {
            return encodeAgentJsonFrame(AgentFrameType::Start,
                                        nlohmann::json{{"experiment", "latency"}, {"config", cfg}});
        };
        expectError(start(test::agentLatencyConfig(1'000'000, 10)), "start before hello");
        expectError(std::string("\xff\xff\xff\x7fGARBAGE", 12), "exceeds the 1048576-byte limit");
        expectError(std::string("\x02\0\0\0\x63zz", 7), "unknown frame type 99");
        expectError(encodeAgentJsonFrame(AgentFrameType::Hello, nlohmann::json{{"protocol", 2}}),
                    "the controller speaks protocol 2, this rtscope speaks protocol 1");
        expectError(encodeAgentFrame(AgentFrameType::Hello, std::string_view("{nope")), "not a JSON object");
        expectError(encodeAgentFrame(AgentFrameType::ThreadsRequest, std::string_view("{}")),
                    "threads-request before hello");
        agentCliSend(p.toAgent, encodeAgentJsonFrame(AgentFrameType::Hello, agentHello(nullptr)));
        expectError(encodeAgentFrame(AgentFrameType::ThreadsRequest, std::string_view("[1,")),
                    "threads-request: the payload is not a JSON object");
        expectError(encodeAgentJsonFrame(AgentFrameType::Threads, nlohmann::json::object()),
                    "threads frames are the agent's own");
        expectError(encodeAgentFrame(AgentFrameType::Stop, std::string_view()), "stop: nothing is running");
        expectError(encodeAgentFrame(AgentFrameType::Recording, std::string_view("x")),
                    "recording frames are the agent's");
        expectError(encodeAgentJsonFrame(AgentFrameType::Start, nlohmann::json{{"experiment", "nope"}, {"config", {}}}),
                    "unknown experiment 'nope'");
        nlohmann::json bad = test::agentLatencyConfig(1'000'000, 10);
        bad["period_ns"] = 5;
        expectError(start(bad), "period");
        // Sound after all that: a run starts, ends and streams its recording.
        agentCliSend(p.toAgent, start(test::agentLatencyConfig(500'000, 20)));
        std::vector<AgentFrame> seen;
        QVERIFY(agentCliRead(p.fromAgent, d, AgentFrameType::Ended, 10'000, &seen));
        std::string recording;
        for (const AgentFrame& f : seen)
            if (f.type == AgentFrameType::Recording)
                recording += f.payload;
        QCOMPARE(replayRecording(recording).read.samples, uint64_t(20));
        ::close(p.toAgent);
        const int status = reapAgentProcess(p.pid, 2000);
        QVERIFY(WIFEXITED(status));
        ::close(p.fromAgent);
    }

    // The thread list, asked at any time (docs/remote.md, ThreadsRequest): the agent's /proc, with the kernel's
    // per-CPU threads at their real policy and the agent's hostname.
    void threadListThroughTheClient()
    {
        AgentProcess p;
        QVERIFY(!spawnAgentProcess(agentStdioCommand(), p));
        {
            AgentClient client(p.fromAgent, p.toAgent);
            QVERIFY(!client.connect(10'000));
            QVERIFY(!client.requestThreads());
            uint64_t generation = 0;
            std::optional<AgentThreadsReply> reply;
            for (int i = 0; i < 500 && !(reply = client.threadList(0, generation)); ++i)
                usleep(10'000);
            QVERIFY(reply);
            QVERIFY2(reply->problem.empty(), reply->problem.c_str());
            QCOMPARE(reply->list.host, client.agentHello().value("host", std::string()));
            QCOMPARE(reply->list.total, reply->list.threads.size());
            bool migration = false;
            for (const SystemThread& t : reply->list.threads)
                if (t.name == "migration/0") {
                    migration = true;
                    QCOMPARE(t.policy, std::string("FIFO"));
                    QCOMPARE(t.rtPriority, 99);
                    QVERIFY(t.kernelThread && t.interruptRelated);
                }
            QVERIFY(migration);
            client.closeSending();
        }
        QVERIFY(WIFEXITED(reapAgentProcess(p.pid, 2000)));
    }

    // A hostile agent's thread list: one sentence naming the bad field; an agent too old for the request: said so.
    void badThreadListsAreSentences()
    {
        const nlohmann::json hello{{"protocol", kAgentProtocolVersion}, {"version", "9"}};
        SystemThread t;
        t.pid = t.tid = 7;
        t.name = "irq/9-acpi";
        t.policy = "FIFO";
        t.kernelPolicy = 1;
        t.rtPriority = 50;
        t.allowedCpus = "0-1";
        t.state = 'S';
        nlohmann::json row = toJson(t);
        row["allowed_cpus"] = "0; reboot";
        const nlohmann::json bad{{"host", "board"}, {"threads", {row}}, {"total", 1}, {"read_ms", 1.0}};
        const std::string old =
            encodeAgentJsonFrame(AgentFrameType::Error, agentError("protocol", "unknown frame type 13 (2 bytes of "
                                                                               "payload skipped)"));
        const std::pair<std::string, std::string> cases[] = {
            {encodeAgentJsonFrame(AgentFrameType::Threads, bad), "threads[0].allowed_cpus must be a CPU list"},
            {old, "does not know the threads-request frame"}};
        for (const auto& [frame, expected] : cases) {
            QFile f(path("threads.bin"));
            QVERIFY(f.open(QIODevice::WriteOnly));
            const std::string bytes = encodeAgentJsonFrame(AgentFrameType::Hello, hello) + frame;
            f.write(bytes.data(), qint64(bytes.size()));
            f.close();
            AgentProcess p;
            QVERIFY(!spawnAgentProcess("cat '" + path("threads.bin").toStdString() + "'; sleep 2", p));
            AgentClient client(p.fromAgent, p.toAgent);
            QVERIFY(!client.connect(5000));
            uint64_t generation = 0;
            std::optional<AgentThreadsReply> reply;
            for (int i = 0; i < 500 && !(reply = client.threadList(0, generation)); ++i)
                usleep(10'000);
            QVERIFY(reply);
            QVERIFY2(reply->problem.find(expected) != std::string::npos, reply->problem.c_str());
            QVERIFY(reply->list.threads.empty());
            client.closeSending();
            reapAgentProcess(p.pid, 100);
        }
    }

    void versionMismatchIsRefusedByTheClient()
    {
        // A fake agent that says hello in protocol 2.
        const std::string hello =
            encodeAgentJsonFrame(AgentFrameType::Hello, nlohmann::json{{"protocol", 2}, {"version", "9"}});
        QFile f(path("hello2.bin"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(hello.data(), qint64(hello.size()));
        f.close();
        AgentProcess p;
        QVERIFY(!spawnAgentProcess("cat '" + path("hello2.bin").toStdString() + "'; sleep 2", p));
        AgentClient client(p.fromAgent, p.toAgent);
        const Error e = client.connect(5000);
        QVERIFY(e);
        QVERIFY2(e.message.find("the agent speaks protocol 2, this rtscope speaks protocol 1") != std::string::npos,
                 e.message.c_str());
        client.closeSending();
        reapAgentProcess(p.pid, 100);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestAgentCli)
#include "tst_agent_cli.moc"
