// ctest: parallel. Every case is refused at parse time (exit 2); nothing runs.
// Flag values every subcommand must refuse with exit 2 and one sentence that names the flag, what was given and the
// allowed range or rule: explicit empty values, values that mean "automatic" or "until stopped" inside rtscope,
// integers that are not integers, rules between flags, and lists whose many problems must be summarised rather
// than printed one line each.
#include "tests/common/cli_process.h"

#include "tests/common/test_main.h"

#include <QtTest>

using namespace rtscope::test;

namespace {

// The most lines a refusal may take: the sentence, CLI11's pointer to --help, and a summary line.
constexpr int kFewLines = 3;
constexpr int kSummarisedLines = 12;

QString repeated(const QString& item, int times)
{
    QStringList items;
    for (int i = 0; i < times; ++i)
        items << item;
    return items.join(',');
}

// "FIRSTms,FIRST+1ms,…": @p count different lengths.
QString manyLengths(int first, int count)
{
    QStringList items;
    for (int i = 0; i < count; ++i)
        items << QString::number(first + i) + "ms";
    return items.join(',');
}

} // namespace

class TestInputCli : public QObject {
    Q_OBJECT
private slots:
    void badValueExitsTwoNamingTheFlag_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("expected"); ///< every one must be in stderr
        QTest::addColumn<int>("maxLines");

        // Values that mean "not given", "automatic" or "until stopped" inside rtscope.
        QTest::newRow("latency -D 0") << QStringList{"latency", "-D", "0"}
                                      << QStringList{"duration must be between", "got 0"} << kFewLines;
        QTest::newRow("latency -D empty")
            << QStringList{"latency", "-D", ""} << QStringList{"--duration", "empty"} << kFewLines;
        QTest::newRow("latency -l 0") << QStringList{"latency", "-l", "0"}
                                      << QStringList{"samples", "between 1 and", "got 0"} << kFewLines;
        QTest::newRow("latency -D past 30 days") << QStringList{"latency", "-D", "2592001s"}
                                                 << QStringList{"duration must be between", "2592001"} << kFewLines;
        QTest::newRow("latency --policy empty")
            << QStringList{"latency", "--policy", ""} << QStringList{"--policy", "empty"} << kFewLines;
        QTest::newRow("latency --cpus empty")
            << QStringList{"latency", "--cpus", ""} << QStringList{"--cpus", "empty"} << kFewLines;
        QTest::newRow("latency --histfile empty")
            << QStringList{"latency", "--histfile", ""} << QStringList{"--histfile", "empty"} << kFewLines;
        QTest::newRow("latency --histogram -2")
            << QStringList{"latency", "--histogram", "-2"} << QStringList{"--histogram", "'-2'"} << kFewLines;
        QTest::newRow("latency --histogram -1") << QStringList{"latency", "--histogram", "-1", "-l", "5"}
                                                << QStringList{"--histogram", "'-1'"} << kFewLines;
        QTest::newRow("latency -a -1") << QStringList{"latency", "-a", "-1", "-l", "5"} << QStringList{"--cpu", "'-1'"}
                                       << kFewLines;
        QTest::newRow("latency --cpu -1")
            << QStringList{"latency", "--cpu", "-1", "-l", "5"} << QStringList{"--cpu", "'-1'"} << kFewLines;
        QTest::newRow("latency --hog-cpu -1")
            << QStringList{"latency", "--hog-cpu", "-1", "-l", "5"} << QStringList{"--hog-cpu", "'-1'"} << kFewLines;
        // Integers that are not integers: the flag, the text and the rule, not CLI11's "Could not convert".
        QTest::newRow("latency -p abc") << QStringList{"latency", "-p", "abc"}
                                        << QStringList{"--priority", "'abc'", "1-99"} << kFewLines;
        QTest::newRow("latency -a 1,1") << QStringList{"latency", "-a", "1,1"} << QStringList{"--cpu", "'1,1'"}
                                        << kFewLines;
        QTest::newRow("latency --hogs huge") << QStringList{"latency", "--hogs", "99999999999"}
                                             << QStringList{"--hogs", "'99999999999'", "0..256"} << kFewLines;
        QTest::newRow("latency -l -1") << QStringList{"latency", "-l", "-1"} << QStringList{"--samples", "'-1'"}
                                       << kFewLines;
        // Rules between flags.
        QTest::newRow("latency --nice with fifo")
            << QStringList{"latency", "--policy", "fifo", "-p", "80", "--nice", "5"}
            << QStringList{"nice", "other, batch or idle", "got 5"} << kFewLines;
        // Many problems are summarised.
        QTest::newRow("latency --cpus 0-1000")
            << QStringList{"latency", "--cpus", "0-1000"} << QStringList{"cpus", "1000"} << kSummarisedLines;

