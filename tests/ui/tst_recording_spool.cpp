// ctest: parallel. Stale-spool logic in temp dirs and a test-mode cache dir.
// The spools of live runs name their owner, and the spools of an app that was killed are removed at the next start:
// only those whose process is gone or whose PID now belongs to another process, never a live one.
#include "engine/rt/system_probe.h"
#include "ui/app/file_menu.h"
#include "ui/common/latency_source.h"
#include "ui/latency/latency_page.h"
#include "ui/latency/recording_spool.h"
#include "ui/main_window.h"

#include "tests/common/test_main.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <limits>
#include <unistd.h>

using namespace rtscope;

namespace {

// Writes @p bytes bytes into @p path (its folders made); returns how many.
qint64 plant(const QString& path, qint64 bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return -1;
    return f.write(QByteArray(bytes, 'r'));
}

// A spool directory @p dir owned by "@p pid @p start" holding @p bytes bytes of recording; returns its size in all.
qint64 plantSpool(const QString& dir, qint64 pid, uint64_t start, qint64 bytes)
{
    const QByteArray owner = QByteArray::number(pid) + " " + QByteArray::number(qulonglong(start)) + "\n";
    qint64 total = plant(dir + "/run.rtrec", bytes);
    QFile f(dir + "/" + RecordingSpool::kOwnerFile);
    if (!f.open(QIODevice::WriteOnly))
        return -1;
    total += f.write(owner);
    return total;
}

} // namespace

class TestRecordingSpool : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the cache directory is the test's, not the user's
        m_probe = probeSystem();
    }

    void startTimeIsField22OfProcStat()
    {
        const std::optional<uint64_t> self = RecordingSpool::processStartTime(::getpid());
        QVERIFY(self);
        QFile stat("/proc/self/stat");
        QVERIFY(stat.open(QIODevice::ReadOnly));
        const QByteArray line = stat.readAll();
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        QCOMPARE(*self, fields[19].toULongLong());
        QVERIFY(!RecordingSpool::processStartTime(std::numeric_limits<pid_t>::max()));
    }

    void onlyStaleSpoolsAreRemoved()
    {
        QTemporaryDir parent;
        const QString base = parent.filePath("run-");
        const qint64 me = ::getpid();
        const uint64_t started = *RecordingSpool::processStartTime(pid_t(me));
        const qint64 gone = plantSpool(base + "gone01", std::numeric_limits<pid_t>::max(), 1234, 100'000);
        const qint64 deeper = plant(base + "gone01/sub/leftover", 24);
        const qint64 reused = plantSpool(base + "reused", me, started + 1, 3000);
        QVERIFY(plantSpool(base + "live01", me, started, 500) > 0);
        QVERIFY(plant(base + "making/run.rtrec", 700) > 0); // no owner yet: being made, or an older rtscope's
        QVERIFY(plantSpool(parent.filePath("other-gone01"), std::numeric_limits<pid_t>::max(), 1, 10) > 0);
        QVERIFY(gone > 0 && deeper > 0 && reused > 0);

        const RecordingSpool::Cleanup done = RecordingSpool::removeStaleSpools(parent.filePath("run-XXXXXX"));
        QCOMPARE(done.removed, 2);
        QCOMPARE(done.bytes, uint64_t(gone + deeper + reused));
        QCOMPARE(QDir(parent.path()).entryList(QDir::Dirs | QDir::NoDotAndDotDot),
                 (QStringList{"other-gone01", "run-live01", "run-making"}));
        QCOMPARE(QFileInfo(base + "live01/run.rtrec").size(), 500);
    }

    void aLiveSpoolNamesItsOwnerAndTheAppRemovesStaleOnes()
    {
        // A spool left by a killed app, where this app's spools go.
        const QString stale = RecordingSpool::spoolTemplate().replace("XXXXXX", "killed");
        const qint64 bytes = plantSpool(stale, std::numeric_limits<pid_t>::max(), 42, 123'456);
        QVERIFY(bytes > 0);

        auto* latency = new LatencyPage(std::make_unique<LiveLatencySource>(), m_probe);
        MainWindow window(std::vector<ExperimentPage*>{latency}, m_probe, nullptr);
        auto* files = window.fileMenu();
        QVERIFY(files && files->spool());
        QVERIFY(!QFileInfo::exists(stale));
        QTRY_VERIFY2(window.statusBar()->currentMessage().contains("Removed 1 run spool"),
                     qPrintable(window.statusBar()->currentMessage()));
        QVERIFY2(window.statusBar()->currentMessage().contains(QLocale().formattedDataSize(bytes)),
                 qPrintable(window.statusBar()->currentMessage()));

        // This app's own spool says who owns it, and is not stale.
        const QString dir = QFileInfo(files->spool()->path()).absolutePath();
        QFile owner(dir + "/" + RecordingSpool::kOwnerFile);
        QVERIFY(owner.open(QIODevice::ReadOnly));
        QCOMPARE(owner.readAll(), QByteArray::number(qint64(::getpid())) + " " +
                                      QByteArray::number(qulonglong(*RecordingSpool::processStartTime(::getpid()))) +
                                      "\n");
        QCOMPARE(RecordingSpool::removeStaleSpools(RecordingSpool::spoolTemplate()).removed, 0);
        QVERIFY(QFileInfo::exists(dir));
    }
};

RTSCOPE_TEST_MAIN(TestRecordingSpool)
#include "tst_recording_spool.moc"
