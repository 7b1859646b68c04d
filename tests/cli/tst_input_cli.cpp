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
