// ctest: parallel. Option parsing; one temp JSON file.
// The desktop app's command line: a lone file argument (what the desktop entry's "Exec=rtscope %f" passes) opens
// the file like --open, whatever kind it is; a missing file, a second file or a file next to --open is refused
// with a sentence naming it.
#include "ui/app/gui_options.h"

#include "tests/common/test_main.h"
#include <QFile>
#include <QTemporaryDir>

#include <QtTest>

using namespace rtscope;

namespace {

struct Parsed {
    GuiOptions options;
    QStringList problems;
};

Parsed parse(const QStringList& arguments)
{
    Parsed p;
    p.problems = parseGuiOptions(QStringList{"rtscope"} + arguments, p.options);
    return p;
}

} // namespace

class TestGuiOptions : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString file(const QString& name)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write("x");
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void aLoneFileIsOpened_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("recording") << "run.rtrec";
        QTest::newRow("cyclictest JSON") << "board.json";
        QTest::newRow("cyclictest histogram") << "board.hist";
        QTest::newRow("a name with spaces") << "my board run.rtrec";
    }

    void aLoneFileIsOpened()
    {
        QFETCH(QString, name);
        const QString path = file(name);
        const Parsed p = parse({path});
        QVERIFY2(p.problems.isEmpty(), qPrintable(p.problems.join('\n')));
        QCOMPARE(p.options.open, path);
        // The other options keep their defaults: the desktop passes only the file.
        QVERIFY(!p.options.start);
        QVERIFY(p.options.page.isEmpty());
    }

    void aFileAmongOptionsIsOpenedToo()
    {
        const QString path = file("among.rtrec");
        const Parsed p = parse({"--theme", "dark", path, "--size", "1600x1000"});
        QVERIFY2(p.problems.isEmpty(), qPrintable(p.problems.join('\n')));
        QCOMPARE(p.options.open, path);
        QCOMPARE(p.options.theme, QString("dark"));
        QCOMPARE(p.options.windowSize, QSize(1600, 1000));
    }

    void theOpenOptionStillWorks()
    {
        const QString path = file("option.json");
        const Parsed p = parse({"--open", path});
        QVERIFY(p.problems.isEmpty());
        QCOMPARE(p.options.open, path);
    }

    void noFileMeansNothingToOpen()
    {
        const Parsed p = parse({});
        QVERIFY(p.problems.isEmpty());
        QVERIFY(p.options.open.isEmpty());
    }

    void refusedFileArguments_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("named");
        QTest::addColumn<QString>("says");
        const QString missing = m_dir.filePath("gone.rtrec");
        const QString a = file("a.rtrec"), b = file("b.rtrec");
        QTest::newRow("missing file") << QStringList{missing} << missing << "no such file";
        QTest::newRow("two files") << QStringList{a, b} << b << "one file to open";
        QTest::newRow("a file and --open") << QStringList{"--open", a, b} << b << "one file to open";
    }

    void refusedFileArguments()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, named);
        QFETCH(QString, says);
        const Parsed p = parse(arguments);
        QCOMPARE(p.problems.size(), 1);
        QVERIFY2(p.problems.first().contains("'" + named + "'"), qPrintable(p.problems.first()));
        QVERIFY2(p.problems.first().contains(says), qPrintable(p.problems.first()));
    }

    // A negative CPU means "automatic" inside the latency config: typed, it is refused with the rule (issue #20),
    // while CPU 0 is a CPU like any other.
    void negativeCpusAreRefused_data()
    {
        QTest::addColumn<QString>("flag");
        QTest::newRow("cpu") << "cpu";
        QTest::newRow("hog-cpu") << "hog-cpu";
    }

    void negativeCpusAreRefused()
    {
        QFETCH(QString, flag);
        const Parsed bad = parse({"--" + flag, "-1"});
        QCOMPARE(bad.problems.size(), 1);
        QVERIFY2(bad.problems.first().startsWith(flag + " must be a CPU number, 0 or more (got -1)"),
                 qPrintable(bad.problems.first()));
        QVERIFY(!(flag == "cpu" ? bad.options.cpu : bad.options.hogCpu));
        const Parsed zero = parse({"--" + flag, "0"});
        QVERIFY2(zero.problems.isEmpty(), qPrintable(zero.problems.join("; ")));
        QCOMPARE(flag == "cpu" ? zero.options.cpu : zero.options.hogCpu, std::optional<int>(0));
    }

    // --target takes the CLI's URLs (ssh://, tcp://) through the CLI's parser; anything else is one sentence.
    void targetUrls()
    {
        const Parsed ssh = parse({"--target", "ssh://root@board:2222"});
        QVERIFY2(ssh.problems.isEmpty(), qPrintable(ssh.problems.join("; ")));
        QCOMPARE(ssh.options.target, QString("ssh://root@board:2222"));
        QVERIFY(parse({"--target", "tcp://127.0.0.1:5000"}).problems.isEmpty());
        QVERIFY(parse({"--target", "tcp://127.0.0.1:5000", "--target-token", "/run/token"}).problems.isEmpty());
        QVERIFY(parse({"--target", "unix:/run/rtscope-agent.sock"}).problems.isEmpty());
        QCOMPARE(parse({"--target", "ssh://board", "--target-token", "/run/token"}).problems,
                 QStringList("target-token is the token of an agent listening on TCP; give --target tcp://…"));
        const Parsed bad = parse({"--target", "board"});
        QCOMPARE(bad.problems,
                 QStringList("target 'board' is not a target: the scheme is none of tcp://, unix: and ssh://; give "
                             "tcp://HOST:PORT, unix:PATH or ssh://[USER@]HOST[:PORT]"));
        const Parsed noPort = parse({"--target", "tcp://127.0.0.1"});
        QCOMPARE(noPort.problems.size(), 1);
        QVERIFY2(noPort.problems.first().startsWith("target 'tcp://127.0.0.1' is not a target: "),
                 qPrintable(noPort.problems.first()));
        const Parsed both = parse({"--target", "tcp://127.0.0.1:5000", "--target-cmd", "rtscope agent --stdio"});
        QCOMPARE(both.problems, QStringList("target and --target-cmd name the target twice; give one of them"));
    }

    // --trace ticks "Explain spikes (kernel tracing)": a latency setting like --hogs (so the app opens on the
    // Latency page with it applied), on top of --config-json; left out, the saved or given setting stays.
    void traceTicksExplainSpikes()
    {
        const Parsed traced = parse({"--trace", "--hogs", "16"});
        QVERIFY2(traced.problems.isEmpty(), qPrintable(traced.problems.join("; ")));
        QVERIFY(traced.options.trace);
        QVERIFY(parse({"--trace"}).options.hasLatencyConfig());
        QVERIFY(!parse({}).options.trace);
        QVERIFY(!parse({}).options.hasLatencyConfig());

        QStringList problems;
        LatencyConfig base;
        base.trace = false;
        const LatencyConfig on = latencyConfigFromOptions(traced.options, base, problems);
        QVERIFY(problems.isEmpty());
        QVERIFY(on.trace);
        QCOMPARE(on.hogs, 16);

        const QString json = m_dir.filePath("traced.json");
        QFile f(json);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"policy":"other","period_ns":1000000,"hogs":16,"trace":true})");
        f.close();
        const LatencyConfig fromJson = latencyConfigFromOptions(parse({"--config-json", json}).options, base, problems);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("; ")));
        QVERIFY(fromJson.trace); // not given: the file's setting stays
        base.trace = true;
        QVERIFY(latencyConfigFromOptions(parse({"--hogs", "2"}).options, base, problems).trace);
    }
};

RTSCOPE_TEST_MAIN(TestGuiOptions)
#include "tst_gui_options.moc"
