// ctest: parallel. Thread list read through a stdio agent; functional.
// The RT-threads page on a remote target (docs/remote.md, ThreadsRequest): the agent is this build's own
// `rtscope agent --stdio`, another process, started through TargetConnection as the target command. The page lists
// the threads the agent reads (the kernel's per-CPU threads at their real policy), names the agent's machine, keeps
// the last list with "connection lost at …" when the link drops, and reads this computer's /proc again when the
// target is unset.
#include "engine/rt/system_threads.h"
#include "ui/remote/target_connection.h"
#include "ui/workbench/threads/thread_list_reader.h"
#include "ui/workbench/threads/threads_model.h"
#include "ui/workbench/threads/threads_page.h"

#include "tests/common/test_main.h"
#include <QLabel>
#include <QSignalSpy>

#include <QtTest>

#include <unistd.h>

using namespace rtscope;

class TestRemoteThreads : public QObject {
    Q_OBJECT
    SystemProbe m_probe = probeSystem();

    static const SystemThread* remoteThreadsFind(const ThreadsPage& page, const std::string& name)
    {
        for (const SystemThread& t : page.threadsModel()->threads())
            if (t.name == name)
                return &t;
        return nullptr;
    }

private slots:
    void listsTheTargetsThreadsAndKeepsThemWhenLost()
    {
        const QString binary = qEnvironmentVariable("RTSCOPE_BINARY");
        if (binary.isEmpty())
            RTSCOPE_SKIP(Tool, "RTSCOPE_BINARY is not set (run through ctest)");
        QString problem;
        const auto spec = parseTargetText("exec '" + binary + "' agent --stdio", "target", problem);
        QVERIFY2(spec, qPrintable(problem));
        TargetConnection target;
        QSignalSpy opened(&target, &TargetConnection::opened);
        QVERIFY2(target.begin(*spec).isEmpty(), "the agent could not be started");
        QVERIFY(opened.wait(10'000));

        ThreadsPage page(m_probe);
        QVERIFY(page.setTarget(&target));
        QCOMPARE(page.measuredMachine(), target.machine());
        char host[256] = {};
        gethostname(host, sizeof host - 1);
        QVERIFY2(target.machine().startsWith(QString::fromLocal8Bit(host)), qPrintable(target.machine()));
        QVERIFY(page.readNow());
        QTRY_VERIFY_WITH_TIMEOUT(page.targetLists() == 1, 5000);
        QVERIFY(page.reader()->reads() == 0); // nothing was read here

        // The kernel's per-CPU threads, as the agent read them: migration/0 at FIFO 99, ksoftirqd/0 with the policy
        // this machine's /proc gives it (the agent runs here).
        const SystemThread* migration = remoteThreadsFind(page, "migration/0");
        QVERIFY(migration);
        QCOMPARE(migration->policy, std::string("FIFO"));
        QCOMPARE(migration->rtPriority, 99);
        const SystemThread* softirq = remoteThreadsFind(page, "ksoftirqd/0");
        QVERIFY(softirq);
        for (const SystemThread& t : listSystemThreads(true))
            if (t.tid == softirq->tid)
                QCOMPARE(softirq->policy, t.policy);
        QVERIFY(page.placementText().startsWith("FIFO 80: above"));
        QVERIFY(page.placementText().contains("migration/0 at 99"));
        QVERIFY2(page.footerText().startsWith("Threads on " + target.machine()), qPrintable(page.footerText()));
        QVERIFY(page.footerText().contains("for a shell on " + target.machine()));
        const auto* heading = page.findChild<QLabel*>("threadsMachine");
        QVERIFY(heading && heading->text().contains(QString::fromLocal8Bit(host)));
        QVERIFY(page.selectThread(migration->tid));
        QCOMPARE(page.chrtLine(0), QString("chrt -f -p 99 %1").arg(migration->tid));
        QVERIFY(
            page.findChild<QLabel*>("selectedThread")->text().contains("as root on " + QString::fromLocal8Bit(host)));

        // The link drops: the last list stays and the footer says when the connection was lost.
        const int rows = page.threadsModel()->rowCount();
        target.client()->closeSending(); // the agent sees EOF and leaves
        QTRY_VERIFY_WITH_TIMEOUT(!target.isOpen(), 5000);
        QVERIFY(!page.readNow());
        QVERIFY2(page.footerText().startsWith("connection lost at "), qPrintable(page.footerText()));
        QVERIFY(heading->text().contains("connection lost at "));
        QCOMPARE(page.threadsModel()->rowCount(), rows);

        // Without the target: this computer's /proc again.
        QVERIFY(page.setTarget(nullptr));
        QVERIFY(page.measuredMachine().isEmpty());
        QVERIFY(page.readNow());
        QTRY_VERIFY_WITH_TIMEOUT(page.hasList(), 5000);
        QCOMPARE(page.reader()->reads(), 1);
        QVERIFY2(page.footerText().contains("read from /proc"), qPrintable(page.footerText()));
        QVERIFY(heading->isHidden());
        target.close();
    }
};

RTSCOPE_TEST_MAIN(TestRemoteThreads)
#include "tst_remote_threads.moc"
