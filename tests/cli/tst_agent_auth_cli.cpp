// ctest: parallel. Agents on 127.0.0.1:0 or temp unix sockets; functional checks; 5 s protocol budgets.
// Who may drive `rtscope agent` (docs/remote.md, "Security model"), tried as a hostile local user: the agent runs
// as root, the controller as nobody (a child of this test that drops to uid 65534 before it touches the socket).
// Over TCP a controller without the agent's token, or with a wrong one, gets one sentence and the connection
// closes: no hello, no probe, and nothing starts (no command runs, no thread appears). On a Unix socket the file is
// the owner's only, and even when it is opened to everyone the kernel's peer credentials keep nobody out. A command
// string from the wire (the sweep's load_cmd) runs only when the agent was started with --allow-commands. And a
// slow client cannot hold the one-controller slot: an unauthenticated connection must deliver its hello, and a
// session its next frame, whole within 5 s.
#include "tests/common/agent_test_config.h"
#include "tests/common/cli_process.h"

#include "engine/experiments/sweep/sweep_config.h"
#include "engine/remote/agent_auth.h"
#include "engine/remote/agent_client.h"
#include "engine/remote/agent_protocol.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"
#include "tests/common/thread_census.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <csignal>
#include <grp.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::test;

namespace {

constexpr uid_t kNobody = 65534;

// What a controller running as nobody saw: whether it could connect (else the errno), every byte the agent sent
// until it closed the connection (or 5 s passed), and whether it closed.
struct NobodyExchange {
    bool dropped = false; ///< the child runs as uid 65534 with no groups
    int connectErrno = 0;
    bool closedByAgent = false;
    std::string received;
};

// A child process drops to nobody, connects to @p address, sends @p bytes and reads the answer. The bytes are made
// before the fork: the child runs only system calls (the test process has threads, so it must not allocate).
NobodyExchange talkAsNobody(const sockaddr_storage& address, socklen_t length, const std::string& bytes)
{
    int report[2];
    if (pipe(report) != 0)
        return {};
    const pid_t pid = fork();
    if (pid == 0) {
        ::close(report[0]);
        char status = 'u';
        if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0 || getuid() != kNobody ||
            geteuid() != kNobody) {
            (void)!::write(report[1], &status, 1);
            _exit(3);
        }
        const int s = ::socket(address.ss_family, SOCK_STREAM, 0);
        if (s < 0 || ::connect(s, reinterpret_cast<const sockaddr*>(&address), length) != 0) {
            status = 'c';
            const int err = errno;
            (void)!::write(report[1], &status, 1);
            (void)!::write(report[1], &err, sizeof err);
            _exit(2);
        }
        status = 'k';
        (void)!::write(report[1], &status, 1);
        (void)!::write(s, bytes.data(), bytes.size());
        char buffer[8192];
        for (int waited = 0; waited < 5000;) {
            pollfd p{s, POLLIN, 0};
            if (::poll(&p, 1, 100) == 0) {
                waited += 100;
                continue;
            }
            const ssize_t n = ::read(s, buffer, sizeof buffer);
            if (n <= 0) {
                status = 'e'; // the agent closed it
                (void)!::write(report[1], &status, 1);
                _exit(0);
            }
            (void)!::write(report[1], buffer, size_t(n));
        }
        _exit(1);
    }
    ::close(report[1]);
    std::string got;
    char buffer[8192];
    for (ssize_t n; (n = ::read(report[0], buffer, sizeof buffer)) > 0;)
        got.append(buffer, size_t(n));
    ::close(report[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    NobodyExchange x;
    if (got.empty() || got[0] == 'u')
        return x;
    x.dropped = true;
    if (got[0] == 'c') {
        std::memcpy(&x.connectErrno, got.data() + 1, sizeof x.connectErrno);
        return x;
    }
    x.received = got.substr(1);
    x.closedByAgent = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (x.closedByAgent)
        x.received.pop_back(); // the 'e'
    return x;
}

std::vector<AgentFrame> framesOf(const std::string& bytes)
{
    AgentFrameDecoder decoder;
    decoder.feed(bytes);
    std::vector<AgentFrame> frames;
    AgentFrame f;
    std::string error;
    while (decoder.next(f, error) == AgentFrameDecoder::Result::Frame)
        frames.push_back(f);
    return frames;
}

// Why @p x is not "one error frame whose sentence contains @p sentence, then the connection closed"; empty if it is.
QByteArray refusalProblem(const NobodyExchange& x, const std::string& sentence)
{
    if (!x.dropped)
        return "the child could not become nobody";
    if (x.connectErrno != 0)
        return QByteArray("nobody could not connect: ") + std::strerror(x.connectErrno);
    if (!x.closedByAgent)
        return "the agent kept the connection open";
    const std::vector<AgentFrame> frames = framesOf(x.received);
    if (frames.size() != 1 || frames.front().type != AgentFrameType::Error)
        return "the agent sent " + QByteArray::number(qsizetype(frames.size())) + " frames (the first: " +
               QByteArray::fromStdString(frames.empty() ? "none" : agentFrameName(uint8_t(frames.front().type))) +
               "), not one error";
    std::string error;
    const auto j = frames.front().json(error);
    const std::string message = j ? j->value("message", std::string()) : error;
    if (message.find(sentence) == std::string::npos)
        return "the sentence is '" + QByteArray::fromStdString(message) + "'";
    return {};
}

// The bytes of a hostile controller: a hello (@p token when not empty), then a sweep whose load command would
// write @p proof, then a latency run at SCHED_FIFO 99.
std::string hostileController(const std::string& token, const QString& proof)
{
    nlohmann::json hello = agentHello(nullptr, {}, token);
    SweepConfig sweep;
    sweep.settings = {{}};
    sweep.eachNs = 100'000'000;
    sweep.loadCmd = "id > '" + proof.toStdString() + "'";
    nlohmann::json fifo = agentLatencyConfig(20'000, 0);
    fifo["policy"] = "fifo";
    fifo["priority"] = 99;
    return encodeAgentJsonFrame(AgentFrameType::Hello, hello) +
           encodeAgentJsonFrame(AgentFrameType::Start, {{"experiment", "sweep"}, {"config", toJson(sweep)}}) +
           encodeAgentJsonFrame(AgentFrameType::Start, {{"experiment", "latency"}, {"config", fifo}});
}

// `rtscope agent ARGS` started; waits for its "listening on" line. Returns false (and the stderr) if it did not say.
bool startAgent(QProcess& agent, const QStringList& args, QByteArray& err)
{
    agent.start(binary(), QStringList{"agent"} + args);
    if (!agent.waitForStarted())
        return false;
    const int64_t deadline = nowNs() + 10 * kNsPerSec;
    while (nowNs() < deadline && agent.state() == QProcess::Running) {
        agent.waitForReadyRead(100);
        err += agent.readAllStandardError();
        if (err.contains("listening on"))
            return true;
    }
    return false;
}

void stopAgent(QProcess& agent)
{
    ::kill(pid_t(agent.processId()), SIGTERM);
    if (!agent.waitForFinished(3000)) {
        agent.kill();
        agent.waitForFinished();
    }
}

sockaddr_storage loopbackAddress(int port, socklen_t& length)
{
    sockaddr_storage s{};
    auto* a = reinterpret_cast<sockaddr_in*>(&s);
    a->sin_family = AF_INET;
    a->sin_port = htons(uint16_t(port));
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    length = sizeof(sockaddr_in);
    return s;
}

sockaddr_storage unixAddress(const QString& path, socklen_t& length)
{
    sockaddr_storage s{};
    auto* a = reinterpret_cast<sockaddr_un*>(&s);
    a->sun_family = AF_UNIX;
    const QByteArray p = path.toLocal8Bit();
    std::memcpy(a->sun_path, p.constData(), size_t(p.size()));
    length = sizeof(sockaddr_un);
    return s;
}

int portOf(const QByteArray& err)
{
    const QRegularExpressionMatch m = QRegularExpression("listening on 127\\.0\\.0\\.1:(\\d+)").match(err);
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

QString tokenPathOf(const QByteArray& err)
{
    const QRegularExpressionMatch m = QRegularExpression("shows the token in (\\S+) \\(").match(err);
    return m.hasMatch() ? m.captured(1) : QString();
}

} // namespace

class TestAgentAuthCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        if (geteuid() != 0)
            RTSCOPE_SKIP(Root, "the agent must run as root and the controller as nobody: run the suite as root");
        // A controller the agent cuts off must not kill the test on its next write.
        std::signal(SIGPIPE, SIG_IGN);
        QVERIFY2(QFile::exists(binary()) && m_dir.isValid(), "RTSCOPE_BINARY must point at the built rtscope");
    }

    // TCP: nobody without the token, or with a wrong one, is told one sentence and cut off; the agent said nothing
    // else (no hello: its probe stays private), ran no command and started no thread. The token file is root's
    // only; with its token a controller is served.
    void tcpNeedsTheToken()
    {
        QProcess agent;
        QByteArray err;
        QVERIFY2(startAgent(agent, {"--listen", "127.0.0.1:0"}, err), err.constData());
        const int port = portOf(err);
        QVERIFY2(port > 0, err.constData());
        const pid_t pid = pid_t(agent.processId());

        socklen_t length = 0;
        const sockaddr_storage address = loopbackAddress(port, length);
        const std::string wrong(kAgentTokenHexChars, 'a');
        int n = 0;
        for (const std::string& token : {std::string(), wrong}) {
            const QString proof = m_dir.filePath(QString("tcp-proof-%1").arg(n++));
            const NobodyExchange x = talkAsNobody(address, length, hostileController(token, proof));
            usleep(300'000);
            QVERIFY2(!QFile::exists(proof), "the load command ran for nobody");
            const QByteArray problem = refusalProblem(x, "authentication failed");
            QVERIFY2(problem.isEmpty(), problem.constData());
            QCOMPARE(liveTasksOf(pid), 1); // no measuring thread, no hog
        }
        QCOMPARE(agent.state(), QProcess::Running);

        // The token file: a regular file of root's, 0600, in a 0700 directory.
        const QString tokenPath = tokenPathOf(err);
        QVERIFY2(!tokenPath.isEmpty(), err.constData());
        struct stat st {};
        QCOMPARE(::lstat(QFile::encodeName(tokenPath).constData(), &st), 0);
        QVERIFY(S_ISREG(st.st_mode));
        QCOMPARE(st.st_mode & 07777, mode_t(0600));
        QCOMPARE(st.st_uid, uid_t(0));
        QCOMPARE(::stat(QFile::encodeName(QFileInfo(tokenPath).path()).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0700));

        // The agent's own user (root) with the token in the file: served, as before.
        const Run served = run({"latency", "--target", QString("tcp://127.0.0.1:%1").arg(port), "--target-token",
                                tokenPath, "--period", "500us", "-l", "100"});
        QVERIFY2(served.exitCode == 0, qPrintable(served.err + served.out));
        QVERIFY2(served.out.contains("# target: "), qPrintable(served.out));
        // Without it, the CLI reports the agent's sentence.
        const Run refused =
            run({"latency", "--target", QString("tcp://127.0.0.1:%1").arg(port), "--period", "500us", "-l", "100"});
        QVERIFY2(refused.exitCode != 0 && refused.err.contains("authentication failed") &&
                     refused.err.contains("--target-token"),
                 qPrintable(refused.err));
        stopAgent(agent);
        err += agent.readAllStandardError();
        QVERIFY2(err.contains("refused a controller"), err.constData());
        QVERIFY2(!QFile::exists(tokenPath), "the token file outlived the agent");
    }

    // A Unix socket: the file is 0600, so nobody cannot even connect; opened to everyone (a careless chmod), the
    // kernel's peer credentials still keep nobody out with one sentence. Root is served through --target unix:.
    void unixSocketServesItsUserAndRootOnly()
    {
        // nobody must be able to reach the directory for the second half to mean anything.
        const QString dir = m_dir.filePath("sock");
        QVERIFY(QDir().mkpath(dir));
        QVERIFY(QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ExeGroup |
                                               QFile::ExeOther));
        QVERIFY(QFile::setPermissions(m_dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                                        QFile::ExeGroup | QFile::ExeOther));
        const QString path = dir + "/agent.sock";
        QProcess agent;
        QByteArray err;
        QVERIFY2(startAgent(agent, {"--listen", "unix:" + path}, err), err.constData());
        const pid_t pid = pid_t(agent.processId());
        struct stat st {};
        QCOMPARE(::lstat(QFile::encodeName(path).constData(), &st), 0);
        QVERIFY(S_ISSOCK(st.st_mode));
        QCOMPARE(st.st_mode & 0777, mode_t(0600));

        socklen_t length = 0;
        const sockaddr_storage address = unixAddress(path, length);
        const QString proof = m_dir.filePath("unix-proof");
        NobodyExchange x = talkAsNobody(address, length, hostileController({}, proof));
        QVERIFY(x.dropped);
        QCOMPARE(x.connectErrno, EACCES);

        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0666) == 0);
        x = talkAsNobody(address, length, hostileController({}, proof));
        const QByteArray problem =
            refusalProblem(x, "authentication failed: this agent serves uid 0 and root only; uid 65534 is refused");
        QVERIFY2(problem.isEmpty(), problem.constData());
        usleep(300'000);
        QVERIFY2(!QFile::exists(proof), "the load command ran for nobody");
        QCOMPARE(liveTasksOf(pid), 1);

        const Run served = run({"latency", "--target", "unix:" + path, "--period", "500us", "-l", "100"});
        QVERIFY2(served.exitCode == 0, qPrintable(served.err + served.out));
        QVERIFY2(served.out.contains("# target: "), qPrintable(served.out));
        stopAgent(agent);
        QVERIFY2(!QFile::exists(path), "the socket file outlived the agent");
    }

