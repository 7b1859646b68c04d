// `rtscope latency --trace` on a remote target (docs/remote.md, "Tracing on the target"): the agent traces its own
// kernel and its recording stream ends with the run's anatomy blocks, so the controller prints the same anatomy
// section a local `--trace` run prints (the hogs named as culprits, the worst wake-ups with their parts) and its
// --json has the same "anatomy" object; when tracing cannot start on the target, the agent's reason reaches stderr
// in the local run's words, once; --trace-dat, whose raw trace stays on the target, is refused with a target.
#include "tests/common/cli_process.h"
#include "tests/common/traced_run.h"

#include "engine/rt/cpu_topology.h"
#include "engine/trace/trace_session.h"

#include "tests/common/test_main.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::test;

class TestAgentTraceCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    int m_cpu = -1;
    rtscope::test::MaybeSkip m_noTrace; ///< why a traced run cannot happen here

    static QString agentTraceCommand() { return "exec '" + binary() + "' agent --stdio"; }

private slots:
    void initTestCase() { setUpTracedCliTest(binary(), m_dir, m_cpu, m_noTrace); }

    void remoteTracedRunPrintsTheAnatomy()
    {
        RTSCOPE_SKIP_IF(m_noTrace);
        const QString cpu = QString::number(m_cpu), json = m_dir.filePath("remote-traced.json");
        const Run r = run({"latency", "--target-cmd", agentTraceCommand(), "--policy", "other", "--hogs", "4", "-a",
                           cpu, "-D", "1s", "--trace", "--trace-top", "3", "--json", json},
                          60000);
        QVERIFY2(r.exitCode == 0, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(!r.err.contains("tracing is not available"), qPrintable(r.err));
        QVERIFY2(r.out.contains("# target: "), qPrintable(r.out));
        // After the summary, as a local run prints it: the status line, the culprits, the worst wake-ups.
        QVERIFY2(tracingLineProblem(r.out, cpu).isEmpty(), qPrintable(tracingLineProblem(r.out, cpu) + "\n" + r.out));
        const qsizetype who = r.out.indexOf("Who delayed the measuring thread"),
                        worstAt = r.out.indexOf("Worst wake-ups");
        QVERIFY2(who > r.out.indexOf("\nTracing: ") && worstAt > who, qPrintable(r.out));
        // Four SCHED_OTHER spinners on the agent's CPU are what its OTHER measuring thread waits for.
        const QString table = r.out.mid(who, worstAt - who);
        QVERIFY2(
            table.contains(QRegularExpression("\\n  task\\s+rtscope-hog\\s+\\d+\\s+nice 0 \\(OTHER/BATCH\\)\\s+\\d+"
                                              "\\s+[\\d.]+ (ns|us|ms|s)\\s+[\\d.]+ (ns|us|ms|s)")),
            qPrintable(table));
        const QString worst = r.out.mid(worstAt);
        QVERIFY2(worst.contains(QRegularExpression("^Worst wake-ups \\([1-3] of \\d+ analysed, --trace-top 3\\)")),
                 qPrintable(worst));
        QVERIFY2(worst.contains(QRegularExpression("\\n  1\\. [\\d.]+ (ns|us|ms|s) late on CPU " + cpu + ": ")),
                 qPrintable(worst));
        QVERIFY2(worst.contains(QRegularExpression("\\n\\s+scheduling delay\\s+[\\d.]+ (ns|us|ms|s)")),
                 qPrintable(worst));

        // --json: the anatomy object a local run writes, with the wake-ups the text listed.
        const nlohmann::json j = nlohmann::json::parse(readAll(json).toStdString(), nullptr, false);
        QVERIFY(j.is_object());
        const nlohmann::json& a = j["rtscope"]["anatomy"];
        QVERIFY2(a.is_object() && a["status"] == "active", a.dump().c_str());
        QVERIFY2(!a["worst"].empty() && a["worst"].size() <= 3, a.dump().c_str());
        QVERIFY2(a["stats"]["events"].get<uint64_t>() > 0, a["stats"].dump().c_str());
    }

    // -q keeps the summary only, as locally.
    void quietRemoteTracedRunPrintsNoAnatomy()
    {
        RTSCOPE_SKIP_IF(m_noTrace);
        const Run r = run({"latency", "--target-cmd", agentTraceCommand(), "--policy", "other", "-a",
                           QString::number(m_cpu), "-D", "300ms", "--trace", "-q"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("\nSummary: "), qPrintable(r.out));
        QVERIFY2(!r.out.contains("Tracing:") && !r.out.contains("Who delayed"), qPrintable(r.out));
    }

    // The agent cannot trace (it runs as nobody, who may not use tracefs): its reason reaches stderr once, in the
    // words a local run as nobody uses, and the run is measured untraced.
    void unavailableTracingOnTheTargetSaysWhy()
    {
        // The controller runs as nobody from a copy of the binary; its target command starts that same copy (the
        // shell's parent is the controller), so the agent is nobody's too.
        const QStringList common{"--policy", "other", "-D", "300ms", "--trace"};
        MaybeSkip skip;
        const Run local = runWithoutRtPrivilege(QStringList{"latency"} + common, skip);
        RTSCOPE_SKIP_IF(skip);
        const Run remote = runWithoutRtPrivilege(
            QStringList{"latency", "--target-cmd", "exec /proc/$PPID/exe agent --stdio"} + common, skip);
        RTSCOPE_SKIP_IF(skip);
        QVERIFY2(local.exitCode == 0, qPrintable(local.err));
        QVERIFY2(remote.exitCode == 0, qPrintable(QString("exit %1: %2").arg(remote.exitCode).arg(remote.err)));
        const QRegularExpression said("rtscope latency: tracing is not available: \\S.*\\n");
        const QRegularExpressionMatch localSaid = said.match(local.err), remoteSaid = said.match(remote.err);
        QVERIFY2(localSaid.hasMatch(), qPrintable(local.err));
        QVERIFY2(remoteSaid.hasMatch(), qPrintable(remote.err));
        QCOMPARE(remoteSaid.captured(0), localSaid.captured(0));
        QCOMPARE(remote.err.count("tracing is not available"), 1);
        QVERIFY2(remote.err.contains("the run goes on untraced"), qPrintable(remote.err));
        QVERIFY2(remote.out.contains("# target: ") && remote.out.contains("\nSummary: "), qPrintable(remote.out));
        QVERIFY2(!remote.out.contains("Who delayed"), qPrintable(remote.out));
    }

    void traceDatIsRefusedWithATarget()
    {
        const QString problem =
            refusalProblem({"latency", "--target-cmd", agentTraceCommand(), "--trace", "--trace-dat",
                            m_dir.filePath("x.dat"), "-D", "1s"},
                           "trace-dat cannot be used with a remote target: the raw kernel trace stays on the target");
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(!QFile::exists(m_dir.filePath("x.dat")));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestAgentTraceCli)
#include "tst_agent_trace_cli.moc"
