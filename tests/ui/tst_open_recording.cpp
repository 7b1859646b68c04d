// File › Open recording… reads the file off the GUI thread: a long recording shows a progress dialog whose bar
// moves while the event loop keeps running, and Cancel ends the reading at once and leaves the page showing what it
// showed before; a recording that reads to its end is shown as a synchronous open would show it.
#include "engine/util/clock.h"
#include "tests/common/latency_window.h"
#include "tests/common/recording_bytes.h"
#include "ui/app/file_menu.h"
#include "ui/common/latency_source.h"
#include "ui/latency/latency_page.h"
#include "ui/main_window.h"
#include "ui/timers/drift_page.h"

#include "tests/common/test_main.h"
#include <QElapsedTimer>
#include <QFile>
#include <QPointer>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>

#include <QtTest>

using namespace rtscope;
using rtscope::test::manyRestartsRecording;
using rtscope::test::RecordingBytes;

namespace {

constexpr int64_t kT0 = RecordingBytes::kStartNs;

void writeFile(const QString& path, const std::string& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes.data(), qint64(bytes.size())), qint64(bytes.size()));
}

std::string smallRecording(int samples)
{
    RecordingBytes b({1});
    b.samples(0, 0, kT0, uint32_t(samples));
    return b.end(kT0 + int64_t(samples + 1) * kNsPerMs);
}

} // namespace

class TestOpenRecording : public QObject {
    Q_OBJECT
    SystemProbe m_probe;
    QTemporaryDir m_dir;
    QString path(const char* name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase()
    {
        m_probe.hostname = "here";
        m_probe.onlineCpus = {0, 1};
        QVERIFY(m_dir.isValid());
        writeFile(path("before.rtrec"), smallRecording(300));
        writeFile(path("after.rtrec"), smallRecording(500));
        writeFile(path("long.rtrec"), manyRestartsRecording());
    }

    void aRecordingOpensInTheBackground()
    {
        test::LatencyWindow w(std::make_unique<ReplayLatencySource>(), m_probe);
        QSignalSpy finished(w.files, &FileMenu::openingFinished);
        QString error;
        QVERIFY2(w.files->openRecordingInBackground(path("after.rtrec"), &error), qPrintable(error));
        QVERIFY(w.files->isOpening());
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.first().first().toBool(), true);
        QVERIFY(!w.files->isOpening());
        QVERIFY(w.latency->isReplay());
        QVERIFY2(w.latency->replayBanner().contains("Replay of after.rtrec") &&
                     w.latency->replayBanner().contains("500 samples"),
                 qPrintable(w.latency->replayBanner()));
    }

    void cancelLeavesThePageAsItWas()
    {
        test::LatencyWindow w(std::make_unique<ReplayLatencySource>(), m_probe);
        w.window->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.window.get()));
        QString error;
        QVERIFY2(w.files->openRecording(path("before.rtrec"), &error), qPrintable(error));
        const QString banner = w.latency->replayBanner();
        QVERIFY(banner.contains("Replay of before.rtrec"));

        QSignalSpy finished(w.files, &FileMenu::openingFinished);
        QVERIFY2(w.files->openRecordingInBackground(path("long.rtrec"), &error), qPrintable(error));
        // A second reading is refused while one goes on.
        QVERIFY(!w.files->openRecordingInBackground(path("after.rtrec"), &error));
        QVERIFY2(error.contains("long.rtrec is being opened"), qPrintable(error));

        // The GUI thread is free: a 20 ms timer keeps firing, and the dialog's bar moves.
        int ticks = 0;
        QTimer tick;
        tick.setInterval(20);
        connect(&tick, &QTimer::timeout, [&] { ++ticks; });
        tick.start();
        QElapsedTimer waited;
        waited.start();
        QPointer<QProgressDialog> dialog;
        QTRY_VERIFY_WITH_TIMEOUT((dialog = w.window->findChild<QProgressDialog*>("openingRecording")) &&
                                     dialog->isVisible() && dialog->value() > 0,
                                 5000);
        QVERIFY2(w.files->isOpening(), "the long recording was read before the dialog could be seen");
        // At least half the ticks a free thread would have had (the dialog shows as soon as Qt estimates the read to
        // outlast its minimum duration, some 50 ms on a fast machine): a thread the reading held would have none.
        const qint64 waitedMs = waited.elapsed();
        QVERIFY2(ticks >= 2 && ticks * 20 * 2 >= waitedMs,
                 qPrintable(QString("%1 timer ticks in %2 ms of reading").arg(ticks).arg(waitedMs)));
        const int firstValue = dialog->value();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->value() > firstValue || !w.files->isOpening(), 5000);
        QVERIFY2(w.files->isOpening(), "the long recording was read before Cancel could be pressed");

        QElapsedTimer sinceCancel;
        sinceCancel.start();
        auto* cancel = dialog->findChild<QPushButton*>();
        QVERIFY(cancel);
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(finished.count() == 1 || finished.wait(2000));
        QVERIFY2(sinceCancel.elapsed() < 2000, qPrintable(QString("%1 ms after Cancel").arg(sinceCancel.elapsed())));
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY(!w.files->isOpening());
        // As it was: the same replay, the same banner; and the app goes on (timers, another open).
        QVERIFY(w.latency->isReplay());
        QCOMPARE(w.latency->replayBanner(), banner);
        QTRY_VERIFY(!dialog || !dialog->isVisible());
        const int ticksThen = ticks;
        QTRY_VERIFY(ticks > ticksThen + 2);
        QVERIFY2(w.files->openRecordingInBackground(path("after.rtrec"), &error), qPrintable(error));
        QVERIFY(finished.wait(10000));
        QVERIFY(w.latency->replayBanner().contains("Replay of after.rtrec"));
    }
};

RTSCOPE_TEST_MAIN(TestOpenRecording)
#include "tst_open_recording.moc"
