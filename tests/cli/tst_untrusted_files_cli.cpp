// ctest: parallel. Escaping and refusal checks; 2 s and 5 s bounds only guard hangs.
// Files a user is handed, through the real binary: a recording or a preset whose texts carry terminal escape
// sequences prints none of them raw; a small recording that asks for 128 threads with the largest histogram is
// refused with exit code 2 and a sentence, at once; Ctrl-C stops a long replay within a bound, with exit code 1.
#include "engine/util/clock.h"
#include "tests/common/cli_process.h"
#include "tests/common/recording_bytes.h"

#include "tests/common/test_main.h"
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <QtTest>

#include <csignal>

using namespace rtscope::test;
using rtscope::kNsPerMs;

namespace {

constexpr int64_t kT0 = RecordingBytes::kStartNs;

// Everything a hostile file puts in a text: OSC window title ended by BEL, clear screen, a C1 CSI, a lone byte.
const std::string kHostile = "\x1b]0;pwned\x07\x1b[2J\xc2\x9b"
                             "31m\xff";

void writeFile(const QString& path, const std::string& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes.data(), qint64(bytes.size())), qint64(bytes.size()));
}

struct RawRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

RawRun runRaw(const QStringList& args, int timeoutMs = 30000)
{
    QProcess p;
    p.start(binary(), args);
    RawRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// The first byte a terminal would act on: a C0 control other than the line feed, DEL, a C1 control (U+0080–U+009F),
// or bytes that are not UTF-8 at all. -1 when there is none.
int firstControl(const QByteArray& bytes)
{
    for (int i = 0; i < bytes.size(); ++i) {
        const auto c = uint8_t(bytes[i]);
        if ((c < 0x20 && c != '\n') || c == 0x7f)
            return i;
    }
    const QString text = QString::fromUtf8(bytes);
    if (text.toUtf8() != bytes)
        return 0;
    for (int i = 0; i < text.size(); ++i)
        if (text[i].unicode() >= 0x80 && text[i].unicode() <= 0x9f)
            return i;
    return -1;
}

} // namespace

class TestUntrustedFilesCli : public rtscope::test::CliTest {
    Q_OBJECT
private slots:
    void initTestCase() { setUp(); }

    void replayPrintsNoTerminalEscapes()
    {
        RecordingBytes b({1}, nlohmann::json::object(), "board" + kHostile, "rtscope latency" + kHostile);
        b.marker(kT0, 0, "start: OTHER" + kHostile);
        b.samples(0, 0, kT0, 100);
        writeFile(path("escapes.rtrec"), b.end(kT0 + 200 * rtscope::kNsPerMs));
        const RawRun r = runRaw({"replay", path("escapes.rtrec")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(firstControl(r.out) < 0, r.out.toPercentEncoding(" #:()/.,-_\n").constData());
        QVERIFY2(firstControl(r.err) < 0, r.err.toPercentEncoding(" #:()/.,-_\n").constData());
        // The texts are there, escaped: the host, the command and the marker label.
        // (A JSON header cannot hold the lone 0xff: it reaches the file as U+FFFD, which is printable.)
        QVERIFY2(r.out.contains("on board\\x1b]0;pwned\\x07\\x1b[2J\\xc2\\x9b31m"), r.out.constData());
        QVERIFY(r.out.contains("# started by: rtscope latency\\x1b]0;pwned\\x07"));
        QVERIFY(r.out.contains("start: OTHER\\x1b]0;pwned\\x07\\x1b[2J\\xc2\\x9b31m\\xff"));
    }

    void aPresetPrintsNoTerminalEscapes()
    {
        const nlohmann::json preset = {
            {"title", "drift" + std::string("\x1b]0;pwned\x07")},
            {"description", "lesson \x1b[2J\x1b[H text"},
            {"experiment", "drift"},
            {"labels", {"naive\x1b[31m"}},
            {"phases", {{{"period_ns", 1000000}, {"ticks", 30}, {"methods", {"naive", "abs"}}}}}};
        QFile f(path("escapes.json"));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QByteArray::fromStdString(preset.dump(2)));
        f.close();
        const RawRun r = runRaw({"run", "--preset", path("escapes.json"), "-q"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(firstControl(r.out) < 0, r.out.toPercentEncoding(" #:()/.,-_\n=").constData());
        QVERIFY(r.out.contains("drift\\x1b]0;pwned\\x07"));
        QVERIFY(r.out.contains("# lesson \\x1b[2J\\x1b[H text"));
        QVERIFY(r.out.contains("== phase 1 of 1: naive\\x1b[31m =="));
        // A refused preset's sentences quote the file (an unknown key here): escaped as well.
        QFile bad(path("bad.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly | QIODevice::Truncate));
        bad.write("{\"title\": \"t\", \"\\u001b[2Jkey\": 1, \"experiment\": \"drift\", \"phases\": [{}]}");
        bad.close();
        const RawRun refused = runRaw({"run", "--preset", path("bad.json")});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(firstControl(refused.err) < 0, refused.err.constData());
        QVERIFY2(refused.err.contains("\\x1b[2Jkey"), refused.err.constData());
    }

    void aHugeThreadTimesHistogramRecordingIsRefusedAtOnce()
    {
        std::vector<int> cpus;
        for (int i = 0; i < 128; ++i)
            cpus.push_back(i);
        RecordingBytes b(cpus, {{"histogram_us", 1'000'000}});
        b.samples(3, 0, kT0, 20);
        const std::string bytes = b.end(kT0 + 30 * rtscope::kNsPerMs);
        QVERIFY(bytes.size() < 8 * 1024);
        writeFile(path("huge.rtrec"), bytes);
        QElapsedTimer t;
        t.start();
        const RawRun r = runRaw({"replay", "-q", path("huge.rtrec")}, 20000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains("header block: cpus: 128 measuring threads × histogram_us 1000000 = 128000000 exact 1 "
                                "us histogram bins; a replay holds at most 16777216 bins"),
                 r.err.constData());
        QVERIFY2(t.elapsed() < 5000, qPrintable(QString("took %1 ms").arg(t.elapsed())));
    }

    void ctrlCStopsALongReplay_data()
    {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGINT") << int(SIGINT);
        QTest::newRow("SIGTERM") << int(SIGTERM);
    }

    void ctrlCStopsALongReplay()
    {
        QFETCH(int, signal);
        // 30 000 restarts between one and 128 threads, with samples between: seconds of replay even now that a
        // restart costs only the threads it names.
        if (!QFile::exists(path("long.rtrec"))) {
            writeFile(path("long.rtrec"), manyRestartsRecording());
        }
        qint64 afterSignalMs = -1;
        const Run r = runAndInterrupt({"replay", "-q", path("long.rtrec")}, 400, signal, 10000, &afterSignalMs);
        QVERIFY2(r.exitCode == 1, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(r.err.contains("rtscope replay: " + path("long.rtrec") + ": stopped after "), qPrintable(r.err));
        QVERIFY2(r.err.contains(" bytes read) by ") && r.err.contains("; nothing was written"), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
        QVERIFY2(afterSignalMs < 2000, qPrintable(QString("exited %1 ms after the signal").arg(afterSignalMs)));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestUntrustedFilesCli)
#include "tst_untrusted_files_cli.moc"
