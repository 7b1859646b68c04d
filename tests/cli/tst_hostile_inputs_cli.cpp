// ctest: parallel. Refuses hostile files and frames; short SCHED_OTHER runs; private TMPDIR.
// What rtscope reads from outside cannot crash or hang it, and what it writes cannot be redirected or wasted:
// JSON nested 100 000 deep in a recording, a start frame sent to the agent and the frames of a fake agent is refused
// with a sentence (engine/util/json_text.h); a FIFO given as a recording or a preset is refused at once
// (engine/util/input_file.h); an output whose directory is reached through a symbolic link, or lies on a
// filesystem of the kernel's (/proc, /sys), is refused before the run starts (engine/formats/output_file.h).
#include "tests/common/agent_test_config.h"
#include "tests/common/cli_process.h"
#include "tests/common/recording_bytes.h"

#include "engine/remote/agent_client.h"
#include "engine/remote/agent_protocol.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <csignal>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::test;

namespace {

constexpr size_t kHostileDepth = 100'000;
// A refusal is immediate; a hang (open() of a FIFO) is cut off here and fails the test instead of the suite.
constexpr int kRefusalTimeoutMs = 10'000;

std::string nested(size_t levels)
{
    return std::string(levels, '[') + std::string(levels, ']');
}

bool writeBytes(const QString& path, const std::string& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           f.write(bytes.data(), qint64(bytes.size())) == qint64(bytes.size());
}

std::string recordingOf(RecordingBytes& b)
{
    b.samples(0, 0, RecordingBytes::kStartNs, 100);
    return b.end(RecordingBytes::kStartNs + 200'000'000);
}

// Every frame @p fd gives until it ends or @p timeoutMs pass.
std::vector<AgentFrame> framesUntilEnd(int fd, int timeoutMs)
{
    std::vector<AgentFrame> frames;
    AgentFrameDecoder d;
    const int64_t deadline = nowNs() + int64_t(timeoutMs) * kNsPerMs;
    std::string buf(65536, '\0');
    for (;;) {
        AgentFrame f;
        std::string e;
        for (AgentFrameDecoder::Result r; (r = d.next(f, e)) != AgentFrameDecoder::Result::NeedMore;)
            if (r == AgentFrameDecoder::Result::Frame)
                frames.push_back(f);
        const int64_t left = (deadline - nowNs()) / kNsPerMs;
        pollfd p{fd, POLLIN, 0};
        if (left <= 0 || ::poll(&p, 1, int(left)) <= 0)
            return frames;
        const ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n <= 0)
            return frames;
        d.feed(std::string_view(buf.data(), size_t(n)));
    }
}

} // namespace

class TestHostileInputsCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString path(const char* name) const { return m_dir.filePath(name); }

