// `rtscope latency --policy deadline` end to end (docs/cli.md, --runtime/--deadline): a short run gives samples,
// bad runtime/deadline combinations are refused with exit 2 and the sentence, experiments without SCHED_DEADLINE
// refuse the policy by name, the sweep takes deadline:RUNTIME/DEADLINE, and `rtscope probe` says whether the kernel
// has the fair server. Runs the real binary (RTSCOPE_BINARY from ctest).
#include "tests/common/cli_process.h"

#include "engine/rt/sched_deadline.h"

#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>

using namespace rtscope;
using namespace rtscope::test;

class TestDeadlineCli : public QObject {
    Q_OBJECT
    MaybeSkip m_missing; ///< why SCHED_DEADLINE cannot run here

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope");
        m_missing = withoutDeadline();
    }

    void helpListsTheFlags()
    {
        const QStringList missing = missingFromHelp({"latency"}, {"--runtime", "--deadline", "deadline"});
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(", ")));
    }

    void badCombinationsAreRefused()
    {
        QString p = refusalProblem({"latency", "--policy", "deadline", "--runtime", "2ms", "--deadline", "1ms",
                                    "--period", "1ms", "-D", "300ms"},
                                   "runtime must not exceed deadline (runtime ≤ deadline ≤ period");
        QVERIFY2(p.isEmpty(), qPrintable(p));
        p = refusalProblem({"latency", "--policy", "deadline", "-D", "300ms"},
                           "runtime must be given with policy deadline");
        QVERIFY2(p.isEmpty(), qPrintable(p));
        p = refusalProblem({"latency", "--policy", "deadline", "--runtime", "fast"},
                           "runtime: 'fast' is not a duration");
        QVERIFY2(p.isEmpty(), qPrintable(p));
        p = refusalProblem({"latency", "--policy", "fifo", "-p", "50", "--runtime", "100us"},
                           "runtime applies only to policy deadline, not to fifo");
        QVERIFY2(p.isEmpty(), qPrintable(p));
        p = refusalProblem({"drift", "--policy", "deadline"},
                           "policy must be one of other, batch, idle, fifo, rr (got 'deadline')");
        QVERIFY2(p.isEmpty(), qPrintable(p));
        p = refusalProblem({"sweep", "--settings", "deadline"}, "needs a runtime, e.g. deadline:200us/1ms");
        QVERIFY2(p.isEmpty(), qPrintable(p));
    }

    void shortRunGivesSamples()
    {
        RTSCOPE_SKIP_IF(m_missing);
        const Run r = run({"latency", "--policy", "deadline", "--runtime", "100us", "--deadline", "1ms", "--period",
                           "1ms", "-D", "300ms", "-q"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("Summary: DEADLINE 100.0 us/1.00 ms"), qPrintable(r.out));
        QVERIFY2(r.out.contains("latency (us)  min"), qPrintable(r.out));
    }

    void probeSaysWhetherTheFairServerExists()
    {
        const Run r = run({"probe"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("fair server:"), qPrintable(r.out));
        // "yes: …" exactly when the scheduler row says the kernel has it; the values or why they are not readable.
        const bool yes = r.out.contains(QRegularExpression("fair server:\\s+yes: "));
        QVERIFY2(yes == r.out.contains("(with fair server)"), qPrintable(r.out));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestDeadlineCli)
#include "tst_deadline_cli.moc"
