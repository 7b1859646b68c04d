// Every experiment subcommand, and `threads` and `probe`, runs on a target (docs/remote.md): each is run here twice
// with the same short flags, on this machine and with --target-cmd "exec rtscope agent --stdio", and the two runs
// must give the same outputs — exit code 0, the same first line (the run's label), the remote one followed by
// "# target: …", the same table header, the same --json keys (the remote report adds only "target", and its probe is
// the target's), the same --csv header and the same --histfile layout. A config the agent refuses gives the local
// run's sentence and exit code 2; and no agent is left behind.
#include "tests/common/cli_process.h"
#include "tests/common/test_util.h"

#include "engine/rt/system_probe.h"

#include "tests/common/test_main.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

using namespace rtscope;
using namespace rtscope::test;

namespace {

QString targetCommandsAgent()
{
    // exec: the agent is the child CliTarget reaps; quoted for /bin/sh.
    return "exec '" + binary() + "' agent --stdio";
}

// Every key path of @p j ("/rtscope/probe/kernel_release"; an array's items as "[]", its first item standing for
// all), so that two reports of the same command compare by shape, not by their measured values.
void targetCommandsKeys(const nlohmann::json& j, const std::string& path, std::set<std::string>& out)
{
    if (j.is_object()) {
        for (const auto& [key, value] : j.items()) {
            out.insert(path + "/" + key);
            targetCommandsKeys(value, path + "/" + key, out);
        }
    } else if (j.is_array() && !j.empty()) {
        targetCommandsKeys(j.front(), path + "[]", out);
    }
}

std::set<std::string> targetCommandsKeysOf(const QString& file)
{
    std::set<std::string> keys;
    const nlohmann::json j = nlohmann::json::parse(readAll(file).toStdString(), nullptr, false);
    if (!j.is_discarded())
        targetCommandsKeys(j, "", keys);
    return keys;
}

// Agents of this binary still alive (`rtscope agent --stdio` started by a --target-cmd here): a command's link
// reaps its agent before it exits, so after a run there are none.
int targetCommandsAgentsLeft()
{
    int left = 0;
    const QString exe = QFileInfo(binary()).canonicalFilePath();
    for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
        bool number = false;
        pid.toInt(&number);
        if (!number)
            continue;
        const QStringList args = QString::fromUtf8(readAll("/proc/" + pid + "/cmdline")).split(QChar('\0'));
        if (args.size() >= 3 && args[1] == "agent" && args[2] == "--stdio" &&
            QFileInfo("/proc/" + pid + "/exe").canonicalFilePath() == exe)
            ++left;
    }
    return left;
}

QString targetCommandsFirstLine(const QString& path)
{
    return QString::fromUtf8(readAll(path)).section('\n', 0, 0);
}

// The first line of @p text that starts with @p prefix (a table's header), or empty.
QString targetCommandsLineStarting(const QString& text, const QString& prefix)
{
    for (const QString& line : text.split('\n'))
        if (line.startsWith(prefix))
            return line;
    return {};
}

} // namespace

class TestTargetCommandsCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString path(const QString& name) const { return m_dir.filePath(name); }

    struct Pair {
        Run local;
        Run remote;
    };

    // `rtscope COMMAND ARGS` here and on the agent, each with its own --json (and --csv, --histfile when asked for)
    // in the temporary directory, named local.* and remote.*.
    Pair runBoth(const QString& command, const QStringList& args, bool json = true, bool csv = false,
                 bool histfile = false)
    {
        Pair p;
        for (const bool remote : {false, true}) {
            const QString tag = remote ? "remote" : "local";
            QStringList a{command};
            a << args;
            if (json)
                a << "--json" << path(tag + ".json");
            if (csv)
                a << "--csv" << path(tag + ".csv");
            if (histfile)
                a << "--histfile" << path(tag + ".hist");
            if (remote)
                a << "--target-cmd" << targetCommandsAgent();
            (remote ? p.remote : p.local) = run(a, 120'000);
        }
        return p;
    }

    // What every command's pair must show: both ran, the same label, the target named, the same report keys (the
    // remote one adds "target" only) with the target's probe.
    void checkPair(const Pair& p, const QString& command, bool json = true)
    {
        QVERIFY2(p.local.exitCode == 0, qPrintable(command + " here: " + p.local.err + p.local.out));
        QVERIFY2(p.remote.exitCode == 0, qPrintable(command + " on the agent: " + p.remote.err + p.remote.out));
        const QStringList localLines = p.local.out.split('\n');
        const QStringList remoteLines = p.remote.out.split('\n');
        const QString label = "# rtscope " RTSCOPE_VERSION " " + command + ":";
        if (localLines.front().startsWith(label)) { // a run with a header: the same one, then the target's line
            QCOMPARE(remoteLines.front(), localLines.front());
            // Among the header's comment lines (starve's runs over several).
            bool named = false;
            for (int i = 1; i < remoteLines.size() && remoteLines[i].startsWith('#'); ++i)
                named = named || remoteLines[i].startsWith("# target: ");
            QVERIFY2(named, qPrintable(p.remote.out));
        } else {
            QVERIFY2(p.remote.out.contains("# target: "), qPrintable(p.remote.out));
        }
        QVERIFY2(!p.local.out.contains("# target: "), qPrintable(p.local.out));
        QCOMPARE(targetCommandsAgentsLeft(), 0);
        if (!json)
            return;
        std::set<std::string> local = targetCommandsKeysOf(path("local.json"));
        std::set<std::string> remote = targetCommandsKeysOf(path("remote.json"));
        QVERIFY2(!local.empty(), "the local --json did not read");
        QVERIFY2(!remote.empty(), "the remote --json did not read");
        // The report's own "target" (under "rtscope" or at the top) is the only addition.
        std::set<std::string> added;
        for (const std::string& k : remote)
            if (!local.count(k))
                added.insert(k);
        for (const std::string& k : added)
            QVERIFY2(k.find("/target") != std::string::npos, ("the remote report adds " + k).c_str());
        QVERIFY2(!added.empty(), "the remote report does not name its target");
        for (const std::string& k : local)
            QVERIFY2(remote.count(k), ("the remote report lacks " + k).c_str());
        const nlohmann::json r = nlohmann::json::parse(readAll(path("remote.json")).toStdString());
        const nlohmann::json& body = r.contains("rtscope") && r["rtscope"].is_object() ? r["rtscope"] : r;
        QCOMPARE(QString::fromStdString(body["target"].value("agent_version", std::string())),
                 QString(RTSCOPE_VERSION));
        // The agent runs here: its probe is this machine's, read by another process.
        QCOMPARE(QString::fromStdString(body["probe"].value("kernel_release", std::string())),
                 QString::fromStdString(probeSystem().kernelRelease));
    }

    void checkCsvHeaders()
    {
        QVERIFY2(!targetCommandsFirstLine(path("local.csv")).isEmpty(), "no local CSV");
        QCOMPARE(targetCommandsFirstLine(path("remote.csv")), targetCommandsFirstLine(path("local.csv")));
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void drift()
    {
        const Pair p = runBoth("drift", {"-n", "40", "--period", "1ms", "-m", "naive,abs"}, true, true);
        checkPair(p, "drift");
        QCOMPARE(targetCommandsLineStarting(p.remote.out, "method"), targetCommandsLineStarting(p.local.out, "method"));
        checkCsvHeaders();
    }

    void sleepFloor()
    {
        const Pair p = runBoth("sleep-floor", {"-r", "100us,1ms", "-l", "10", "-m", "nanosleep"}, true, true);
        checkPair(p, "sleep-floor");
        QCOMPARE(targetCommandsLineStarting(p.remote.out, "request"),
                 targetCommandsLineStarting(p.local.out, "request"));
        checkCsvHeaders();
    }

    void starve()
    {
        RTSCOPE_SKIP_IF(withoutFifo(probeSystem()));
        if (probeSystem().onlineCpus.size() < 2)
            RTSCOPE_SKIP(Cpus, "the watchdog needs a CPU other than the spinner's");
        const Pair p = runBoth("starve", {"--bursts", "1", "--burst", "30ms", "--gap", "40ms"}, true, true);
        checkPair(p, "starve");
        QCOMPARE(targetCommandsLineStarting(p.remote.out, "burst"), targetCommandsLineStarting(p.local.out, "burst"));
        checkCsvHeaders();
    }

    void locks()
    {
        const Pair p = runBoth("locks", {"-D", "200ms", "--kinds", "spin,mutex"}, true, true);
        checkPair(p, "locks");
        checkCsvHeaders();
    }

    void inversion()
    {
        RTSCOPE_SKIP_IF(withoutFifo(probeSystem())); // the lab's three threads are FIFO
        const Pair p = runBoth("inversion", {"-D", "400ms"}, true, true);
        checkPair(p, "inversion");
        checkCsvHeaders();
        // The exported timeline is the whole run on the target too (the agent keeps it: a view option).
        QVERIFY2(readAll(path("remote.csv")).count('\n') > 3, readAll(path("remote.csv")).constData());
    }

    void deadline()
    {
        RTSCOPE_SKIP_IF(withoutDeadline());
        const Pair p = runBoth("deadline", {"--lesson", "admission", "--task", "1ms/10ms", "--task", "1ms/10ms"});
        checkPair(p, "deadline");
        QCOMPARE(targetCommandsLineStarting(p.remote.out, "  step"), targetCommandsLineStarting(p.local.out, "  step"));
    }

    void latency()
    {
        // The one composition of a latency run's outputs (latencyRunOutputs): the target's histfile and --json carry
        // the identity as a local run's do, from the target's probe, its kernel command line unknown (not sent).
        const Pair p = runBoth("latency", {"-D", "300ms"}, true, false, true);
        checkPair(p, "latency", false);
        const QString local = QString::fromUtf8(readAll(path("local.hist")));
        const QString remote = QString::fromUtf8(readAll(path("remote.hist")));
        QVERIFY2(local.contains("\n# Host: "), qPrintable(local.right(800)));
        QVERIFY2(remote.contains("\n# Host: "), qPrintable(remote.right(800)));
        QVERIFY2(remote.contains("\n# Kernel command line: unknown\n"), qPrintable(remote.right(800)));
        QCOMPARE(remote.count('\n'), local.count('\n'));
        const nlohmann::json l = nlohmann::json::parse(readAll(path("local.json")).toStdString());
        const nlohmann::json r = nlohmann::json::parse(readAll(path("remote.json")).toStdString());
        QVERIFY(l.contains("identity") && r.contains("identity"));
        QCOMPARE(r["identity"].value("host", std::string("?")), l["identity"].value("host", std::string("!")));
        QCOMPARE(r["identity"].value("kernel_cmdline", std::string("?")), std::string());
        QCOMPARE(r["sysinfo"].value("nodename", std::string("?")), l["sysinfo"].value("nodename", std::string("!")));
        QCOMPARE(QString::fromStdString(r["rtscope"]["target"].value("agent_version", std::string())),
                 QString(RTSCOPE_VERSION));
        for (const std::string& k : targetCommandsKeysOf(path("local.json")))
            // The probe is the target's (read by another process); a histogram's keys are its non-empty bins.
            if (k.rfind("/rtscope/probe", 0) != 0 && k.find("/histogram/") == std::string::npos)
                QVERIFY2(targetCommandsKeysOf(path("remote.json")).count(k), ("the remote report lacks " + k).c_str());
    }

    void noise()
    {
        const Pair p = runBoth("noise", {"-D", "300ms", "--no-trace"}, true, true, true);
        checkPair(p, "noise");
        QCOMPARE(targetCommandsLineStarting(p.remote.out, "CPU "), targetCommandsLineStarting(p.local.out, "CPU "));
        checkCsvHeaders();
        // The histogram file, in cyclictest's layout, from the target's snapshot: as many lines as here.
        const QByteArray local = readAll(path("local.hist"));
        const QByteArray remote = readAll(path("remote.hist"));
        QVERIFY(!local.isEmpty());
        QCOMPARE(remote.count('\n'), local.count('\n'));
    }

    void sweep()
    {
        const Pair p = runBoth("sweep", {"--settings", "other", "--each", "300ms"});
        checkPair(p, "sweep");
        QCOMPARE(targetCommandsLineStarting(p.remote.out, "setting"),
                 targetCommandsLineStarting(p.local.out, "setting"));
    }

    void threads()
    {
        const Pair p = runBoth("threads", {}, false);
        checkPair(p, "threads", false);
        QCOMPARE(targetCommandsLineStarting(p.remote.out, "    PID"),
                 targetCommandsLineStarting(p.local.out, "    PID"));
        // The same machine: the same kernel threads, listed by the agent.
        const Pair j = runBoth("threads", {"--json"}, false);
        QCOMPARE(j.local.exitCode, 0);
        QCOMPARE(j.remote.exitCode, 0);
        const nlohmann::json local = nlohmann::json::parse(j.local.out.toStdString(), nullptr, false);
        const nlohmann::json remote = nlohmann::json::parse(j.remote.out.toStdString(), nullptr, false);
        QVERIFY(!local.is_discarded());
        QVERIFY2(!remote.is_discarded(), qPrintable(j.remote.out));
        QVERIFY(remote.contains("target"));
        QVERIFY(!remote["threads"].empty());
        QCOMPARE(QString::fromStdString(remote["threads"].front().value("name", std::string())),
                 QString::fromStdString(local["threads"].front().value("name", std::string())));
        // --all is the local list only: refused with the reason.
        QCOMPARE(refusalProblem({"threads", "--all", "--target-cmd", targetCommandsAgent()}, "agent sends"), QString());
    }

    void probe()
    {
        const Pair p = runBoth("probe", {}, false);
        checkPair(p, "probe", false);
        QCOMPARE(targetCommandsLineStarting(p.remote.out, "kernel:"),
                 targetCommandsLineStarting(p.local.out, "kernel:"));
        QCOMPARE(targetCommandsLineStarting(p.remote.out, "hostname:"),
                 targetCommandsLineStarting(p.local.out, "hostname:"));
    }

    // `rtscope run --preset` on a target: every experiment a preset can name, as a comparison of two short phases, here
    // and on the agent. Each phase on the agent opens its own link (the run's end closes it): the same phase lines,
    // each phase's header followed by the target's line, the same comparison, and each phase's report with the local
    // one's keys plus its "target" (the probe and the histogram's bins are the run's own).
    void runPresets_data()
    {
        QTest::addColumn<QString>("experiment");
        QTest::addColumn<QString>("phase"); // the JSON of both phases
        QTest::addColumn<QString>("needs"); // "fifo", "deadline" or empty
        QTest::newRow("latency") << "latency"
                                 << R"({"duration_ns": 300000000})"
                                 << "";
        QTest::newRow("starvation") << "starvation"
                                    << R"({"bursts": 1, "burst_ns": 30000000, "gap_ns": 40000000})"
                                    << "fifo";
        QTest::newRow("drift") << "drift"
                               << R"({"period_ns": 1000000, "ticks": 40, "methods": ["naive", "abs"]})"
                               << "";
        QTest::newRow("sleep-floor") << "sleep-floor"
                                     << R"({"requests_ns": [100000, 1000000], "samples": 10, "methods": ["nanosleep"]})"
                                     << "";
        QTest::newRow("inversion") << "inversion"
                                   << R"({"duration_ns": 400000000})"
                                   << "fifo";
        QTest::newRow("contention") << "contention"
                                    << R"({"duration_ns": 200000000, "kinds": ["spin", "mutex"]})"
                                    << "";
        QTest::newRow("deadline") << "deadline"
                                  << R"({"lesson": "isolation", "duration_ns": 300000000})"
                                  << "deadline";
        QTest::newRow("noise") << "noise"
                               << R"({"duration_ns": 300000000, "trace": false})"
                               << "";
    }

    void runPresets()
    {
        QFETCH(QString, experiment);
        QFETCH(QString, phase);
        QFETCH(QString, needs);
        if (needs == "fifo")
            RTSCOPE_SKIP_IF(withoutFifo(probeSystem()));
        if (needs == "deadline")
            RTSCOPE_SKIP_IF(withoutDeadline());
        if (experiment == "starvation" && probeSystem().onlineCpus.size() < 2)
            RTSCOPE_SKIP(Cpus, "the watchdog needs a CPU other than the spinner's");
        const nlohmann::json config = nlohmann::json::parse(phase.toStdString());
        const nlohmann::json preset = {{"title", "on a target"},
                                       {"experiment", experiment.toStdString()},
                                       {"labels", {"first", "second"}},
                                       {"phases", {config, config}}};
        const QString file = path(experiment + "-preset.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QByteArray::fromStdString(preset.dump()));
        f.close();

        const Pair p = runBoth("run", {"--preset", file});
        QVERIFY2(p.local.exitCode == 0, qPrintable(p.local.err + p.local.out));
        QVERIFY2(p.remote.exitCode == 0, qPrintable(p.remote.err + p.remote.out));
        QCOMPARE(targetCommandsAgentsLeft(), 0);
        QCOMPARE(p.local.out.count("# target: "), 0);
        QCOMPARE(p.remote.out.count("# target: "), 2);
        for (const QString& line : {QString("== phase 1 of 2: first (reference) =="),
                                    QString("== phase 2 of 2: second =="), QString("Comparison, first → second: ")}) {
            QVERIFY2(p.local.out.contains(line), qPrintable(line + "\n" + p.local.out));
            QVERIFY2(p.remote.out.contains(line), qPrintable(line + "\n" + p.remote.out));
        }

        const nlohmann::json local = nlohmann::json::parse(readAll(path("local.json")).toStdString(), nullptr, false);
        const nlohmann::json remote = nlohmann::json::parse(readAll(path("remote.json")).toStdString(), nullptr, false);
        QVERIFY(!local.is_discarded() && !remote.is_discarded());
        QCOMPARE(remote["phases"].size(), size_t(2));
        for (size_t i = 0; i < 2; ++i) {
            const nlohmann::json& report = remote["phases"][i]["report"];
            const nlohmann::json& body =
                report.contains("rtscope") && report["rtscope"].is_object() && report["rtscope"].contains("target")
                    ? report["rtscope"]
                    : report;
            QVERIFY2(body.contains("target"), report.dump().substr(0, 800).c_str());
            QCOMPARE(QString::fromStdString(body["target"].value("agent_version", std::string())),
                     QString(RTSCOPE_VERSION));
            std::set<std::string> here;
            std::set<std::string> there;
            targetCommandsKeys(local["phases"][i]["report"], "", here);
            targetCommandsKeys(report, "", there);
            for (const std::string& k : here)
                if (k.find("/probe") == std::string::npos && k.find("/histogram/") == std::string::npos)
                    QVERIFY2(there.count(k),
                             ("phase " + std::to_string(i + 1) + ": the remote report lacks " + k).c_str());
            for (const std::string& k : there)
                if (!here.count(k) && k.find("/probe") == std::string::npos &&
                    k.find("/histogram/") == std::string::npos)
                    QVERIFY2(k.find("/target") != std::string::npos,
                             ("phase " + std::to_string(i + 1) + ": the remote report adds " + k).c_str());
        }
    }

    // A config the agent refuses: the local run's sentence, exit code 2, nothing measured.
    void refusalIsTheLocalOne()
    {
        const QStringList bad{"drift", "-n", "20", "-a", "4096"};
        Run local;
        Run remote;
        QCOMPARE(refusalProblem(bad, "cpu must be one of", &local), QString());
        QCOMPARE(
            refusalProblem(bad + QStringList{"--target-cmd", targetCommandsAgent()}, "cpu must be one of", &remote),
            QString());
        const QString sentence = targetCommandsLineStarting(local.err, "rtscope drift: ");
        QVERIFY(!sentence.isEmpty());
        QVERIFY2(remote.err.contains(sentence), qPrintable(remote.err));
        // Flags that cannot name a target are the command's own bad input, before anything is started.
        QCOMPARE(refusalProblem({"noise", "--target", "ftp://x", "-D", "1s"}, "is not a target"), QString());
        QCOMPARE(refusalProblem({"run", "--preset", "drift-vs-absolute", "--target", "ftp://x"}, "is not a target"),
                 QString());
        QCOMPARE(refusalProblem({"starve", "--target-cmd", "true", "--target", "tcp://127.0.0.1:1"}, "twice"),
                 QString());
    }

    // An agent that is not there: the command says so and fails (1), no hang.
    void unreachableTarget()
    {
        const Run r = run({"sleep-floor", "-l", "5", "--target-cmd", "exit 3"}, 60'000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("rtscope sleep-floor: target-cmd"), qPrintable(r.err));
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
    }

    // Every command lists the target flags in its help.
    void helpNamesTheTargetFlags()
    {
        for (const char* command :
             {"drift", "sleep-floor", "starve", "locks", "inversion", "deadline", "noise", "sweep", "threads", "probe"})
            QCOMPARE(missingFromHelp({command}, {"--target", "--target-cmd", "--target-token", "--target-agent",
                                                 "--target-ssh-option"}),
                     QStringList());
    }
};

RTSCOPE_TEST_MAIN(TestTargetCommandsCli)
#include "tst_target_commands_cli.moc"
