// `rtscope deadline` as a user runs it: the admission lesson's table with the kernel's refusal and exit 0, the edf
// lesson's --json with both phases, and bad flags as one sentence with exit 2.
#include "tests/common/cli_process.h"

#include "tests/common/test_main.h"

#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <nlohmann/json.hpp>

using namespace rtscope::test;

class TestDeadlineLabCli : public QObject {
    Q_OBJECT

private slots:
    void admissionRefusalIsTheLessonNotAnError()
    {
        const Run r = run({"deadline", "--lesson", "admission", "--task", "4ms/5ms", "--task", "4ms/5ms", "--task",
                           "4ms/5ms", "--task", "4ms/5ms", "-q"});
        if (r.exitCode == 3)
            RTSCOPE_SKIP(Deadline, "no SCHED_DEADLINE here: " + r.err);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains("REFUSED: ") && r.out.contains("EBUSY"), qPrintable(r.out));
        QVERIFY(r.out.contains("ADMITTED"));
        QVERIFY(r.out.contains("remove"));
    }

    void edfJsonHasBothPhases()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("edf.json");
        const Run r = run({"deadline", "--lesson", "edf", "-D", "300ms", "--json", json, "-q"});
        if (r.exitCode == 3)
            RTSCOPE_SKIP(Deadline, "no SCHED_DEADLINE here: " + r.err);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY(r.out.contains("Phase 1: SCHED_FIFO"));
        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        QCOMPARE(j["experiment"], "deadline");
        QCOMPARE(j["tasks"].size(), size_t(4));
        QVERIFY(j["tasks"][0]["misses"].get<int>() > 0);
        QVERIFY(j["deadline_phase_ran"].get<bool>());
        // The deadline phase's counts are tst_deadline_experiment's to judge; here: they are reported per task.
        QVERIFY(j["tasks"][2]["jobs"].get<int>() > 0 && j["tasks"][2].contains("misses"));
    }

    // Ctrl-C in phase 1: phase 2 never ran, and the summary says so instead of "0 jobs, deadline misses 0".
    void anInterruptedEdfSaysPhaseTwoDidNotRun()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("edf.json");
        const Run r = runAndInterrupt({"deadline", "--lesson", "edf", "-D", "5s", "--json", json}, 1000, SIGINT);
        if (r.exitCode == 3)
            RTSCOPE_SKIP(Deadline, "no SCHED_DEADLINE here: " + r.err);
        QVERIFY2(r.exitCode == 0, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err + r.out)));
        const QString phase2 = r.out.mid(r.out.indexOf("Phase 2:"));
        QVERIFY2(phase2.contains("the deadline phase did not run: the run was stopped"), qPrintable(r.out));
        QVERIFY2(!phase2.contains("jobs") && !phase2.contains("contract kept"), qPrintable(phase2));
        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        QVERIFY(!j["deadline_phase_ran"].get<bool>());
    }

    void badFlagsAreOneSentenceEach()
    {
        Run r = run({"deadline", "--lesson", "fifo"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("lesson must be admission, isolation or edf (got 'fifo')"), qPrintable(r.err));
        r = run({"deadline", "--task", "2ms/1ms"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("task 1 runtime must not exceed task 1 deadline"), qPrintable(r.err));
        // One sentence for a task that does not read, not three more about the zeros it left.
        r = run({"deadline", "--task", "xyz"});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.trimmed().split('\n').size(), 1);
        QVERIFY2(r.err.contains("task: 'xyz' is not RUNTIME/PERIOD"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("got 0 ns"), qPrintable(r.err));
        r = run({"deadline", "--lesson", "isolation", "--runaway", "10ms"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("runaway: '10ms' is not RUNTIME/PERIOD"), qPrintable(r.err));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestDeadlineLabCli)
#include "tst_deadline_lab_cli.moc"
