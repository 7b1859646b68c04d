// `rtscope latency --trace --trace-dat FILE` (docs/cli.md, docs/experiments/anatomy.md "The raw trace"): the flag
// is refused without --trace and under the output rules (a symbolic link, the same file as another output), with
// exit 2 and nothing written; a real traced run writes a trace-cmd .dat that libtracecmd reads back with the run's
// sched_switch events (and `trace-cmd report` too, where it is installed), leaving no temporary file behind.
// The real run is skipped only when tracing cannot work here (TraceSession::probe()).
#include "tests/common/cli_process.h"

#include "engine/rt/cpu_topology.h"
#include "engine/trace/trace_dat.h"
#include "engine/trace/trace_session.h"

#include "tests/common/test_main.h"
#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <QtTest>

using namespace rtscope;
using namespace rtscope::test;

class TestTraceDatCli : public rtscope::test::CliTest {
    Q_OBJECT
private slots:
    void initTestCase() { setUp(); }

    void helpListsTheFlag()
    {
        const QStringList missing = missingFromHelp({"latency"}, {"--trace-dat"});
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(' ')));
    }

    void refusedWithoutTraceOrAgainstTheOutputRules_data()
    {
        addRefusalColumns();
        const QString dat = m_dir.filePath("refused.dat");
        const QString link = m_dir.filePath("link.dat");
        QFile::link(m_dir.filePath("target.dat"), link);
        QTest::newRow("without --trace") << QStringList{"latency", "-D", "100ms", "--trace-dat", dat}
                                         << "trace-dat needs --trace";
        QTest::newRow("same file as --json")
            << QStringList{"latency", "-D", "100ms", "--trace", "--trace-dat", dat, "--json", dat} << "--trace-dat";
        QTest::newRow("a symbolic link") << QStringList{"latency", "-D", "100ms", "--trace", "--trace-dat", link}
                                         << "--trace-dat";
    }
    void refusedWithoutTraceOrAgainstTheOutputRules()
    {
        if (!checkRefusalRow())
            return;
        QVERIFY(!QFile::exists(m_dir.filePath("refused.dat")));
        QVERIFY(!QFile::exists(m_dir.filePath("target.dat")));
    }

    void tracedRunWritesADatThatTraceCmdReads()
    {
        const TraceProbe probe = TraceSession::probe();
        if (!probe.usable)
            RTSCOPE_SKIP(Tracefs, "tracing is not available: " + probe.reason);
        const int cpu = CpuTopology::current().lastUsable();
        QTemporaryDir out;
        QVERIFY(out.isValid());
        const QString dat = out.filePath("run.dat");
        const Run r = run({"latency", "--policy", "other", "--hogs", "2", "-a", QString::number(cpu), "-D", "300ms",
                           "--trace", "--trace-dat", dat});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("Kernel trace: " + dat), qPrintable(r.out));
        // The file and nothing else: the raw sub-buffers were kept in anonymous files, the .dat renamed into place.
        QCOMPARE(QDir(out.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"run.dat"});

        const TraceDatContents c = readTraceDat(dat.toStdString());
        QVERIFY2(c.error.empty(), c.error.c_str());
        QVERIFY(c.cpus > cpu);
        const uint64_t switches = c.byName.count("sched/sched_switch") ? c.byName.at("sched/sched_switch") : 0;
        // 300 ms at 1 ms with two hogs: the measuring thread alone is switched in and out some 600 times.
        QVERIFY2(switches >= 300, qPrintable(QString::number(switches)));

        const QString traceCmd = QStandardPaths::findExecutable("trace-cmd");
        if (traceCmd.isEmpty())
            return;
        const Run report = run({"report", dat}, 30000, traceCmd);
        QCOMPARE(report.exitCode, 0);
        QCOMPARE(uint64_t(report.out.count(" sched_switch: ")), switches);
        QVERIFY(report.out.contains("rtscope-measure")); // the measuring thread, by the name it gave itself
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestTraceDatCli)
#include "tst_trace_dat_cli.moc"