        QTest::newRow("sweep --load-cmd empty")
            << QStringList{"sweep", "--load-cmd", ""} << QStringList{"--load-cmd", "empty"} << kFewLines;
        QTest::newRow("sweep -a -1") << QStringList{"sweep", "-a", "-1"} << QStringList{"--cpu", "'-1'"} << kFewLines;
        QTest::newRow("sweep --hogs abc")
            << QStringList{"sweep", "--hogs", "abc"} << QStringList{"--hogs", "'abc'"} << kFewLines;

        QTest::newRow("starve --reserve empty")
            << QStringList{"starve", "--reserve", ""} << QStringList{"--reserve", "empty"} << kFewLines;
        QTest::newRow("starve --reserve 99")
            << QStringList{"starve", "--reserve", "99"} << QStringList{"reserve", "online", "99"} << kFewLines;
        QTest::newRow("starve -a -1") << QStringList{"starve", "-a", "-1"} << QStringList{"--cpu", "'-1'"} << kFewLines;
        QTest::newRow("starve --control-cpu -1")
            << QStringList{"starve", "--control-cpu", "-1"} << QStringList{"--control-cpu", "'-1'"} << kFewLines;
        QTest::newRow("starve --bursts x")
            << QStringList{"starve", "--bursts", "x"} << QStringList{"--bursts", "'x'"} << kFewLines;

        QTest::newRow("drift -D 0") << QStringList{"drift", "-D", "0"} << QStringList{"duration", "between", "got 0"}
                                    << kFewLines;
        QTest::newRow("drift -a -1") << QStringList{"drift", "-a", "-1"} << QStringList{"--cpu", "'-1'"} << kFewLines;
        QTest::newRow("drift -m 20000 methods") << QStringList{"drift", "-m", repeated("naive", 20000)}
                                                << QStringList{"methods", "naive"} << kSummarisedLines;
        QTest::newRow("drift -m 20000 unknown methods")
            << QStringList{"drift", "-m", repeated("x", 20000)} << QStringList{"methods", "'x'", "20000 times"}
            << kSummarisedLines;
        QTest::newRow("drift --policy empty")
            << QStringList{"drift", "--policy", ""} << QStringList{"--policy", "empty"} << kFewLines;

        QTest::newRow("sleep-floor -a -1")
            << QStringList{"sleep-floor", "-a", "-1"} << QStringList{"--cpu", "'-1'"} << kFewLines;
        QTest::newRow("sleep-floor -r 1000 lengths out of range")
            << QStringList{"sleep-floor", "-r", manyLengths(101, 1000)}
            << QStringList{"requests must each be between", "more problems"} << kSummarisedLines;
        QTest::newRow("sleep-floor -l abc")
            << QStringList{"sleep-floor", "-l", "abc"} << QStringList{"--samples", "'abc'"} << kFewLines;

        QTest::newRow("locks -a -1") << QStringList{"locks", "-a", "-1"} << QStringList{"--cpu", "'-1'"} << kFewLines;
        QTest::newRow("locks --nice with fifo")
            << QStringList{"locks", "--policy", "fifo", "-p", "10", "--placement", "one-cpu", "--nice", "5"}
            << QStringList{"nice", "other, batch or idle", "got 5"} << kFewLines;
        QTest::newRow("locks --kinds empty")
            << QStringList{"locks", "--kinds", ""} << QStringList{"--kinds", "empty"} << kFewLines;

        QTest::newRow("inversion -a -1") << QStringList{"inversion", "-a", "-1"} << QStringList{"--cpu", "'-1'"}
                                         << kFewLines;
        QTest::newRow("inversion --low-priority x")
            << QStringList{"inversion", "--low-priority", "x"} << QStringList{"--low-priority", "'x'"} << kFewLines;

        QTest::newRow("threads --policy other -p 5") << QStringList{"threads", "--policy", "other", "-p", "5"}
                                                     << QStringList{"priority", "other", "got 5"} << kFewLines;
        QTest::newRow("threads -p abc") << QStringList{"threads", "-p", "abc"} << QStringList{"--priority", "'abc'"}
                                        << kFewLines;
        QTest::newRow("threads --policy empty")
            << QStringList{"threads", "--policy", ""} << QStringList{"--policy", "empty"} << kFewLines;

        QTest::newRow("run --preset empty")
            << QStringList{"run", "--preset", ""} << QStringList{"--preset", "empty"} << kFewLines;

