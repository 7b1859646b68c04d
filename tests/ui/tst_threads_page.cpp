// ctest: parallel. /proc thread listing, finds its own sleeping FIFO 42 thread.
// The RT-threads page: a SCHED_FIFO thread started here is found (name, priority, affinity) in the list the page
// reads from /proc off the GUI thread, with the exact chrt and taskset lines that reproduce it; its standing against
// "your" priority, the filter, the copy to the clipboard, and the join on Stop.
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "tests/common/probed_test.h"
#include "tests/common/thread_census.h"
#include "ui/workbench/threads/thread_list_reader.h"
#include "ui/workbench/threads/threads_controls.h"
#include "ui/workbench/threads/threads_model.h"
#include "ui/workbench/threads/threads_page.h"

#include "tests/common/sleeping_fifo_thread.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QGuiApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>

#include <QtTest>

#include <nlohmann/json.hpp>

#include <unistd.h>

using namespace rtscope;

namespace {

int viewRowOf(const ThreadsPage& page, pid_t tid)
{
    const int row = page.threadsModel()->rowOf(tid);
    if (row < 0)
        return -1;
    return page.filterModel()->mapFromSource(page.threadsModel()->index(row, 0)).row();
}

QVariant raw(const ThreadsPage& page, pid_t tid, int column)
{
    const ThreadsModel& m = *page.threadsModel();
    return m.data(m.index(m.rowOf(tid), column), ThreadsModel::RawValueRole);
}

} // namespace

class TestThreadsPage : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

private slots:
    void initTestCase() { m_probe = rtscope::test::probeWithWakeSignal(); }

    void findsAFifoThreadAndGivesItsCommands()
    {
        RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe));
        RtThread t;
        const ThreadSpec spec = rtscope::test::startSleepingFifo(t, m_probe, "rtscope-tprio42");
        if (QTest::currentTestFailed())
            return;

        ThreadsPage page(m_probe);
        page.resize(1400, 900);
        QAbstractItemModelTester tester(page.threadsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.show(); // the first look reads the list
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QTRY_VERIFY(page.reader()->reads() >= 1);
        const pid_t tid = t.tid();
        QVERIFY2(page.threadsModel()->rowOf(tid) >= 0, "the FIFO thread started here is not listed");
        QCOMPARE(raw(page, tid, ThreadsModel::Name).toString(), QString("rtscope-tprio42"));
        QCOMPARE(raw(page, tid, ThreadsModel::Policy).toString(), QString("FIFO"));
        QCOMPARE(raw(page, tid, ThreadsModel::Priority).toInt(), 42);
        QCOMPARE(raw(page, tid, ThreadsModel::Cpus).toString(), QString::number(spec.cpu));
        QCOMPARE(raw(page, tid, ThreadsModel::Pid).toInt(), int(getpid()));

        // The exact lines that reproduce it.
        QVERIFY(page.selectThread(tid));
        const int row = viewRowOf(page, tid);
        const QString chrt = QString("chrt -f -p 42 %1").arg(tid);
        const QString taskset = QString("taskset -p -c %1 %2").arg(spec.cpu).arg(tid);
        QCOMPARE(page.chrtLine(row), chrt);
        QCOMPARE(page.tasksetLine(row), taskset);
        QVERIFY(page.copyChrt());
        QCOMPARE(QGuiApplication::clipboard()->text(), chrt);
        QVERIFY(page.copyTaskset());
        QCOMPARE(QGuiApplication::clipboard()->text(), taskset);

        // Its standing against your thread, and the engine's placement sentence.
        page.threadsControls()->setReference(Policy::Fifo, 80);
        emit page.threadsControls()->edited();
        QCOMPARE(page.threadsModel()->standing(page.threadsModel()->thread(page.threadsModel()->rowOf(tid))),
                 ThreadsModel::Standing::YoursPreempts);
        QVERIFY(page.placementText().startsWith("FIFO 80: above"));
        page.threadsControls()->setReference(Policy::Fifo, 10);
        emit page.threadsControls()->edited();
        QCOMPARE(page.threadsModel()->standing(page.threadsModel()->thread(page.threadsModel()->rowOf(tid))),
                 ThreadsModel::Standing::PreemptsYours);
        page.threadsControls()->setReference(Policy::Other, 0);
        emit page.threadsControls()->edited();
        QVERIFY(page.placementText().startsWith("OTHER: below all"));

        // Filtering by name keeps exactly it; by policy, every FIFO thread and no other.
        page.setFilterText("tprio42");
        QCOMPARE(page.filterModel()->rowCount(), 1);
        QCOMPARE(viewRowOf(page, tid), 0);
        page.setFilterText("^fifo$");
        QVERIFY(page.filterModel()->rowCount() >= 1);
        for (int r = 0; r < page.filterModel()->rowCount(); ++r)
            QCOMPARE(page.filterModel()->index(r, ThreadsModel::Policy).data().toString(), QString("FIFO"));
        page.setFilterText("[unclosed"); // not a valid expression: matched literally, no crash
        QCOMPARE(page.filterModel()->rowCount(), 0);
        page.setFilterText(QString());
        QCOMPARE(page.filterModel()->rowCount(), page.threadsModel()->rowCount());

        QVERIFY(t.stop());
    }

    void readsOffTheGuiThreadAndStopJoins()
    {
        ThreadsPage page(m_probe);
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        QVERIFY(page.start());
        QVERIFY(page.isRunning());
        // The result arrives later, through the event loop: the read ran elsewhere.
        QCOMPARE(page.reader()->reads(), 0);
        QTRY_VERIFY(page.reader()->reads() >= 1);
        QVERIFY(page.threadsModel()->rowCount() > 0); // migration/N at least
        QVERIFY(page.reader()->lastReadMs() > 0);
        QVERIFY(page.readNow());
        page.stop();
        QVERIFY(!page.isRunning());
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        QCOMPARE(running.count(), 2);
        // Every listed thread is either not SCHED_OTHER or interrupt-related.
        for (const SystemThread& t : page.threadsModel()->threads())
            QVERIFY2(t.kernelPolicy != 0 || t.interruptRelated, t.name.c_str());
    }

    void yourThreadComesFromALatencyConfig()
    {
        ThreadsPage page(m_probe);
        QCOMPARE(page.applyConfigJson({{"policy", "fifo"}, {"priority", 50}}), QStringList());
        QCOMPARE(page.threadsControls()->policy(), Policy::Fifo);
        QCOMPARE(page.threadsControls()->priority(), 50);
        QCOMPARE(page.configJson()["priority"].get<int>(), 50);
        const QStringList problems = page.applyConfigJson({{"policy", "fifo"}, {"priority", 150}});
        QVERIFY2(problems.join(" ").contains("priority must be between 1 and 99"), qPrintable(problems.join(" | ")));
        QCOMPARE(page.threadsControls()->priority(), 50);

        QTemporaryDir dir;
        QSettings settings(dir.filePath("threads.ini"), QSettings::IniFormat);
        page.setFilterText("irq/");
        page.saveSettings(settings);
        ThreadsPage restored(m_probe);
        restored.restoreSettings(settings);
        QCOMPARE(restored.filterModel()->pattern(), QString("irq/"));
        QCOMPARE(restored.threadsControls()->priority(), 50);
        QVERIFY(restored.explanation().contains(QString::fromStdString(m_probe.preemptModel).toHtmlEscaped()) ||
                m_probe.preemptRt);
    }
};

RTSCOPE_TEST_MAIN(TestThreadsPage)
#include "tst_threads_page.moc"
