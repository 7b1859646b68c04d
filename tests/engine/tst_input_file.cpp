// ctest: parallel. File-type refusals; FIFO made in a temp dir.
// Only a regular file is read (engine/util/input_file.h): a FIFO, a device, a directory is refused at once with a
// sentence naming what it is. Had open() blocked on the FIFO, the guard below would open its other end after a few
// seconds to let it return, and the test fails instead of hanging the suite.
#include "engine/presets/preset.h"
#include "engine/recording/recording_reader.h"
#include "engine/util/input_file.h"

#include "tests/common/data_rows.h"
#include "tests/common/fifo_guard.h"
#include "tests/common/test_main.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

using namespace rtscope;
using rtscope::test::FifoGuard;

namespace {

class NoVisitor final : public RecordingVisitor {};

} // namespace

class TestInputFile : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void aRegularFileIsRead()
    {
        const QString path = m_dir.filePath("f.txt");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("hello");
        f.close();
        std::string text, why;
        QVERIFY2(readRegularFile(path.toStdString(), 5, text, why), why.c_str());
        QCOMPARE(text, std::string("hello"));
        QVERIFY(!readRegularFile(path.toStdString(), 4, text, why));
        QVERIFY2(why.find("is larger than 4 bytes") != std::string::npos, why.c_str());
        const UniqueFd fd = openRegularFile(path.toStdString(), why);
        QVERIFY(fd);
        QCOMPARE(::fcntl(fd.get(), F_GETFL) & O_NONBLOCK, 0); // blocking again for the reader
    }

    void whatIsNoRegularFileIsNamed_data()
    {
        test::addRows<QString, QString>(
            {"path", "kind"},
            {{"directory", "/tmp", "is a directory, not a regular file"},
             {"character device", "/dev/null", "is a character device, not a regular file"},
             {"missing", "/nonexistent/x", "cannot open '/nonexistent/x': No such file or directory"}});
    }
    void whatIsNoRegularFileIsNamed()
    {
        QFETCH(QString, path);
        QFETCH(QString, kind);
        std::string why;
        QVERIFY(!openRegularFile(path.toStdString(), why));
        QVERIFY2(QString::fromStdString(why).contains(kind), why.c_str());
    }

    // Each reader of the engine, given a FIFO: a sentence, not a wait for a writer.
    void aFifoIsRefusedByEveryReader_data()
    {
        test::addRows<QString>("reader",
                               {{"openRegularFile", "open"}, {"recording", "recording"}, {"preset", "preset"}});
    }
    void aFifoIsRefusedByEveryReader()
    {
        QFETCH(QString, reader);
        const QString path = m_dir.filePath("fifo-" + reader + ".json");
        FifoGuard guard(path);
        QVERIFY(guard.made());
        std::string why;
        if (reader == "open") {
            QVERIFY(!openRegularFile(path.toStdString(), why));
        } else if (reader == "recording") {
            NoVisitor visitor;
            const RecordingReadResult r = readRecordingFile(path.toStdString(), visitor);
            QVERIFY(!r.ok);
            why = r.error;
        } else {
            const PresetParseResult r = loadPreset(path.toStdString());
            QVERIFY(!r.preset);
            for (const std::string& e : r.errors)
                why += e;
        }
        QVERIFY2(!guard.finish(), "the reader blocked in open() until a writer came");
        QVERIFY2(why.find("is a FIFO (named pipe), not a regular file") != std::string::npos, why.c_str());
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestInputFile)
#include "tst_input_file.moc"