        QTest::newRow("replay --histogram -1")
            << QStringList{"replay", binary(), "--histogram", "-1"} << QStringList{"--histogram", "'-1'"} << kFewLines;
        QTest::newRow("replay --histfile empty")
            << QStringList{"replay", binary(), "--histfile", ""} << QStringList{"--histfile", "empty"} << kFewLines;
    }
    // A value of 100 KB is echoed cut to 80 characters and an ellipsis, wherever the sentence is made: a flag's own
    // rule, CLI11's integer check, a duration, the unknown command.
    void aLongValueIsEchoedCut_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        const QString big(100'000, 'x');
        const QString digits(100'000, '7');
        QTest::newRow("--policy") << QStringList{"latency", "--policy", big} << "policy must be one of";
        QTest::newRow("-D") << QStringList{"latency", "-D", big} << "is not a duration";
        QTest::newRow("--cpu") << QStringList{"latency", "--cpu", digits} << "is out of range";
        QTest::newRow("--lesson") << QStringList{"deadline", "--lesson", big} << "lesson must be admission";
        QTest::newRow("command") << QStringList{big} << "unknown command";
    }
    void aLongValueIsEchoedCut()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const Run r = run(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err.left(300)));
        QVERIFY2(r.err.size() < 1000, qPrintable(QString("%1 characters: %2").arg(r.err.size()).arg(r.err.left(300))));
        const QString value = args.last();
        QVERIFY2(r.err.contains(value.left(80) + QString::fromUtf8("\u2026")), qPrintable(r.err));
    }

    // Every integer flag of every subcommand (issue #20: `latency --cpu -1` once ran on the default CPU): a value
    // below its range (for a CPU, the -1 that means "automatic" inside), one above it and one that is no number are
    // each exit 2 with a sentence naming the flag and the allowed range. A row per flag: the subcommand and the
    // flags that make the flag apply, the flag, the value below and above, the range as its sentence says it and
    // as its help says it (a value CLI11 cannot convert is refused with the help).
    void everyIntegerFlagRefusesOutOfRange_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("expected");
        QTest::addColumn<int>("maxLines");
        struct IntFlag {
            QStringList command;
            QString flag;
            QString below;
            QString above;
            QString rangeHelp; ///< the range in the flag's help (quoted when the text is no whole number)
            QString said;      ///< the range in the sentence refusing a value out of it
            QString saidAbove; ///< the same for the value above, when it says it otherwise
        };
        const QString cpu = "CPU";
        const QString cpuBelow = "is below 0";
        const QString cpuAbove = "CPU"; // "one of the online CPUs … (0-1)", "a usable CPU (0-1)"
        const QString rt = "between 1 and 99";
        const QString nice = "between -20 and 19";
        const QString hogs = "between 0 and 256";
        const QString rep = binary(); // replay's file: the flags are refused before it is read
        const std::vector<IntFlag> flags = {
            {{"latency", "--policy", "fifo"}, "--priority", "0", "100", "1-99", rt, {}},
            {{"latency"}, "--nice", "-21", "20", "-20..19", nice, {}},
            {{"latency"}, "--hogs", "-1", "257", "0..256", hogs, {}},
            {{"latency", "--hogs", "1"}, "--hog-nice", "-21", "20", "-20..19", nice, {}},
            {{"latency"}, "--hog-cpu", "-1", "4096", cpu, cpuBelow, cpuAbove},
            {{"latency"}, "--cpu", "-1", "4096", cpu, cpuBelow, cpuAbove},
            {{"latency"}, "--samples", "0", "1000000000001", "1..1e12", "between 1 and 1000000000000", {}},
            {{"latency"}, "--histogram", "-1", "1000001", "0..1000000", "is below 0", "between 0 and 1000000"},
            {{"latency", "--trace"}, "--trace-top", "0", "101", "1..100", "between 1 and 100", {}},
            {{"monitor", "--policy", "fifo"}, "--priority", "0", "100", "1-99", rt, {}},
            {{"monitor"}, "--hogs", "-1", "257", "0..256", hogs, {}},
            {{"monitor"}, "--cpu", "-1", "4096", cpu, cpuBelow, cpuAbove},
            {{"replay", rep}, "--histogram", "0", "1000001", "1..1000000", "is below 1", "between 1 and 1000000"},
            {{"drift"}, "--ticks", "1", "200001", "2..200000", "between 2 and 200000", {}},
            {{"drift", "--policy", "fifo"}, "--priority", "0", "100", "1-99", rt, {}},
            {{"drift"}, "--cpu", "-1", "4096", cpu, cpuBelow, cpuAbove},
            {{"drift"}, "--stall-at", "-1", "500", "1..ticks-1", "between 1 and 499", {}},
            {{"sleep-floor"}, "--samples", "0", "100001", "1..100000", "between 1 and 100000", {}},
            {{"sleep-floor", "--policy", "fifo"}, "--priority", "0", "100", "1-99", rt, {}},
            {{"sleep-floor"}, "--cpu", "-1", "4096", cpu, cpuBelow, cpuAbove},
            {{"starve"}, "--bursts", "-1", "1001", "1..1000", "between 1 and 1000", {}},
            {{"starve"}, "--priority", "0", "99", "1..98", "between 1 and 98", {}},
            {{"starve"}, "--counters", "0", "9", "1..8", "between 1 and 8", {}},
            {{"starve"}, "--nice", "-21", "20", "-20..19", nice, {}},
            {{"starve"}, "--cpu", "-1", "4096", cpu, cpuBelow, cpuAbove},
            {{"starve"}, "--control-cpu", "-1", "4096", cpu, cpuBelow, cpuAbove},
            {{"starve"}, "--sampler-priority", "-1", "80", "priority-1", "between 0 (SCHED_OTHER) and 79", {}},
            {{"deadline", "--lesson", "isolation"}, "--counter-cpu", "-1", "4096", cpu, cpuBelow, cpuAbove},
            {{"deadline", "--lesson", "edf"}, "--priority", "0", "98", "1..97", "between 1 and 97", {}},
            {{"deadline", "--lesson", "edf"}, "--cpu", "-1", "4096", cpu, cpuBelow, cpuAbove},
            {{"locks"}, "--threads", "1", "33", "2..32", "between 2 and 32", {}},
            {{"locks", "--placement", "one-cpu"}, "--cpu", "-1", "4096", cpu, cpuBelow, cpuAbove},
            {{"locks", "--policy", "fifo", "--placement", "one-cpu"}, "--priority", "0", "100", "1-99", rt, {}},
            {{"locks"}, "--nice", "-21", "20", "-20..19", nice, {}},
            {{"locks"}, "--spin-limit", "-1", "10000001", "0..1e7", "between 0 and 10000000", {}},
            {{"inversion"}, "--cpu", "-1", "4096", cpu, cpuBelow, cpuAbove},
            {{"inversion"}, "--low-priority", "0", "99", "1..98", "between 1 and 98", {}},
            {{"inversion"}, "--medium-priority", "0", "99", "above low", "between 1 and 98", {}},
            {{"inversion"}, "--high-priority", "0", "99", "at most 98", "between 1 and 98", {}},
            {{"threads"}, "--priority", "0", "100", "1-99", rt, {}},
            {{"sweep"}, "--hogs", "-1", "257", "0..256", hogs, {}},
            {{"sweep"}, "--cpu", "-1", "4096", cpu, cpuBelow, cpuAbove},
        };
        for (const IntFlag& f : flags) {
            const QString name = f.command.first() + " " + f.flag;
            const QString bare = f.flag.mid(2);
            QTest::newRow(qPrintable(name + " " + f.below))
                << f.command + QStringList{f.flag, f.below} << QStringList{bare, f.below, f.said} << kFewLines;
            QTest::newRow(qPrintable(name + " " + f.above))
                << f.command + QStringList{f.flag, f.above}
                << QStringList{bare, f.above, f.saidAbove.isEmpty() ? f.said : f.saidAbove} << kFewLines;
            QTest::newRow(qPrintable(name + " abc"))
                << f.command + QStringList{f.flag, "abc"} << QStringList{f.flag, "'abc'", f.rangeHelp} << kFewLines;
        }
    }
    void everyIntegerFlagRefusesOutOfRange() { badValueExitsTwoNamingTheFlag(); }

    void badValueExitsTwoNamingTheFlag()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, expected);
        QFETCH(int, maxLines);
        const Run r = run(args, 10000);
        QVERIFY2(r.exitCode == 2, qPrintable(QString("exit code %1, not 2; stdout: %2; stderr: %3")
                                                 .arg(r.exitCode)
                                                 .arg(r.out.left(400), r.err.left(400))));
        QVERIFY2(r.out.isEmpty(), qPrintable("something ran: " + r.out.left(400)));
        for (const QString& e : expected)
            QVERIFY2(r.err.contains(e), qPrintable("stderr lacks '" + e + "': " + r.err.left(2000)));
        const int lines = int(r.err.count('\n'));
        QVERIFY2(
            lines <= maxLines,
            qPrintable(
                QString("%1 lines of stderr, at most %2 wanted: %3").arg(lines).arg(maxLines).arg(r.err.left(2000))));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestInputCli)
#include "tst_input_cli.moc"
