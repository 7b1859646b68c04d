// ctest: parallel. Parses files in a temp dir.
// The noise lab's second method: the osnoise tracer's text output read and summed per CPU
// (engine/experiments/noise/osnoise_trace.h). The tracer's lines are written here in the layout the kernel prints
// (Documentation/trace/osnoise-tracer.rst) and trace-cmd report prints; this kernel has no osnoise tracer, so no
// live capture exists to compare with.
#include "engine/experiments/noise/osnoise_trace.h"

#include "tests/common/test_main.h"

#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <sys/stat.h>

using namespace rtscope;

namespace {

// A `cat trace` of two periods on CPUs 1 and 3, with the header, the tracer's own tracepoints and a blank line.
const char* const kOsnoiseCatTrace = R"(# tracer: osnoise
#
#                                _-----=> irqs-off
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth                            MAX
#                              || /                                             SINGLE     Interference counters:
#                              ||||               RUNTIME      NOISE   % OF CPU  NOISE    +-----------------------------+
#           TASK-PID      CPU# ||||   TIMESTAMP    IN US       IN US  AVAILABLE  IN US     HW    NMI    IRQ   SIRQ THREAD
#              | |         |   ||||      |           |             |    |            |      |      |      |      |      |
       osnoise/1-901     [001] d.h.  120.500101: irq_noise: local_timer:236 start 120.500099 duration 1733 ns
           <...>-901     [001] ....   121.000230: 1000000        412  99.95880      37     11      0   1004     12      2
           <...>-903     [003] ....   121.000244: 1000000       2210  99.77900     301      4      0   1010     20      9
       osnoise/1-901     [001] ....   121.400001: sample_threshold: start 121.399990 duration 8812 ns interferences 2

           <...>-901     [001] .....  122.000233: 1000000        588  99.94120      95      9      1   1003     15      3
           <...>-903     [003] .....  122.000247: 1000000       1790  99.82100     250      2      0   1008     22      7
)";

} // namespace

class TestOsnoiseTrace : public QObject {
    Q_OBJECT
private slots:
    void periodsAreSummedPerCpu()
    {
        const OsnoiseTrace t = readOsnoiseTrace(kOsnoiseCatTrace, "fixture");
        QCOMPARE(t.periodLines, uint64_t(4));
        QCOMPARE(t.problemCount, uint64_t(0));
        QCOMPARE(t.lines, uint64_t(17));
        QCOMPARE(t.skippedLines, uint64_t(13)); // 10 header lines, 2 tracepoints, 1 blank line
        QCOMPARE(t.cpus.size(), size_t(2));
        const OsnoiseCpuSummary& one = t.cpus[0];
        QCOMPARE(one.cpu, 1);
        QCOMPARE(one.periods, uint64_t(2));
        QCOMPARE(one.runtimeUs, int64_t(2'000'000));
        QCOMPARE(one.noiseUs, int64_t(1000));
        QCOMPARE(one.maxSingleUs, int64_t(95));
        QCOMPARE(one.hw, uint64_t(20));
        QCOMPARE(one.nmi, uint64_t(1));
        QCOMPARE(one.irq, uint64_t(2007));
        QCOMPARE(one.softirq, uint64_t(27));
        QCOMPARE(one.thread, uint64_t(5));
        QCOMPARE(one.availablePercent(), 99.95); // from the sums: (2 000 000 − 1000) / 2 000 000
        const OsnoiseCpuSummary& three = t.cpus[1];
        QCOMPARE(three.cpu, 3);
        QCOMPARE(three.noiseUs, int64_t(4000));
        QCOMPARE(three.maxSingleUs, int64_t(301));
        QCOMPARE(three.availablePercent(), 99.8);
    }

    // trace-cmd report's layout: a CPU column in brackets and the event's name before the numbers is another event;
    // the numbers straight after the timestamp are the summary.
    void traceCmdReportLines()
    {
        std::string problem;
        const auto p = parseOsnoisePeriod("         osnoise/2-77    [002]  3051.183340: 1000000  55  99.99450  "
                                          "12  0  0  1001  3  0",
                                          problem);
        QVERIFY2(p, problem.c_str());
        QCOMPARE(p->cpu, 2);
        QCOMPARE(p->noiseUs, int64_t(55));
        QCOMPARE(p->irq, uint64_t(1001));
        QVERIFY(!parseOsnoisePeriod("  osnoise/2-77 [002] 3051.1: osnoise_sample: start 1 duration 2", problem));
        QVERIFY(problem.empty());
    }

