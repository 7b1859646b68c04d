// While a subcommand runs, its main thread (which waits for Ctrl-C and prints progress) stays off the CPUs the run
// loads (engine/rt/caller_affinity.h says why). Seen from outside, as a user would check with taskset -p: the
// affinity of the rtscope process's main thread, read from /proc while the run lasts. Runs the real binary.
#include "tests/common/cli_process.h"

#include "engine/rt/caller_affinity.h"
#include "engine/rt/system_probe.h"
#include "engine/util/units.h"

#include "tests/common/test_main.h"
#include <QFile>
#include <QProcess>

#include <QtTest>
#include <algorithm>
#include <csignal>

using namespace rtscope;
using namespace rtscope::test;

namespace {

// The affinity of thread @p tid of process @p pid (Cpus_allowed_list in its status), empty if it cannot be read.
std::vector<int> threadAffinity(qint64 pid, qint64 tid, const std::vector<int>& allCpus)
{
    QFile status(QString("/proc/%1/task/%2/status").arg(pid).arg(tid));
    if (!status.open(QIODevice::ReadOnly))
        return {};
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("Cpus_allowed_list:"))
            return parseCpuList(line.mid(18).trimmed().toStdString(), allCpus).value_or(std::vector<int>{});
    return {};
}

QString listText(const std::vector<int>& cpus)
{
    QStringList parts;
    for (int c : cpus)
        parts << QString::number(c);
    return parts.join(',');
}

} // namespace

class TestAffinityCli : public QObject {
    Q_OBJECT
    std::vector<int> m_cpus; ///< this process's CPUs, which the child inherits
    bool m_fifo = false;

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope");
        m_cpus = callerCpus();
        m_fifo = probeSystem().rtAvailable;
    }

    void mainThreadStaysOffTheLoadedCpu_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<bool>("needsFifo");
        // The highest CPU: never CPU 0, which inversion and starve keep for their watchdog.
        const QString cpu = m_cpus.empty() ? QString("1") : QString::number(m_cpus.back());
        QTest::newRow("latency") << QStringList{"latency", "-a", cpu, "--hogs", "1", "-D", "20s"} << false;
        QTest::newRow("drift") << QStringList{"drift", "-a", cpu, "--period", "1ms", "--ticks", "20000"} << false;
        QTest::newRow("sleep-floor") << QStringList{"sleep-floor", "-a", cpu, "--requests", "1ms", "--samples", "20000"}
                                     << false;
        QTest::newRow("locks") << QStringList{"locks", "--kinds", "mutex", "--placement", "one-cpu",
                                              "-a",    cpu,       "-D",    "20s"}
                               << false;
        QTest::newRow("sweep") << QStringList{"sweep", "-a", cpu, "--settings", "other", "--each", "20s", "--hogs", "1"}
                               << false;
        QTest::newRow("inversion") << QStringList{"inversion", "-a", cpu, "-D", "20s"} << true;
        QTest::newRow("starve") << QStringList{"starve", "-a", cpu, "--burst", "50ms", "--gap", "1s", "--bursts", "10"}
                                << true;
    }
    void mainThreadStaysOffTheLoadedCpu()
    {
        QFETCH(QStringList, args);
        QFETCH(bool, needsFifo);
        if (m_cpus.size() < 2)
            RTSCOPE_SKIP(Cpus, "needs two CPUs: one loaded, one for the main thread");
        if (needsFifo && !m_fifo)
            RTSCOPE_SKIP(RtPrivilege, "needs SCHED_FIFO");
        const int loaded = m_cpus.back();
        std::vector<int> expected = m_cpus;
        expected.erase(std::remove(expected.begin(), expected.end(), loaded), expected.end());

        QProcess p;
        p.start(binary(), args);
        QVERIFY(p.waitForStarted());
        const qint64 pid = p.processId(); // the main thread's tid is the pid
        std::vector<int> seen;
        // Before the run starts the main thread may use every CPU; once it waits, never the loaded one.
        QTRY_VERIFY2_WITH_TIMEOUT((seen = threadAffinity(pid, pid, m_cpus)) == expected,
                                  qPrintable("main thread on CPUs " + listText(seen) + ", expected " +
                                             listText(expected) + "; stderr: " + p.readAllStandardError()),
                                  5000);
        ::kill(pid_t(pid), SIGINT);
        QVERIFY(p.waitForFinished(5000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(QString::fromUtf8(p.readAllStandardOutput()).contains("stopped by Interrupt"));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestAffinityCli)
#include "tst_affinity_cli.moc"