private slots:
    void replayOfADeepProbeIsRefused()
    {
        RecordingBytes b({0}, nlohmann::json::object(), "board", "rtscope latency", nested(kHostileDepth));
        QVERIFY(writeBytes(path("deep.rtrec"), recordingOf(b)));
        const Run r = run({"replay", path("deep.rtrec")}, kRefusalTimeoutMs);
        QVERIFY2(r.exitCode == 2, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(r.err.contains("the header nests lists and objects 100001 levels deep; rtscope reads at most 64"),
                 qPrintable(r.err));
    }

    // The agent answers a start whose view is nested 100 000 deep with an error frame, then still answers.
    void theAgentRefusesADeepView()
    {
        const std::string deepStart =
            "{\"experiment\":\"latency\",\"config\":" + test::agentLatencyConfig(1'000'000, 10).dump() +
            ",\"view\":" + nested(kHostileDepth) + "}";
        const std::string frames = encodeAgentJsonFrame(AgentFrameType::Hello, agentHello(nullptr)) +
                                   encodeAgentFrame(AgentFrameType::Start, deepStart) +
                                   encodeAgentFrame(AgentFrameType::ThreadsRequest, std::string_view("{}"));
        QVERIFY(writeBytes(path("frames.bin"), frames));
        AgentProcess p;
        QVERIFY(!spawnAgentProcess(
            "exec '" + binary().toStdString() + "' agent --stdio < '" + path("frames.bin").toStdString() + "'", p));
        ::close(p.toAgent);
        const std::vector<AgentFrame> got = framesUntilEnd(p.fromAgent, kRefusalTimeoutMs);
        ::close(p.fromAgent);
        const int status = reapAgentProcess(p.pid, 5000);
        QVERIFY2(WIFEXITED(status), qPrintable(QString("the agent died: wait status %1").arg(status)));
        std::string errors;
        bool threads = false;
        for (const AgentFrame& f : got) {
            if (f.type == AgentFrameType::Error)
                errors += f.payload;
            threads = threads || f.type == AgentFrameType::Threads;
        }
        QVERIFY2(errors.find("start: the payload nests lists and objects 100001 levels deep") != std::string::npos,
                 errors.c_str());
        QVERIFY2(threads, "the agent did not answer the thread list after the deep start");
    }

    // A fake agent's hello, status, started and snapshot frames nested 100 000 deep: the controller says so.
    void theControllerRefusesDeepFrames()
    {
        const std::string deep = "{\"probe\":" + nested(kHostileDepth) + "}";
        QVERIFY(writeBytes(path("deep-hello.bin"), encodeAgentFrame(AgentFrameType::Hello, deep)));
        {
            AgentProcess p;
            QVERIFY(!spawnAgentProcess("cat '" + path("deep-hello.bin").toStdString() + "'; sleep 2", p));
            AgentClient client(p.fromAgent, p.toAgent);
            const Error e = client.connect(5000);
            QVERIFY(e);
            QVERIFY2(e.message.find("hello: the payload nests lists and objects 100001 levels deep") !=
                         std::string::npos,
                     e.message.c_str());
            client.closeSending();
            reapAgentProcess(p.pid, 100);
        }
        QVERIFY(writeBytes(path("deep-frames.bin"), encodeAgentJsonFrame(AgentFrameType::Hello, agentHello(nullptr)) +
                                                        encodeAgentFrame(AgentFrameType::Status, deep) +
                                                        encodeAgentFrame(AgentFrameType::Started, deep) +
                                                        encodeAgentFrame(AgentFrameType::Snapshot, deep)));
        AgentProcess p;
        QVERIFY(!spawnAgentProcess("cat '" + path("deep-frames.bin").toStdString() + "'; sleep 2", p));
        AgentClient client(p.fromAgent, p.toAgent);
        QVERIFY(!client.connect(5000));
        QTRY_VERIFY_WITH_TIMEOUT(client.errors().size() >= 3, 5000);
        for (const std::string& e : client.errors())
            QVERIFY2(e.find("nests lists and objects 100001 levels deep; rtscope reads at most 64") !=
                         std::string::npos,
                     e.c_str());
        client.closeSending();
        reapAgentProcess(p.pid, 100);
    }

    void aFifoIsRefusedNotWaitedFor_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("fifo");
        QTest::newRow("replay") << QStringList{"replay", "FIFO"} << "fifo.rtrec";
        QTest::newRow("run --preset") << QStringList{"run", "--preset", "FIFO"} << "fifo.json";
    }
    void aFifoIsRefusedNotWaitedFor()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, fifo);
        const QString fifoPath = path(qPrintable(fifo));
        QVERIFY(::mkfifo(fifoPath.toLocal8Bit().constData(), 0600) == 0 || errno == EEXIST);
        args.replaceInStrings("FIFO", fifoPath);
        const Run r = run(args, kRefusalTimeoutMs);
        QVERIFY2(r.exitCode == 2, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(r.err.contains("is a FIFO (named pipe), not a regular file"), qPrintable(r.err));
    }

    // replay --csv through a directory that is a link to another: refused up front, the file there untouched.
    void aLinkedOutputDirectoryIsRefused()
    {
        RecordingBytes b({0});
        QVERIFY(writeBytes(path("x.rtrec"), recordingOf(b)));
        QVERIFY(QDir(m_dir.path()).mkdir("elsewhere"));
        QVERIFY(writeBytes(path("elsewhere/target.csv"), "precious\n"));
        QVERIFY(QFile::link(path("elsewhere"), path("sharedlink")));
        const QString problem = refusalProblem({"replay", path("x.rtrec"), "--csv", path("sharedlink/target.csv")},
                                               "--csv: the directory '" + path("sharedlink") +
                                                   "' is a symbolic link; rtscope does not write through "
                                                   "links");
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(readAll(path("elsewhere/target.csv")), QByteArray("precious\n"));
        QVERIFY(QDir(m_dir.path()).mkdir("elsewhere/sub"));
        const QString deeper = refusalProblem({"replay", path("x.rtrec"), "--csv", path("sharedlink/sub/t.csv")},
                                              "is reached through the symbolic link '" + path("sharedlink") + "'");
        QVERIFY2(deeper.isEmpty(), qPrintable(deeper));
    }

    // Outputs on a filesystem of the kernel's: refused before the run (nothing on stdout), not after it.
    void kernelFilesystemOutputsAreRefusedUpFront_data()
    {
        addRefusalColumns();
        const QStringList latency{"latency", "-D", "2s", "-q"};
        QTest::newRow("--json /proc") << latency + QStringList{"--json", "/proc/x.json"}
                                      << "--json: '/proc/x.json' is on proc, a filesystem of the kernel's";
        QTest::newRow("--record /sys") << latency + QStringList{"--record", "/sys/x.rtrec"}
                                       << "--record: '/sys/x.rtrec' is on sysfs";
        QTest::newRow("--trace-dat /proc") << latency + QStringList{"--trace", "--trace-dat", "/proc/t.dat"}
                                           << "--trace-dat: '/proc/t.dat' is on proc";
        QTest::newRow("--csv tracefs") << latency + QStringList{"--csv", "/sys/kernel/tracing/x.csv"}
                                       << "is on tracefs";
        QTest::newRow("--histfile cgroup2")
            << latency + QStringList{"--histfile", "/sys/fs/cgroup/unified/x.hist"} << "is on cgroup2";
    }
    void kernelFilesystemOutputsAreRefusedUpFront() { checkRefusalRow(); }

    // `latency --csv` killed with -9 leaves its scratch directory (the temporary recording); the next --csv run
    // removes it, as the desktop app removes the spools of a killed app.
    void aKilledCsvRunsScratchIsRemovedByTheNext()
    {
        QTemporaryDir tmp; // TMPDIR of both runs: nothing else's scratch is in it
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("TMPDIR", tmp.path());
        QProcess killed;
        killed.setProcessEnvironment(env);
        killed.start(binary(), {"latency", "-D", "30s", "-q", "--csv", path("killed.csv")});
        QVERIFY(killed.waitForStarted());
        const QDir dir(tmp.path());
        QTRY_VERIFY_WITH_TIMEOUT(!dir.entryList({"rtscope-latency-*"}, QDir::Dirs).isEmpty(), 10'000);
        const QString left = dir.entryList({"rtscope-latency-*"}, QDir::Dirs).first();
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir.filePath(left + "/owner")), 5'000);
        ::kill(pid_t(killed.processId()), SIGKILL);
        QVERIFY(killed.waitForFinished(5'000));
        QVERIFY2(dir.exists(left), "the killed run's scratch directory is gone already: the test shows nothing");

        const Run next = run({"latency", "-D", "200ms", "-q", "--csv", path("next.csv")}, 40'000, binary(), env);
        QVERIFY2(next.exitCode == 0, qPrintable(next.err));
        QVERIFY2(!dir.exists(left), qPrintable(left + " is still there"));
        QVERIFY2(dir.entryList({"rtscope-latency-*"}, QDir::Dirs).isEmpty(), "the next run left its own behind");
        QVERIFY(QFile::exists(path("next.csv")));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestHostileInputsCli)
#include "tst_hostile_inputs_cli.moc"
