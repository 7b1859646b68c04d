// ctest: parallel. Fake device file in a temp dir, never the real one.
// DmaLatencyHold says what a run had: "held at 0 us" while and after it held the device (a run reports once it has
// let go of it), "NOT held: why" when the device could not be opened.
#include "engine/rt/dma_latency.h"

#include "tests/common/test_main.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace rtscope;

class TestDmaLatency : public QObject {
    Q_OBJECT
private slots:
    void heldIsStillReportedAfterRelease()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("cpu_dma_latency");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        DmaLatencyHold hold(path.toStdString());
        QCOMPARE(QString::fromStdString(hold.note()), QString());
        QVERIFY(hold.acquire(0));
        QVERIFY(hold.held());
        hold.release();
        QVERIFY(!hold.held());
        QVERIFY(hold.acquired());
        QCOMPARE(QString::fromStdString(hold.note()), QString("held at 0 us"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray(4, '\0')); // the binary s32 the PM QoS interface takes
    }

    void notHeldSaysWhy()
    {
        DmaLatencyHold hold("/nonexistent-rtscope-dir/cpu_dma_latency");
        QVERIFY(!hold.acquire(0));
        QVERIFY(!hold.held());
        QVERIFY(!hold.acquired());
        const QString note = QString::fromStdString(hold.note());
        QVERIFY2(note.startsWith("NOT held: /nonexistent-rtscope-dir/cpu_dma_latency: ENOENT"), qPrintable(note));
        hold.release();
        QCOMPARE(QString::fromStdString(hold.note()), note);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestDmaLatency)
#include "tst_dma_latency.moc"
