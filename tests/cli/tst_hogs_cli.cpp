// Many hogs (issue 27, item 5): `rtscope latency --hogs 256` stops within a bounded time of a stop signal whenever
// it arrives, the start-up of the hogs included; an agent whose controller leaves while 256 hogs start leaves too;
// more hogs per CPU than the engine honours are refused with the field and its range (exit 2).
#include "tests/common/agent_frames.h"
#include "tests/common/agent_test_config.h"
#include "tests/common/cli_process.h"

#include "engine/experiments/latency/latency_config.h"
#include "engine/remote/agent_client.h"
#include "engine/remote/agent_protocol.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"
#include "tests/common/thread_census.h"

#include <QFile>
#include <QtTest>

#include <csignal>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::test;

namespace {

// The bound from a stop signal (or the controller's EOF) to the process's exit: the join budget of every thread
// (kJoinBudgetMs) and the writing of the results, with room for a loaded 2-CPU machine. Before the fix, 256 hogs
// held a SIGINT for over 30 s.
constexpr qint64 kHogsExitBoundMs = 1000;

// Whether @p pid blocks SIGINT yet (SigBlk of /proc/PID/status): before that a SIGINT would kill it unhandled.
bool blocksSigint(qint64 pid)
{
    QFile f(QString("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return false;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("SigBlk:"))
            return (line.mid(7).trimmed().toULongLong(nullptr, 16) >> (SIGINT - 1)) & 1;
    return false;
}

struct Interrupted {
    int exitCode = -1; ///< -1: crashed, or not exited within 10 s
    qint64 exitedAfterMs = -1;
    QString out, err;
};

// Runs `rtscope @p args`, sends SIGINT @p afterMs after it has blocked its stop signals, and times its exit.
Interrupted interruptAfter(const QStringList& args, int afterMs)
{
    QProcess p;
    p.start(binary(), args);
    Interrupted r;
    if (!p.waitForStarted())
        return r;
    const int64_t deadline = nowNs() + 5 * kNsPerSec;
    while (!blocksSigint(p.processId()) && p.state() == QProcess::Running && nowNs() < deadline)
        usleep(200);
    if (afterMs > 0)
        usleep(useconds_t(afterMs) * 1000);
    Run run;
    r.exitedAfterMs = signalAndCollect(p, SIGINT, 10'000, run);
    r.exitCode = run.exitCode;
    r.out = run.out;
    r.err = run.err;
    return r;
}

} // namespace

class TestHogsCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { setUpAgentPipes(); }

    // One past the limit, and the limit times the CPUs past the total: exit 2, the field and its range.
    void tooManyHogsPerCpuAreRefusedWithTheRange()
    {
        const QString max = QString::number(LatencyConfig::kMaxHogs);
        const QString over = QString::number(LatencyConfig::kMaxHogs + 1);
        QString problem = refusalProblem({"latency", "--hogs", over, "-D", "1s"},
                                         "hogs must be between 0 and " + max + " per CPU (got " + over + ")");
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        problem = refusalProblem({"monitor", "--hogs", over}, "hogs must be between 0 and " + max + " per CPU");
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // SIGINT at any moment of a run with the most hogs per CPU — during their start-up (at once, a few ms in) or
    // once measuring — ends it within the bound, with exit 0, as Ctrl-C does any run.
    void sigintDuringTheStartOfManyHogsEndsSoon_data()
    {
        QTest::addColumn<int>("afterMs");
        QTest::newRow("at once") << 0;
        QTest::newRow("2 ms in") << 2;
        QTest::newRow("10 ms in") << 10;
        QTest::newRow("measuring") << 300;
    }
    void sigintDuringTheStartOfManyHogsEndsSoon()
    {
        QFETCH(int, afterMs);
        // Not -q: the "# stopped by" line is printed without it.
        const QStringList args{
            "latency", "--policy", "fifo", "-p", "80", "--hogs", QString::number(LatencyConfig::kMaxHogs), "-D", "30s"};
        const Interrupted r = interruptAfter(args, afterMs);
        if (r.exitCode == 3)
            RTSCOPE_SKIP(RtPrivilege, "SCHED_FIFO is not permitted here");
        qInfo("SIGINT %d ms after the signals were blocked: exit %d after %lld ms", afterMs, r.exitCode,
              r.exitedAfterMs);
        QVERIFY2(r.exitCode == 0, qPrintable(QString::number(r.exitCode) + ": " + r.err));
        QVERIFY2(r.exitedAfterMs < kHogsExitBoundMs, qPrintable(QString::number(r.exitedAfterMs) + " ms"));
        // Stopped before the run started, or during it: the message says which.
        QVERIFY2(r.err.contains("stopped by Interrupt before the run started") ||
                     r.out.contains("stopped by Interrupt"),
                 qPrintable(r.out + r.err));
    }

    // The controller asks for the most hogs per CPU and closes its end at once: the agent gives up the start-up (or
    // stops the run) and exits within the bound, every thread joined.
    void agentLeavesWhenItsControllerGoesDuringTheStart()
    {
        AgentProcess p;
        QVERIFY(!spawnAgentProcess(agentStdioCommand(), p));
        AgentFrameDecoder d;
        QVERIFY(test::agentCliRead(p.fromAgent, d, AgentFrameType::Hello, 10'000));
        const std::string hello = encodeAgentJsonFrame(AgentFrameType::Hello, agentHello(nullptr));
        nlohmann::json cfg = agentLatencyConfig(1'000'000, 0);
        cfg["hogs"] = LatencyConfig::kMaxHogs;
        const std::string start =
            encodeAgentJsonFrame(AgentFrameType::Start, nlohmann::json{{"experiment", "latency"}, {"config", cfg}});
        const std::string both = hello + start;
        QCOMPARE(::write(p.toAgent, both.data(), both.size()), ssize_t(both.size()));
        const int64_t closedNs = nowNs();
        ::close(p.toAgent);
        int status = 0;
        double ms = -1;
        while (nowNs() - closedNs < 10 * kNsPerSec) {
            if (waitpid(p.pid, &status, WNOHANG) == p.pid) {
                ms = double(nowNs() - closedNs) / 1e6;
                break;
            }
            usleep(1000);
        }
        if (ms < 0)
            (void)reapAgentProcess(p.pid, 100);
        ::close(p.fromAgent);
        qInfo("the agent exited %.1f ms after its controller closed", ms);
        QVERIFY2(ms >= 0 && ms < kHogsExitBoundMs, qPrintable(QString::number(ms)));
        QVERIFY(WIFEXITED(status));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestHogsCli)
#include "tst_hogs_cli.moc"