    void wrongSummariesAreNamed_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("problem");
        const QString head = "  <...>-901 [001] .... 121.000230: ";
        QTest::newRow("noise above runtime") << head + "1000 1200 0.0 10 0 0 0 0 0"
                                             << "noise 1200 us: must be between 0 and the runtime 1000 us";
        QTest::newRow("zero runtime") << head + "0 0 100.0 0 0 0 0 0 0"
                                      << "runtime 0 us: must be above 0";
        QTest::newRow("max single above runtime")
            << head + "1000 10 99.0 2000 0 0 0 0 0"
            << "max single noise 2000 us: must be between 0 and the runtime 1000 us";
        QTest::newRow("percent") << head + "1000 10 199.0 5 0 0 0 0 0"
                                 << "% of CPU available 199.0: must be between 0 and 100";
        const QString shape = "not an osnoise period summary (expected: runtime, noise, % available, max single, HW, "
                              "NMI, IRQ, softirq, thread)";
        QTest::newRow("too few") << head + "1000000 412 99.9588 37 11 0 1004" << shape;
        QTest::newRow("too many") << head + "1000000 412 99.9588 37 11 0 1004 12 2 7" << shape;
        QTest::newRow("negative count") << head + "1000000 412 99.9588 37 -11 0 1004 12 2" << shape;
        QTest::newRow("not a number") << head + "1000000 41x2 99.9588 37 11 0 1004 12 2" << shape;
    }

    void wrongSummariesAreNamed()
    {
        QFETCH(QString, line);
        QFETCH(QString, problem);
        std::string why;
        QVERIFY(!parseOsnoisePeriod(line.toStdString(), why));
        QCOMPARE(QString::fromStdString(why), problem);
        const OsnoiseTrace t = readOsnoiseTrace(std::string(kOsnoiseCatTrace) + line.toStdString() + "\n", "f");
        QCOMPARE(t.periodLines, uint64_t(4)); // the good lines still count
        QCOMPARE(t.problemCount, uint64_t(1));
        QCOMPARE(QString::fromStdString(t.problems.front()), QString("line 18: ") + problem);
    }

    void problemsAreBounded()
    {
        std::string text;
        for (int i = 0; i < 100; ++i)
            text += "x-1 [001] .... 1.0: 1000 2000 0 0 0 0 0 0 0\n";
        const OsnoiseTrace t = readOsnoiseTrace(text, "f");
        QCOMPARE(t.problemCount, uint64_t(100));
        QCOMPARE(t.problems.size(), OsnoiseTrace::kMaxProblems);
        QVERIFY(t.cpus.empty());
    }

    void filesAreCheckedBeforeUse()
    {
        QTemporaryDir dir;
        const std::string good = dir.filePath("trace.txt").toStdString();
        std::ofstream(good) << kOsnoiseCatTrace;
        OsnoiseTrace t;
        QVERIFY(!loadOsnoiseTrace(good, t));
        QCOMPARE(t.cpus.size(), size_t(2));
        QCOMPARE(QString::fromStdString(t.source), QString::fromStdString(good));

        const std::string empty = dir.filePath("latency.txt").toStdString();
        std::ofstream(empty) << "# tracer: nop\n#\n";
        Error e = loadOsnoiseTrace(empty, t);
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QVERIFY2(QString::fromStdString(e.message).startsWith(
                     QString::fromStdString("osnoise-file: '" + empty +
                                            "' holds no osnoise period summary (2 lines read); record "
                                            "one with: echo osnoise > /sys/kernel/tracing/current_tracer")),
                 e.message.c_str());

        const std::string fifo = dir.filePath("fifo").toStdString();
        QCOMPARE(mkfifo(fifo.c_str(), 0600), 0);
        e = loadOsnoiseTrace(fifo, t); // refused at once, never blocks in open()
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QVERIFY2(QString::fromStdString(e.message).contains("FIFO"), e.message.c_str());
        e = loadOsnoiseTrace(dir.filePath("missing").toStdString(), t);
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QVERIFY2(QString::fromStdString(e.message).startsWith("osnoise-file: "), e.message.c_str());
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestOsnoiseTrace)
#include "tst_osnoise_trace.moc"
