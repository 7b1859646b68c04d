// Every stop signal (kStopSignals: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2) stops `rtscope replay` in every
// phase, soon, with exit 1 and nothing written (docs/cli.md): while the header sets up 128 threads' histograms, while
// the blocks are read, after the last block (the threads' figures merged, the --histfile text), and while the --csv
// is written. Each run is watched from outside to send the signal inside its phase: the process has blocked the stop
// signals (SigBlk in /proc/PID/status: its main() runs), it has read the whole file (rchar in /proc/PID/io), or the
// CSV's temporary exists. The recordings are made here, large enough that each phase lasts seconds without the fix.
#include "tests/common/cli_process.h"
#include "tests/common/recording_bytes.h"
#include "tests/common/test_main.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <functional>
#include <nlohmann/json.hpp>

using namespace rtscope;
using namespace rtscope::test;

namespace {

// A field of /proc/@p pid/@p file ("status" "SigBlk", "io" "rchar") as text, empty when absent.
QByteArray procField(qint64 pid, const char* file, const QByteArray& field)
{
    QFile f(QString("/proc/%1/%2").arg(pid).arg(file));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith(field + ":"))
            return line.mid(field.size() + 1).trimmed();
    return {};
}

// Its main() has blocked the stop signals: a signal now is taken by rtscope, not by the default action.
bool stopSignalsTaken(qint64 pid)
{
    return procField(pid, "status", "SigBlk").toULongLong(nullptr, 16) != 0;
}

struct Stopped {
    int exitCode = -1; ///< -1: crashed, killed, or never reached its phase
    qint64 afterMs = -1;
    QString err;
    QString problem; ///< why the run could not be watched
};

// Starts rtscope with @p args, waits until @p inPhase() (polled every millisecond, up to 30 s), sends @p signal and
// waits up to 10 s for the exit.
Stopped stopInPhase(const QStringList& args, int signal, const std::function<bool(qint64 pid)>& inPhase)
{
    Stopped s;
    QProcess p;
    p.start(binary(), args);
    if (!p.waitForStarted()) {
        s.problem = "did not start";
        return s;
    }
    QElapsedTimer waited;
    waited.start();
    while (p.state() == QProcess::Running && !inPhase(p.processId()) && waited.elapsed() < 30000)
        p.waitForFinished(1);
    if (p.state() != QProcess::Running) {
        s.problem = "ended before its phase: " + QString::fromUtf8(p.readAllStandardError());
        return s;
    }
    if (waited.elapsed() >= 30000) {
        p.kill();
        p.waitForFinished();
        s.problem = "did not reach its phase within 30 s";
        return s;
    }
    QElapsedTimer since;
    since.start();
    ::kill(pid_t(p.processId()), signal);
    const bool exited = p.waitForFinished(10000);
    s.afterMs = since.elapsed();
    if (!exited) {
        p.kill();
        p.waitForFinished();
    }
    s.exitCode = exited && p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    s.err = QString::fromUtf8(p.readAllStandardError());
    return s;
}

} // namespace

class TestReplayStopCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_long; ///< one thread, ~40 MB of samples: seconds of blocks and of CSV
    QString m_wide; ///< 128 threads × 131 072 µs bins (the replay limit, 2^24 bins) and ~12 MB of samples
    qint64 m_wideBytes = 0;
    QString lastErr; ///< the last check()'s stderr

    QString write(const char* name, const std::string& bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()))
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

    // Runs one phase with one signal and checks the promise: exit 1 within the bound, a sentence naming the signal,
    // and not a file in the output directory (neither an output nor a temporary).
    void check(const QStringList& args, const QString& outDir, const std::function<bool(qint64)>& inPhase,
               qint64 boundMs = 1000)
    {
        QFETCH(int, signal);
        const Stopped s = stopInPhase(args, signal, inPhase);
        lastErr = s.err;
        qInfo("stopped %lld ms after %s: %s", s.afterMs, strsignal(signal), qPrintable(s.err.trimmed()));
        QVERIFY2(s.problem.isEmpty(), qPrintable(s.problem));
        QVERIFY2(s.exitCode == 1, qPrintable(QString("exit %1 %2 ms after %3; stderr: %4")
                                                 .arg(s.exitCode)
                                                 .arg(s.afterMs)
                                                 .arg(strsignal(signal))
                                                 .arg(s.err)));
        // The promise is ~10 ms between two looks; the bound leaves room for a loaded machine and the process's exit.
        QVERIFY2(s.afterMs < boundMs,
                 qPrintable(QString("stopped %1 ms after %2").arg(s.afterMs).arg(strsignal(signal))));
        QVERIFY2(s.err.contains(QString("by %1; nothing was written").arg(strsignal(signal))), qPrintable(s.err));
        const QStringList left = QDir(outDir).entryList(QDir::Files | QDir::Hidden | QDir::System);
        QVERIFY2(left.isEmpty(), qPrintable("left behind: " + left.join(", ")));
    }

    QString outDir(const QString& name)
    {
        const QString dir = m_dir.filePath(name);
        QDir(dir).removeRecursively();
        QDir().mkpath(dir);
        return dir;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope");
        QVERIFY(m_dir.isValid());
        RecordingBytes longRun({1});
        int64_t t = RecordingBytes::kStartNs;
        for (int b = 0; b < 70; ++b, t += 65536 * int64_t(1'000'000))
            longRun.samples(0, uint64_t(b) * 65536, t, 65536);
        m_long = write("long.rtrec", longRun.end(t));
        std::vector<int> cpus;
        for (int i = 0; i < 128; ++i)
            cpus.push_back(i);
        RecordingBytes wide(cpus, {{"cpus", cpus}, {"histogram_us", 131072}});
        t = RecordingBytes::kStartNs;
        for (int b = 0; b < 128; ++b, t += 10000 * int64_t(1'000'000))
            wide.samples(uint16_t(b), 0, t, 10000);
        m_wide = write("wide.rtrec", wide.end(t));
        m_wideBytes = QFileInfo(m_wide).size();
    }

    void eachPhase_data()
    {
        QTest::addColumn<int>("signal");
        for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2})
            QTest::newRow(sigabbrev_np(sig)) << sig;
    }

    // The header sets up every thread's figures: 128 histograms of 131 072 bins (128 MiB of counters), ~0.5 s on an
    // idle machine and seconds on a loaded one before each thread looked for the signal; the bound is tighter here.
    void header_data() { eachPhase_data(); }
    void header()
    {
        const QString out = outDir("header");
        check({"replay", m_wide, "-q", "--histfile", out + "/w.hist"}, out, stopSignalsTaken, 300);
        QVERIFY2(lastErr.contains("stopped after 0 samples"), qPrintable(lastErr));
    }

    // The blocks: 4.6 million samples of one thread, the signal sent once a tenth of the file was read (rchar).
    void blocks_data() { eachPhase_data(); }
    void blocks()
    {
        const QString out = outDir("blocks");
        const qint64 size = QFileInfo(m_long).size();
        check({"replay", m_long, "-q", "--histfile", out + "/l.hist"}, out,
              [&](qint64 pid) { return procField(pid, "io", "rchar").toLongLong() > size / 10; });
        QVERIFY2(lastErr.contains(QString(" of %1 bytes read)").arg(size)), qPrintable(lastErr));
    }

    // After the last block: the 128 threads' figures merged, then the --histfile text of 131 072 rows × 128 columns.
    void afterTheLastBlock_data() { eachPhase_data(); }
    void afterTheLastBlock()
    {
        const QString out = outDir("final");
        check({"replay", m_wide, "-q", "--histfile", out + "/w.hist", "--json", out + "/w.json"}, out,
              [&](qint64 pid) { return procField(pid, "io", "rchar").toLongLong() > m_wideBytes; });
    }

    // The CSV: the file read again, 4.6 million rows written.
    void csv_data() { eachPhase_data(); }
    void csv()
    {
        const QString out = outDir("csv");
        check({"replay", m_long, "-q", "--csv", out + "/l.csv"}, out,
              [&](qint64) { return !QDir(out).entryList({"l.csv.partial-*"}, QDir::Files).isEmpty(); });
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestReplayStopCli)
#include "tst_replay_stop_cli.moc"
