// The agent's other transports (docs/remote.md): `rtscope agent --listen` on loopback TCP reached with
// `rtscope latency --target tcp://…` (one controller at a time; the run stopped and the agent waiting again when
// its controller leaves), the loopback-only rule, the sentences for bad targets, and `--target ssh://…` through a
// real sshd started on loopback with its own keys.
#include "tests/common/agent_test_config.h"
#include "tests/common/cli_process.h"
#include "tests/common/loopback_port.h"

#include "engine/recording/recording_replay.h"
#include "engine/remote/agent_auth.h"
#include "engine/remote/agent_client.h"
#include "engine/remote/agent_protocol.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"
#include "tests/common/thread_census.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::test;

namespace {

// The stop budget (kJoinBudgetMs) plus as much again for noticing the EOF on a loaded 2-CPU machine.
constexpr double kTransportStopBoundMs = 2 * kJoinBudgetMs;

bool transportPortAccepts(int port)
{
    int fd = -1;
    if (connectAgentTcp("127.0.0.1", port, 200, fd))
        return false;
    ::close(fd);
    return true;
}

// `rtscope agent --listen 127.0.0.1:0`: waits for its "listening on 127.0.0.1:PORT" line and returns the port;
// @p token, when given, gets the token from the file the agent named (engine/remote/agent_auth.h).
int transportStartAgent(QProcess& agent, QByteArray& err, const QStringList& listen = {"--listen", "127.0.0.1:0"},
                        std::string* token = nullptr)
{
    agent.start(binary(), QStringList{"agent"} + listen);
    if (!agent.waitForStarted())
        return -1;
    const QRegularExpression re("listening on [^ ]*:(\\d+)");
    const int64_t deadline = nowNs() + 10 * kNsPerSec;
    while (nowNs() < deadline) {
        agent.waitForReadyRead(100);
        err += agent.readAllStandardError();
        const QRegularExpressionMatch m = re.match(QString::fromUtf8(err));
        if (m.hasMatch()) {
            const QRegularExpressionMatch file =
                QRegularExpression("shows the token in (\\S+) \\(").match(QString::fromUtf8(err));
            if (token && (!file.hasMatch() || tryReadAgentTokenFile(file.captured(1).toStdString(), *token)))
                return -1;
            return m.captured(1).toInt();
        }
        if (agent.state() == QProcess::NotRunning)
            return -1;
    }
    return -1;
}

void transportStopAgent(QProcess& agent)
{
    ::kill(pid_t(agent.processId()), SIGTERM);
    if (!agent.waitForFinished(3000)) {
        agent.kill();
        agent.waitForFinished();
    }
}

} // namespace

