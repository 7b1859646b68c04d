// ctest: parallel. One SCHED_OTHER latency run; checks mapped libraries and RSS only.
// The measuring process is small (issue 27, item 15). `rtscope latency` was 100 MiB resident under mlockall (Qt, ICU
// and their data, 8 MiB helper stacks), and a kernel that samples memory (DAMON's kdamond, every 512 ms on the VM of
// docs/BENCHMARKS.md "The far tail") stalled its measuring thread in proportion: p99.9 2.2-2.7x cyclictest's (3 MiB).
// Now `rtscope` maps no Qt library, its helper threads have 1 MiB stacks, and with no command it starts rtscope-gui.
#include "tests/common/cli_process.h"
#include "tests/common/test_main.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

using namespace rtscope::test;

namespace {

// Before the split: 100 MiB (mlockall) or about 40 MiB (no memory lock). Now about 19 MiB under mlockall: the
// binary's code, libstdc++, libc, the 2.5 MiB sample ring and the 3.7 MiB timeline buffer.
constexpr qint64 kMaxResidentKib = 40 * 1024;

qint64 statusKib(qint64 pid, const QByteArray& key)
{
    QFile f(QString("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith(key + ':'))
            return line.mid(key.size() + 1).trimmed().split(' ').value(0).toLongLong();
    return -1;
}

} // namespace

class FootprintCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { RTSCOPE_SKIP_IF(rtscope::test::withoutBinary(binary())); }

    // A running `rtscope latency` maps no Qt or ICU library, and stays under kMaxResidentKib with its memory locked
    // (the same figure cyclictest's -m gives it, so the two measure the same machine).
    void measuringProcessIsSmall()
    {
#ifdef RTSCOPE_SANITIZED
        RTSCOPE_SKIP(Tool, "a sanitizer's shadow memory is resident too");
#endif
        QProcess p;
        p.start(binary(), {"latency", "--policy", "other", "-i", "1ms", "-D", "2s", "-q"});
        QVERIFY(p.waitForStarted());
        const qint64 pid = p.processId();
        // The run is measuring when its measuring thread exists; give it a moment to settle (the collector and
        // the timeline buffer are allocated at start).
        bool measuring = false;
        for (int i = 0; i < 100 && !measuring; ++i) {
            QThread::msleep(20);
            for (const QString& t :
                 QDir(QString("/proc/%1/task").arg(pid)).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
                measuring = measuring ||
                            readAll(QString("/proc/%1/task/%2/comm").arg(pid).arg(t)).startsWith("rtscope-measure");
        }
        QVERIFY2(measuring, "no measuring thread within 2 s");
        QThread::msleep(500);
        const QByteArray maps = readAll(QString("/proc/%1/maps").arg(pid));
        const qint64 rss = statusKib(pid, "VmRSS");
        const qint64 locked = statusKib(pid, "VmLck");
        QVERIFY(p.waitForFinished(20000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY2(!maps.contains("libQt6"), "the headless program maps Qt");
        QVERIFY2(!maps.contains("libicu"), "the headless program maps ICU");
        QVERIFY2(rss > 0, "no VmRSS read");
        QVERIFY2(rss <= kMaxResidentKib, qPrintable(QString("resident %1 KiB (locked %2 KiB), more than %3 KiB")
                                                        .arg(rss)
                                                        .arg(locked)
                                                        .arg(kMaxResidentKib)));
    }

    // With no command, `rtscope` becomes rtscope-gui from its own directory (same process); without one there, it
    // says so and exits 2 instead of crashing or running a command.
    void noCommandNeedsTheDesktopAppBesideIt()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString lone = dir.filePath("rtscope");
        QVERIFY(QFile::copy(binary(), lone));
        QVERIFY(QFile::setPermissions(lone, QFile::permissions(binary())));
        const Run r = run({"--theme", "light"}, 20000, lone);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("cannot start the desktop app " + dir.filePath("rtscope-gui")), qPrintable(r.err));
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(FootprintCli)
#include "tst_footprint_cli.moc"
