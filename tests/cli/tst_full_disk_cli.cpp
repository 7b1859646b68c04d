// A full disk does not lose the run (docs/recording-format.md, "A file that simply ends early"): `rtscope latency
// --record` onto a 64 KiB tmpfs that fills a second into the run keeps what was written before as a valid recording,
// cut at a block boundary and ended there, says how many samples and seconds it kept, blames no writer that "fell
// behind", and writes --csv on a healthy disk beside it from the kept part. The tmpfs is mounted here (root) and
// unmounted whatever happens.
#include "tests/common/cli_process.h"
#include "tests/common/test_main.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/mount.h>
#include <unistd.h>

using namespace rtscope::test;

namespace {

// A small tmpfs at a directory of its own, unmounted when it goes.
class SmallTmpfs {
public:
    SmallTmpfs(const QString& dir, const char* size)
        : m_dir(dir)
    {
        QDir().mkpath(dir);
        const QByteArray options = QByteArray("size=") + size;
        m_error = ::mount("tmpfs", dir.toLocal8Bit().constData(), "tmpfs", 0, options.constData()) == 0
                      ? QString()
                      : QString("mount -t tmpfs %1: %2").arg(dir, std::strerror(errno));
    }
    ~SmallTmpfs()
    {
        if (m_error.isEmpty())
            ::umount2(m_dir.toLocal8Bit().constData(), MNT_DETACH);
    }
    const QString& error() const { return m_error; }

private:
    QString m_dir;
    QString m_error;
};

} // namespace

class TestFullDiskCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope");
        if (::geteuid() != 0)
            RTSCOPE_SKIP(Root, "mounting a tmpfs needs root");
        QVERIFY(m_dir.isValid());
    }

    void aFullDiskKeepsTheRunUpToIt()
    {
        const QString full = m_dir.filePath("full");
        const SmallTmpfs tmpfs(full, "64k");
        QVERIFY2(tmpfs.error().isEmpty(), qPrintable(tmpfs.error()));
        const QString recording = full + "/r.rtrec";
        const QString csv = m_dir.filePath("ok.csv");
        // 20 000 samples a second, ~10 bytes each: the 64 KiB fill within the first second of three.
        const Run r = run({"latency", "-i", "50us", "-D", "3s", "-q", "--record", recording, "--csv", csv});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("No space left on device"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("fell behind"), qPrintable(r.err));

        // "…/r.rtrec keeps the run's first 0.812 s: 16235 samples, cut at the last whole block …"
        static const QRegularExpression kept("keeps the run's first ([0-9.]+) s: ([0-9]+) samples, cut at the last "
                                             "whole block written before the failure and ended there");
        const QRegularExpressionMatch m = kept.match(r.err);
        QVERIFY2(m.hasMatch(), qPrintable(r.err));
        const qulonglong samples = m.captured(2).toULongLong();
        QVERIFY2(samples > 0 && m.captured(1).toDouble() > 0, qPrintable(r.err));

        // The kept file is a recording: it replays, with exactly those samples, and says the rest were not kept
        // (exit 1: not the whole run).
        QVERIFY(QFile::exists(recording));
        const QStringList partials = QDir(full).entryList({"*.partial-*"}, QDir::Files | QDir::Hidden);
        QVERIFY2(partials.isEmpty(), qPrintable(partials.join(", ")));
        const Run replay = run({"replay", recording, "-q"});
        QCOMPARE(replay.exitCode, 1);
        QVERIFY2(replay.out.contains(QString(", %1 samples in ").arg(samples)), qPrintable(replay.out));
        QVERIFY2(replay.out.contains("samples not kept"), qPrintable(replay.out));
        QVERIFY2(!replay.err.contains("truncated") && !replay.err.contains("offset"), qPrintable(replay.err));

        // The CSV on the healthy disk: written from what was kept, and says it is not the whole run.
        QVERIFY2(r.err.contains(QString("%1 holds the %2 samples the recording kept").arg(csv).arg(samples)),
                 qPrintable(r.err));
        const QList<QByteArray> lines = readAll(csv).split('\n');
        QVERIFY(lines.size() > 2);
        QVERIFY2(lines[0].startsWith("# rtscope: this CSV does not hold every sample"), lines[0].constData());
        QCOMPARE(lines[1], QByteArray("cpu,seq,deadline_ns,wake_ns,latency_ns,skipped_periods,epoch"));
        QCOMPARE(qulonglong(lines.size() - 3), samples); // the two header lines and the empty string after the last
    }

    // Nothing fits (not even the header): nothing is kept, said so, and the CSV says why it was not written.
    void aDiskFullFromTheStartSaysNothingWasKept()
    {
        const QString full = m_dir.filePath("full-from-the-start");
        const SmallTmpfs tmpfs(full, "4k");
        QVERIFY2(tmpfs.error().isEmpty(), qPrintable(tmpfs.error()));
        QFile filler(full + "/filler");
        QVERIFY(filler.open(QIODevice::WriteOnly));
        while (filler.write(QByteArray(512, 'x')) == 512 && filler.flush())
            ;
        filler.close();
        const QString csv = m_dir.filePath("none.csv");
        const Run r = run({"latency", "-i", "1ms", "-D", "300ms", "-q", "--record", full + "/r.rtrec", "--csv", csv});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("nothing of the run could be kept in " + full + "/r.rtrec"), qPrintable(r.err));
        QVERIFY2(r.err.contains(csv + " was not written: it is made from the run's recording, and nothing of the "
                                      "recording could be kept"),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(csv));
        QVERIFY(!QFile::exists(full + "/r.rtrec"));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestFullDiskCli)
#include "tst_full_disk_cli.moc"
