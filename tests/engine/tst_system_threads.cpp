// ctest: parallel. Its own sleeping FIFO 42 thread, found by tid; parser tests.
// The system's RT threads from /proc: a SCHED_FIFO thread started here is found with its priority and
// affinity; the stat parser copes with hostile thread names; placement reads right.
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/rt/system_threads.h"

#include "tests/common/data_rows.h"
#include "tests/common/sleeping_fifo_thread.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>
#include <unistd.h>

using namespace rtscope;

class TestSystemThreads : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { installWakeSignalHandler(); }

    void parseProcStat_data()
    {
        test::addColumns<QString, bool, QString, int, int, bool, qulonglong>("line", "ok", "name", "policy", "prio",
                                                                             "kthread", "startTime");
        // Real line shapes (fields from proc(5)); the comm of the second has spaces and parentheses.
        const QString tail = " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0";
        QTest::newRow("migration")
            << "18 (migration/0) S 2 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 -100 0 1 0 3 0 0 18446744073709551615 0 0 0 0 "
               "0 0 0 2147483647 0 0 0 0 17 0 99 1 0 0 0 0 0 0 0 0 0 0 0"
            << true << "migration/0" << 1 << 99 << true << qulonglong(3);
        QTest::newRow("comm with ) (")
            << "4242 (a) (b c) R 1 4242 4242 0 -1 4194304 0 0 0 0 0 0 0 0 20 5 1 0 987654321 0 0 0 0 0 0 0 0 0 0 0 0 "
               "0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0"
            << true << "a) (b c" << 0 << 0 << false << qulonglong(987654321);
        QTest::newRow("truncated") << "12 (x) S 1 2 3" << false << "" << 0 << 0 << false << qulonglong(0);
        QTest::newRow("no parens") << "12 x S" + tail << false << "" << 0 << 0 << false << qulonglong(0);
        QTest::newRow("empty") << "" << false << "" << 0 << 0 << false << qulonglong(0);
        QTest::newRow("garbage numbers")
            << "1 (x) S a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m" << false << ""
            << 0 << 0 << false << qulonglong(0);
    }
    void parseProcStat()
    {
        QFETCH(QString, line);
        QFETCH(bool, ok);
        SystemThread t;
        QCOMPARE(rtscope::parseProcStat(line.toStdString(), t), ok);
        if (!ok)
            return;
        QFETCH(QString, name);
        QFETCH(int, policy);
        QFETCH(int, prio);
        QFETCH(bool, kthread);
        QCOMPARE(QString::fromStdString(t.name), name);
        QCOMPARE(t.kernelPolicy, policy);
        QCOMPARE(t.rtPriority, prio);
        QCOMPARE(t.kernelThread, kthread);
        QFETCH(qulonglong, startTime);
        QCOMPARE(qulonglong(t.startTime), startTime); // the identity of a thread for the doctor (ThreadIdentity)
    }

    void findsAFifoThreadStartedHere()
    {
        const SystemProbe probe = probeSystem();
        RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(probe));
        RtThread t;
        const ThreadSpec spec = rtscope::test::startSleepingFifo(t, probe, "rtscope-probe42");
        if (QTest::currentTestFailed())
            return;
        const auto threads = listSystemThreads(true);
        auto it = std::find_if(threads.begin(), threads.end(), [&](const SystemThread& x) { return x.tid == t.tid(); });
        QVERIFY2(it != threads.end(), "the FIFO thread is missing from the listing");
        QCOMPARE(it->policy, std::string("FIFO"));
        QCOMPARE(it->rtPriority, 42);
        QCOMPARE(it->allowedCpus, std::to_string(spec.cpu));
        QCOMPARE(it->pid, getpid());
        QCOMPARE(QString::fromStdString(it->chrtCommand()), QString("chrt -f -p 42 %1").arg(t.tid()));
        QCOMPARE(QString::fromStdString(it->tasksetCommand()),
                 QString("taskset -p -c %1 %2").arg(spec.cpu).arg(t.tid()));
        const std::string place = describePlacement(threads, Policy::Fifo, 80);
        QVERIFY2(place.find("FIFO 80: above") == 0, place.c_str());
        t.stop();
    }

    void placement()
    {
        std::vector<SystemThread> ts(3);
        ts[0].name = "irq/9-acpi";
        ts[0].kernelPolicy = 1;
        ts[0].rtPriority = 50;
        ts[1].name = "migration/1";
        ts[1].kernelPolicy = 1;
        ts[1].rtPriority = 99;
        ts[2].name = "ksoftirqd/0";
        QCOMPARE(
            describePlacement(ts, Policy::Fifo, 80),
            std::string("FIFO 80: above 1 RT thread (highest: irq/9-acpi at 50), below 1 (lowest: migration/1 at 99)"));
        QCOMPARE(describePlacement(ts, Policy::Other, 0),
                 std::string("OTHER: below all 2 real-time threads (any RT thread preempts it)"));
        QVERIFY(describePlacement(ts, Policy::Fifo, 50).find("level with 1") != std::string::npos);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestSystemThreads)
#include "tst_system_threads.moc"