    // The agent's own user, authenticated, still cannot make it run a command string unless it was started with
    // --allow-commands: the start is refused with the flag named and the file the command would write is absent.
    // With the flag, the same start runs it (so the file is a working witness).
    void wireCommandsNeedAllowCommands()
    {
        for (const bool allow : {false, true}) {
            const QString proof = m_dir.filePath(allow ? "allowed-proof" : "refused-proof");
            AgentProcess process;
            const std::string command =
                "exec '" + binary().toStdString() + "' agent --stdio" + (allow ? " --allow-commands" : "");
            QVERIFY(!spawnAgentProcess(command, process));
            AgentClient client(process.fromAgent, process.toAgent);
            QVERIFY(!client.connect(10'000));
            SweepConfig sweep;
            sweep.settings = {{}};
            sweep.eachNs = 300'000'000;
            sweep.loadCmd = "touch '" + proof.toStdString() + "'; exec sleep 60";
            const Error e = client.start("sweep", toJson(sweep), 10'000, nullptr);
            if (!allow) {
                QVERIFY(e);
                QCOMPARE(int(e.kind), int(ErrorKind::Permission));
                QVERIFY2(e.message.find("--allow-commands") != std::string::npos, e.message.c_str());
                usleep(300'000);
                QVERIFY2(!QFile::exists(proof), "the command ran without --allow-commands");
            } else {
                QVERIFY2(!e, e.message.c_str());
                QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(proof), 5000);
                QVERIFY(!client.stop());
                QVERIFY(client.waitEnded(5000));
            }
            client.closeSending();
            reapAgentProcess(process.pid, 3000);
        }
    }

    // A connection that has not authenticated holds nothing: one dribbling its hello a byte every 0.5 s (as a slow
    // client could forever, each byte within the old per-byte timeout) is closed once its 5 s are up, before its
    // hello is whole; and while one dribbles, a controller that connects is served at once (the dribbler is then
    // told another controller is connected).
    void slowHelloDoesNotHoldTheSlot()
    {
        QProcess agent;
        QByteArray err;
        QVERIFY2(startAgent(agent, {"--listen", "127.0.0.1:0"}, err), err.constData());
        const int port = portOf(err);
        const QString tokenPath = tokenPathOf(err);
        QVERIFY2(port > 0, err.constData());
        std::string token;
        (void)tryReadAgentTokenFile(tokenPath.toStdString(), token); // stays empty for an agent without tokens
        const std::string hello = encodeAgentJsonFrame(AgentFrameType::Hello, agentHello(nullptr, {}, token));
        struct Dribble {
            size_t sent = 0;
            double closedMs = -1; ///< when the agent closed it; -1: it did not
            QByteArray servedProblem = "not tried";
        };
        // @p otherAfterMs >= 0: another controller connects that long after the dribbler, and runs 20 samples.
        const auto dribble = [&](int otherAfterMs) {
            Dribble d;
            int slow = -1;
            if (connectAgentTcp("127.0.0.1", port, 2000, slow))
                return d;
            const int64_t t0 = nowNs();
            while (d.sent < hello.size() && d.closedMs < 0 && nowNs() - t0 < 20 * kNsPerSec) {
                (void)!::write(slow, hello.data() + d.sent++, 1);
                if (otherAfterMs >= 0 && d.servedProblem == "not tried" && nowNs() - t0 > otherAfterMs * kNsPerMs) {
                    int fd = -1;
                    Error e = connectAgentTcp("127.0.0.1", port, 2000, fd);
                    if (!e) {
                        AgentClient other(fd, fd);
                        other.setToken(token);
                        e = other.connect(5000);
                        if (!e)
                            e = other.start("latency", agentLatencyConfig(500'000, 20), 5000, nullptr);
                        if (!e && !other.waitEnded(5000))
                            e = {ErrorKind::System, "the run did not end"};
                    }
                    d.servedProblem = QByteArray::fromStdString(e.message);
                }
                pollfd p{slow, POLLIN, 0};
                char buffer[4096];
                if (::poll(&p, 1, 500) > 0) {
                    while (::read(slow, buffer, sizeof buffer) > 0) {
                    }
                    if (::recv(slow, buffer, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
                        d.closedMs = double(nowNs() - t0) / 1e6;
                }
            }
            ::close(slow);
            return d;
        };
        const Dribble alone = dribble(-1);
        qInfo("a hello sent a byte every 0.5 s: %zu of its %zu bytes sent, closed by the agent after %.0f ms",
              alone.sent, hello.size(), alone.closedMs);
        QVERIFY2(alone.closedMs >= 0 && alone.sent < hello.size(), "the agent waited for the slow hello");
        const Dribble beside = dribble(1000);
        QVERIFY2(beside.servedProblem.isEmpty(), beside.servedProblem.constData());
        QVERIFY2(beside.closedMs >= 0 && beside.sent < hello.size(), "the agent waited for the slow hello");
        stopAgent(agent);
        err += agent.readAllStandardError();
        QVERIFY2(err.contains("no whole hello within 5 s") && err.contains("another controller is connected"),
                 err.constData());
    }

    // In a session, a whole frame must come within 5 s of the one before: a controller dribbling one byte a second
    // (each byte within the old per-byte timeout) is given up before its frame is done.
    void sessionFrameMustArriveWhole()
    {
        QProcess agent;
        agent.start(binary(), {"agent", "--stdio"});
        QVERIFY(agent.waitForStarted());
        agent.write(QByteArray::fromStdString(encodeAgentJsonFrame(AgentFrameType::Hello, agentHello(nullptr))));
        const std::string start = encodeAgentJsonFrame(
            AgentFrameType::Start, {{"experiment", "latency"}, {"config", agentLatencyConfig(1'000'000, 0)}});
        const int64_t t0 = nowNs();
        size_t sent = 0;
        while (sent < start.size() && agent.state() == QProcess::Running && nowNs() - t0 < 20 * kNsPerSec) {
            agent.write(start.data() + sent++, 1);
            agent.waitForBytesWritten(100);
            agent.waitForFinished(1000);
        }
        const double ms = double(nowNs() - t0) / 1e6;
        const QByteArray err = agent.readAllStandardError();
        qInfo("a frame sent a byte a second: the agent left after %.0f ms, %zu of %zu bytes sent", ms, sent,
              start.size());
        QVERIFY2(agent.state() == QProcess::NotRunning && sent < start.size(), err.constData());
        QCOMPARE(agent.exitCode(), 1);
        QVERIFY2(err.contains("no whole frame from the controller for 5 s (") &&
                     err.contains("bytes of an unfinished one came"),
                 err.constData());
        if (agent.state() != QProcess::NotRunning) {
            agent.kill();
            agent.waitForFinished();
        }
    }
};

RTSCOPE_TEST_MAIN(TestAgentAuthCli)
#include "tst_agent_auth_cli.moc"