class TestAgentTransports : public rtscope::test::CliTest {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        setUp();
        std::signal(SIGPIPE, SIG_IGN);
    }

    // A latency run through --target tcp://, twice against the same agent (it waits for the next controller).
    void tcpEndToEnd()
    {
        QProcess agent;
        QByteArray err;
        const int port = transportStartAgent(agent, err);
        QVERIFY2(port > 0, err.constData());
        const QString url = QString("tcp://127.0.0.1:%1").arg(port);
        const QRegularExpressionMatch tokenFile = QRegularExpression("shows the token in (\\S+) \\(").match(err);
        QVERIFY2(tokenFile.hasMatch(), err.constData());
        for (int i = 0; i < 2; ++i) {
            // The token's file by flag, then by the environment variable.
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            QStringList args{"latency", "--target", url,        "--period",       "500us",
                             "-l",      "300",      "--record", path("tcp.rtrec")};
            if (i == 0)
                args << "--target-token" << tokenFile.captured(1);
            else
                env.insert(kAgentTokenFileEnv, tokenFile.captured(1));
            const Run r = run(args, 40000, binary(), env);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
            QVERIFY2(r.out.contains("# target: "), qPrintable(r.out));
            const ReplayedRun replayed = replayRecordingFile(path("tcp.rtrec").toStdString());
            QVERIFY2(replayed.read.ok, replayed.read.error.c_str());
            QCOMPARE(replayed.read.samples, uint64_t(300));
        }
        QCOMPARE(agent.state(), QProcess::Running);
        transportStopAgent(agent);
        QCOMPARE(agent.exitCode(), 0);
    }

    // A second controller gets "another controller is connected" and is closed; the first one's run goes on and
    // ends whole. When the first leaves mid-run, its threads are joined within the stop budget, and the agent
    // serves the next controller.
    void secondControllerRefusedAndAgentWaitsForTheNext()
    {
        QProcess agent;
        QByteArray err;
        std::string token;
        const int port = transportStartAgent(agent, err, {"--listen", "127.0.0.1:0"}, &token);
        QVERIFY2(port > 0, err.constData());
        const pid_t pid = pid_t(agent.processId());
        int fd = -1;
        QVERIFY(!connectAgentTcp("127.0.0.1", port, 2000, fd));
        auto first = std::make_unique<AgentClient>(fd, fd);
        first->setToken(token);
        QVERIFY(!first->connect(10'000));
        nlohmann::json cfg = test::agentLatencyConfig(500'000, 0);
        cfg["hogs"] = 1;
        const Error started = first->start("latency", cfg, 10'000, nullptr);
        QVERIFY2(!started, started.message.c_str());
        {
            int fd2 = -1;
            QVERIFY(!connectAgentTcp("127.0.0.1", port, 2000, fd2));
            AgentClient second(fd2, fd2);
            second.setToken(token);
            const Error refused = second.connect(5000);
            QVERIFY(refused);
            QVERIFY2(refused.message.find("another controller is connected") != std::string::npos,
                     refused.message.c_str());
        }
        usleep(200'000);
        QVERIFY2(first->connectionError().empty(), first->connectionError().c_str());
        const std::vector<std::string> firstErrors = first->errors();
        QVERIFY2(firstErrors.empty(), firstErrors.empty() ? "" : firstErrors.front().c_str());
        QVERIFY2(liveTasksOf(pid) >= 4, "the run's threads (measuring, hog, collector, recorder)");
        // The controller goes mid-run: closing the socket is its EOF.
        const int64_t leftNs = nowNs();
        first.reset();
        double ms = -1;
        while (nowNs() - leftNs < 2 * kNsPerSec) {
            if (liveTasksOf(pid) <= 1) {
                ms = double(nowNs() - leftNs) / 1e6;
                break;
            }
            usleep(1000);
        }
        qInfo("agent threads gone %.1f ms after its TCP controller left", ms);
        QVERIFY2(ms >= 0 && ms < kTransportStopBoundMs, qPrintable(QString::number(ms)));
        // The next controller is served.
        QVERIFY(!connectAgentTcp("127.0.0.1", port, 2000, fd));
        AgentClient next(fd, fd);
        next.setToken(token);
        QVERIFY(!next.connect(10'000));
        QVERIFY(!next.start("latency", test::agentLatencyConfig(500'000, 40), 10'000, nullptr));
        QVERIFY(next.waitEnded(5000));
        QCOMPARE(replayRecording(next.recording()).read.samples, uint64_t(40));
        QCOMPARE(agent.state(), QProcess::Running);
        transportStopAgent(agent);
        err += agent.readAllStandardError();
        QVERIFY2(err.contains("refused a second controller"), err.constData());
    }

    // The token and the frames are not encrypted: another address than loopback needs --listen-any, which warns.
    void nonLoopbackNeedsListenAny()
    {
        const Run refused = run({"agent", "--listen", "0.0.0.0:0"});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("not a loopback address") && refused.err.contains("--listen-any"),
                 qPrintable(refused.err));
        const Run malformed = run({"agent", "--listen", "127.0.0.1"});
        QCOMPARE(malformed.exitCode, 2);
        QVERIFY2(malformed.err.contains("the port is missing"), qPrintable(malformed.err));
        QProcess agent;
        QByteArray err;
        QVERIFY2(transportStartAgent(agent, err, {"--listen", "0.0.0.0:0", "--listen-any"}) > 0, err.constData());
        QVERIFY2(err.contains("warning: listening on 0.0.0.0:") && err.contains("unencrypted"), err.constData());
        transportStopAgent(agent);
    }

    // Bad URLs name the flag and the accepted forms (exit 2); nobody listening is a failure with its reason (1).
    void badTargetsAreSentences()
    {
        for (const QString url : {"foo://x", "tcp://127.0.0.1", "tcp://127.0.0.1:99999", "ssh://", "ssh://-oProxy"}) {
            const Run r = run({"latency", "--target", url, "-l", "10"});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("target '" + url + "'") && r.err.contains("tcp://HOST:PORT, unix:PATH or ssh://"),
                     qPrintable(r.err));
        }
        const Run agentPathWithoutSsh = run({"latency", "--target-cmd", "true", "--target-agent", "/x", "-l", "10"});
        QCOMPARE(agentPathWithoutSsh.exitCode, 2);
        const Run refused = run(
            {"latency", "--target", QString("tcp://127.0.0.1:%1").arg(rtscope::test::freeLoopbackPort()), "-l", "10"});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("cannot connect to 127.0.0.1:") && refused.err.contains("refused"),
                 qPrintable(refused.err));
        if (QFileInfo::exists("/usr/bin/ssh")) {
            const Run noSshd =
                run({"latency", "--target", QString("ssh://root@127.0.0.1:%1").arg(rtscope::test::freeLoopbackPort()),
                     "-l", "10"});
            QCOMPARE(noSshd.exitCode, 1);
            QVERIFY2(noSshd.err.contains("ssh could not connect or log in"), qPrintable(noSshd.err));
        }
    }

    // A real sshd on loopback with its own host key, authorized key and port: --target ssh:// end to end.
    void sshEndToEnd()
    {
        const QString sshd = "/usr/sbin/sshd";
        if (!QFileInfo::exists(sshd) || QStandardPaths::findExecutable("ssh-keygen").isEmpty() ||
            QStandardPaths::findExecutable("ssh").isEmpty())
            RTSCOPE_SKIP(Tool, "openssh-server / openssh-client is not installed (scripts/deps test installs it)");
        // sshd's privilege separation directory (Debian creates it at boot through tmpfiles, not at install).
        if (!QFileInfo::exists("/run/sshd") && geteuid() == 0)
            QDir().mkpath("/run/sshd");
        for (const char* key : {"host_key", "client_key"}) {
            const Run k = run({"-q", "-t", "ed25519", "-N", "", "-f", path(key)}, 20'000,
                              QStandardPaths::findExecutable("ssh-keygen"));
            QVERIFY2(k.exitCode == 0, qPrintable(k.err));
        }
        QVERIFY(QFile::copy(path("client_key.pub"), path("authorized_keys")));
        const int port = rtscope::test::freeLoopbackPort();
        QFile cfg(path("sshd_config"));
        QVERIFY(cfg.open(QIODevice::WriteOnly));
        cfg.write(QString("Port %1\nListenAddress 127.0.0.1\nHostKey %2\nAuthorizedKeysFile %3\nPidFile %4\n"
                          "StrictModes no\nUsePAM no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                          "KbdInteractiveAuthentication no\n")
                      .arg(port)
                      .arg(path("host_key"), path("authorized_keys"), path("sshd.pid"))
                      .toUtf8());
        cfg.close();
        QProcess server;
        server.setProcessChannelMode(QProcess::MergedChannels);
        server.start(sshd, {"-D", "-f", path("sshd_config"), "-e"});
        const int64_t deadline = nowNs() + 5 * kNsPerSec;
        while (nowNs() < deadline && server.state() != QProcess::NotRunning && !transportPortAccepts(port))
            usleep(20'000);
        if (server.state() == QProcess::NotRunning || !transportPortAccepts(port)) {
            const QString why = QString::fromUtf8(server.readAll()).trimmed();
            server.kill();
            server.waitForFinished();
            RTSCOPE_SKIP(Other, "sshd could not start here: " + why);
        }
        const QString agentPath = QFileInfo(binary()).absoluteFilePath();
        const Run r = run({"latency", "--target", QString("ssh://root@127.0.0.1:%1").arg(port), "--target-agent",
                           agentPath, "--target-ssh-option", "IdentityFile=" + path("client_key"),
                           "--target-ssh-option", "StrictHostKeyChecking=no", "--target-ssh-option",
                           "UserKnownHostsFile=/dev/null", "--period", "1ms", "-D", "1s", "--json", path("ssh.json")});
        server.terminate();
        server.waitForFinished(3000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out + "\nsshd: " + QString::fromUtf8(server.readAll())));
        QVERIFY2(r.out.contains("# target: "), qPrintable(r.out));
        const nlohmann::json j = nlohmann::json::parse(readAll(path("ssh.json")).toStdString());
        // 1 s at 1 ms: about 1000 samples; a loaded machine may lose the start-up, never most of them.
        QVERIFY(j.at("rtscope").at("threads").at(0).at("samples").get<uint64_t>() > 500);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestAgentTransports)
#include "tst_agent_transports.moc"
