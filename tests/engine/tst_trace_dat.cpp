// The raw kernel trace as a trace-cmd .dat (engine/trace/trace_dat.h): a real session's sub-buffers, kept as read,
// come back from the written file through libtracecmd's reader event for event (the same sched_switch count the
// session decoded), and `trace-cmd report` reads the file where trace-cmd is installed. Skipped only when tracing
// cannot work here (TraceSession::probe()).
#include "engine/trace/trace_dat.h"
#include "engine/trace/trace_session.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <pthread.h>
#include <sched.h>
#include <thread>

using namespace rtscope;

namespace {

// Writes the capture's .dat to @p path.
Error tdatWrite(const TraceDatCapture& capture, const std::string& path)
{
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        return {ErrorKind::System, "cannot open " + path};
    Error e = capture.writeDat([&](std::string_view bytes) {
        return std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() ? Error::none()
                                                                             : Error{ErrorKind::System, "short write"};
    });
    if (std::fclose(f) != 0 && !e)
        e = {ErrorKind::System, "cannot close " + path};
    return e;
}

} // namespace

class TestTraceDat : public QObject {
    Q_OBJECT

private slots:
    void nothingRecordedIsAnErrorNotAnEmptyFile()
    {
        TraceDatCapture capture;
        bool called = false;
        const Error e = capture.writeDat([&](std::string_view) {
            called = true;
            return Error::none();
        });
        QVERIFY(bool(e));
        QVERIFY2(e.message.find("no kernel trace was recorded") != std::string::npos, e.message.c_str());
        QVERIFY(!called);
    }

    void aRealSessionComesBackFromTheFileEventForEvent()
    {
        const TraceProbe probe = TraceSession::probe();
        if (!probe.usable)
            RTSCOPE_SKIP(Tracefs, "tracing is not available: " + probe.reason);
        const CpuTopology topo = CpuTopology::current();
        const int cpu = topo.lastUsable();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto capture = std::make_shared<TraceDatCapture>(dir.path().toStdString());

        std::atomic<uint64_t> switches{0};
        TraceConfig tc;
        tc.cpus = {cpu};
        tc.capture = capture;
        TraceSession session;
        const Error started = session.start(tc, topo, [&](std::span<const TraceEvent> batch) {
            for (const TraceEvent& ev : batch)
                if (ev.type == TraceEventType::SchedSwitch)
                    switches.fetch_add(1, std::memory_order_relaxed);
        });
        QVERIFY2(!started, started.message.c_str());
        // A thread on the traced CPU that sleeps 1 ms at a time, 150 times: each sleep switches it out, so at least 150
        // sched_switch events. The switch back in comes from idle when the CPU is quiet, and this kernel records no
        // sched_switch out of the idle task (docs/experiments/anatomy.md), so 300 is only seen under load.
        std::thread sleeper([cpu] {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            pthread_setaffinity_np(pthread_self(), sizeof set, &set);
            const timespec ms{0, 1'000'000};
            for (int i = 0; i < 150; ++i)
                clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, nullptr);
        });
        sleeper.join();
        const Error stopped = session.stop();
        QVERIFY2(!stopped, stopped.message.c_str());
        const TraceStats stats = session.stats();
        QVERIFY(capture->subBuffers() > 0);
        QCOMPARE(capture->subBuffers(), stats.subBuffers);
        QVERIFY2(switches.load() >= 150, qPrintable(QString::number(switches.load())));

        const std::string path = dir.filePath("run.dat").toStdString();
        const Error written = tdatWrite(*capture, path);
        QVERIFY2(!written, written.message.c_str());
        const TraceDatContents c = readTraceDat(path);
        QVERIFY2(c.error.empty(), c.error.c_str());
        QVERIFY(c.cpus > cpu);
        // The same pages: every sched_switch the session decoded is in the file, and no other.
        QCOMPARE(c.byName.count("sched/sched_switch") ? c.byName.at("sched/sched_switch") : 0, switches.load());
        QVERIFY(c.events >= c.byName.at("sched/sched_switch"));

        // trace-cmd itself, where it is installed: it reads the file and shows the same switches.
        const QString traceCmd = QStandardPaths::findExecutable("trace-cmd");
        if (traceCmd.isEmpty())
            return;
        QProcess report;
        report.start(traceCmd, {"report", QString::fromStdString(path)});
        QVERIFY(report.waitForFinished(30000));
        QCOMPARE(report.exitCode(), 0);
        const QString text = QString::fromUtf8(report.readAllStandardOutput());
        QCOMPARE(uint64_t(text.count(QStringLiteral(" sched_switch: "))), switches.load());
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestTraceDat)
#include "tst_trace_dat.moc"
