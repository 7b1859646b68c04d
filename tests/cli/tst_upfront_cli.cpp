// What a run needs is checked before it starts, and what it could not get is said: a sweep or a preset with a
// real-time setting exits 3 up front without real-time privilege (with the sentence `latency` gives), a run on a CPU
// another rtscope measures names that one, and --dma-latency says in the summary, the JSON and the histfile whether
// /dev/cpu_dma_latency was held.
#include "tests/common/cli_process.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_threads.h"

#include "tests/common/test_main.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

using namespace rtscope::test;

namespace {

// The first stderr line that starts with "rtscope CMD: ", without that prefix.
QString sentenceAfter(const QString& err, const QString& command)
{
    const QString prefix = "rtscope " + command + ": ";
    for (const QString& line : err.split('\n'))
        if (line.startsWith(prefix))
            return line.mid(prefix.size());
    return {};
}

// @p r, the run of `rtscope @p command` without real-time privilege, was refused with the sentence `rtscope latency`
// gives a FIFO run without it.
void refusedAsLatencyRefuses(const Run& r, const QString& command)
{
    MaybeSkip skip;
    const Run latency = runWithoutRtPrivilege({"latency", "--policy", "fifo", "-p", "80", "-l", "10"}, skip);
    const QString expected = sentenceAfter(latency.err, "latency");
    QVERIFY2(!expected.isEmpty(), qPrintable(latency.err));
    QCOMPARE(sentenceAfter(r.err, command), expected);
}

bool canHoldDmaLatency()
{
    const int fd = ::open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ::close(fd);
    return true;
}

} // namespace

class TestUpfrontCli : public QObject {
    Q_OBJECT
private slots:
    void sweepWithFifoExitsThreeWithoutPrivilege()
    {
        MaybeSkip skip;
        const Run r = runWithoutRtPrivilege({"sweep", "--settings", "fifo:80", "--each", "100ms"}, skip);
        RTSCOPE_SKIP_IF(skip);
        QVERIFY2(r.exitCode == 3,
                 qPrintable(QString("exit %1; stdout %2; stderr %3").arg(r.exitCode).arg(r.out, r.err)));
        refusedAsLatencyRefuses(r, "sweep");
    }

    void presetRefusesBeforeTheFirstPhaseWithoutPrivilege()
    {
        MaybeSkip skip;
        QElapsedTimer timer;
        timer.start();
        const Run r = runWithoutRtPrivilege({"run", "--preset", "fifo-vs-other", "-q"}, skip);
        const qint64 ms = timer.elapsed();
        RTSCOPE_SKIP_IF(skip);
        QVERIFY2(r.exitCode == 3, qPrintable(QString("exit %1; stderr %2").arg(r.exitCode).arg(r.err)));
        // The first phase (SCHED_OTHER) would take 8 s; nothing of it may run.
        QVERIFY2(ms < 2000, qPrintable(QString("took %1 ms").arg(ms)));
        QVERIFY2(!r.out.contains("== phase"), qPrintable(r.out));
        refusedAsLatencyRefuses(r, "run");
    }

    void aSecondRunOnTheSameCpuNamesTheFirst()
    {
        // Both measure on the default CPU (the highest usable one).
        QProcess first;
        first.start(binary(), {"latency", "-D", "20s", "-q"});
        QVERIFY(first.waitForStarted());
        const auto firstPid = pid_t(first.processId());
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (const rtscope::SystemThread& t : rtscope::threadsNamedOnCpus(
                         rtscope::kMeasuringThreadName, rtscope::CpuTopology::current().online, getpid()))
                    if (t.pid == firstPid)
                        return true;
                return false;
            }(),
            5000);
        const Run second = run({"latency", "-D", "100ms", "-q"});
        ::kill(firstPid, SIGINT);
        first.waitForFinished(5000);
        QVERIFY2(second.exitCode == 0, qPrintable(second.err));
        QVERIFY2(second.err.contains(QString("warning: another rtscope (PID %1) is measuring on CPU").arg(firstPid)),
                 qPrintable(second.err));
    }

    void dmaLatencyHeldIsReported()
    {
        if (!canHoldDmaLatency())
            RTSCOPE_SKIP(Root, "/dev/cpu_dma_latency cannot be opened for writing here (needs root)");
        QTemporaryDir dir;
        const QString hist = dir.filePath("run.hist"), json = dir.filePath("run.json");
        const Run r =
            run({"latency", "--dma-latency", "-l", "50", "-i", "1ms", "-q", "--histfile", hist, "--json", json});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("cpu_dma_latency held at 0 us"), qPrintable(r.out));
        QVERIFY2(readAll(hist).contains("# /dev/cpu_dma_latency set to 0us\n"), readAll(hist).left(300).constData());
        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        QCOMPARE(QString::fromStdString(j["rtscope"]["cpu_dma_latency"].get<std::string>()), QString("held at 0 us"));
    }

    void dmaLatencyNotHeldIsReported()
    {
        QTemporaryDir dir;
        QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadOther |
                                              QFile::WriteOther | QFile::ExeOther);
        const QString hist = dir.filePath("run.hist"), json = dir.filePath("run.json");
        MaybeSkip skip;
        // nobody may not open /dev/cpu_dma_latency (root only): the run goes on, as cyclictest's does, and says so.
        const Run r = runWithoutRtPrivilege(
            {"latency", "--dma-latency", "-l", "50", "-i", "1ms", "-q", "--histfile", hist, "--json", json}, skip);
        RTSCOPE_SKIP_IF(skip);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("cpu_dma_latency NOT held: /dev/cpu_dma_latency: EACCES"), qPrintable(r.out));
        QVERIFY2(r.err.contains("/dev/cpu_dma_latency was NOT held"), qPrintable(r.err));
        const QByteArray h = readAll(hist);
        QVERIFY2(h.contains("# /dev/cpu_dma_latency NOT held: /dev/cpu_dma_latency: EACCES"), h.left(300).constData());
        QVERIFY(!h.contains("set to 0us"));
        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        QVERIFY2(QString::fromStdString(j["rtscope"]["cpu_dma_latency"].get<std::string>()).startsWith("NOT held: "),
                 j["rtscope"]["cpu_dma_latency"].dump().c_str());
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestUpfrontCli)
#include "tst_upfront_cli.moc"
