#include "ui/app/gui_options.h"

#include "engine/experiments/latency/latency_flags.h"
#include "engine/formats/output_file.h"
#include "engine/remote/agent_client.h"
#include "engine/util/input_file.h"
#include "engine/util/json_text.h"
#include "engine/util/units.h"

#include <QCommandLineParser>
#include <QFile>

#include <nlohmann/json.hpp>

namespace rtscope {

bool GuiOptions::hasLatencyConfig() const
{
    return !configJson.isEmpty() || !policy.isEmpty() || !period.isEmpty() || !waiter.isEmpty() || priority || hogs ||
           cpu || hogCpu || trace;
}

namespace {
// A --config-json is a preset or a --json report; the largest report (every bin of a wide histogram) is a few MiB,
// the same bound as an imported cyclictest file.
constexpr size_t kMaxConfigJsonBytes = size_t(64) << 20;
// The window's default real-time priority, which "--policy fifo" alone gets.
constexpr int kGuiDefaultRtPriority = 80;

std::optional<int> intOption(const QCommandLineParser& p, const QString& name, QStringList& problems)
{
    if (!p.isSet(name))
        return std::nullopt;
    bool ok = false;
    const int v = p.value(name).toInt(&ok);
    if (!ok) {
        problems << QString("%1 must be a whole number (got '%2')").arg(name, p.value(name));
        return std::nullopt;
    }
    return v;
}

// A CPU flag: inside, a negative CPU means "rtscope chooses", which the user asks for by leaving the flag out.
std::optional<int> cpuOption(const QCommandLineParser& p, const QString& name, QStringList& problems)
{
    const std::optional<int> v = intOption(p, name, problems);
    if (v && *v < 0) {
        problems << QString("%1 must be a CPU number, 0 or more (got %2); leave --%1 out for the automatic choice")
                        .arg(name)
                        .arg(*v);
        return std::nullopt;
    }
    return v;
}

std::optional<double> secondsOption(const QCommandLineParser& p, const QString& name, QStringList& problems)
{
    if (!p.isSet(name))
        return std::nullopt;
    bool ok = false;
    const double v = p.value(name).toDouble(&ok);
    if (!ok || v < 0 || v > 86400) {
        problems << QString("%1 must be between 0 and 86400 seconds (got '%2')").arg(name, p.value(name));
        return std::nullopt;
    }
    return v;
}

// A flag's help as the CLI words it, as a sentence: after @p lead where the words are a list of values.
QString help(const std::string& words, const char* lead = nullptr)
{
    QString s = QString::fromStdString(words);
    if (lead)
        return QString("%1: %2.").arg(QLatin1String(lead), s);
    s[0] = s[0].toUpper();
    return s + '.';
}
} // namespace

QStringList parseGuiOptions(const QStringList& arguments, GuiOptions& o, QString* helpText)
{
    QCommandLineParser p;
    p.setApplicationDescription("rtscope: see Linux scheduling latency live. With no subcommand it opens the "
                                "desktop app; 'rtscope --help' lists the headless subcommands.");
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    p.addOptions({
        {"help-gui", "Show these options and exit."},
        {"start", "Start the shown page's experiment at launch (with the saved, or given, configuration)."},
        {"page", "Show this page first: latency, starvation, drift, sleep-floor, … (the tab's name).", "name"},
        {"config-json", "Read the latency configuration from a JSON file.", "file"},
        {"open",
         "Open a recording (replayed in the latency views) or cyclictest -h/--json results (held as the "
         "reference; several threads are summed). A lone file argument does the same.",
         "file"},
        {"compare",
         "Compare the files given after the options (cyclictest -h or --json results, recordings) in a window of "
         "their own: a histogram curve and a table row per file, the worst maximum first."},
        // The latency flags say what `rtscope latency --help` says (engine/experiments/latency/latency_flags.h).
        {"policy", help(latency_flag_help::policy(false), "Policy of the measuring thread"), "policy"},
        {"priority", help(latency_flag_help::priority()), "n"},
        {"period", help(latency_flag_help::period()), "duration"},
        {"hogs", help(latency_flag_help::hogs()), "n"},
        {"cpu", help(latency_flag_help::cpu()), "n"},
        {"hog-cpu", help(latency_flag_help::hogCpu()), "n"},
        {"waiter", help(latency_flag_help::waiter(), "How to wait"), "kind"},
        {"trace", "Explain spikes from the kernel's trace events (the Latency page's \"Explain spikes (kernel "
                  "tracing)\"): why each late wake-up was late, under \"Why late?\"."},
        {"target",
         "Measure another machine: ssh://[USER@]HOST[:PORT] (ssh runs 'rtscope agent --stdio' there) or "
         "tcp://HOST:PORT (an agent started with --listen; its token with --target-token) or unix:PATH (an agent "
         "listening on that socket here), as File > Connect to target… does (docs/remote.md).",
         "url"},
        {"target-token",
         "The token file of a tcp:// agent (it prints the path at start); default: $RTSCOPE_AGENT_TOKEN_FILE.", "file"},
        {"target-cmd",
         "Measure another machine: this command runs 'rtscope agent --stdio' there (ssh user@board …), as File > "
         "Connect to target… does (docs/remote.md).",
         "command"},
        {"screenshot", "Save a screenshot of the window to this PNG file.", "file"},
        {"screenshot-after", "Seconds after start-up (or after --demo) before the screenshot (default 3).", "seconds"},
        {"quit-after-screenshot", "Close the window (stopping every thread) once the screenshot is saved."},
        {"quit-after", "Close the window after this many seconds.", "seconds"},
        {"demo",
         "Run a scripted comparison: 'other-vs-fifo' (SCHED_OTHER with hogs, hold as reference, then "
         "SCHED_FIFO 80).",
         "name"},
        {"demo-seconds", "Length of each phase of the demo (default 4).", "seconds"},
        {"preset",
         "Play a lesson preset at launch: a built-in name (rtscope run --list) or a preset file (.json). A "
         "comparison runs the first setting, holds it as reference, then runs the second.",
         "name|file"},
        {"presentation", "Start in presentation mode: full screen, larger text, thicker lines, high contrast (F11)."},
        {"explain", "Open the \"What am I seeing?\" pane next to the page (F1)."},
        {"settings", "Use this INI file for settings instead of the user's.", "file"},
        {"theme", "light or dark (Fusion style); default: the desktop's.", "name"},
        {"font-size", "Font size in points (default 12, for projection).", "points"},
        {"size", "Window size, e.g. 1600x1000.", "WxH"},
    });
    QStringList problems;
    if (!p.parse(arguments)) {
        problems << p.errorText();
        return problems;
    }
    o.open = p.value("open");
    o.target = p.value("target").trimmed();
    if (p.isSet("target")) {
        std::string why; // the CLI's parser: the same URLs, the same sentence
        if (!parseAgentTarget(o.target.toStdString(), why))
            problems << QString("target '%1' is not a target: %2; give %3")
                            .arg(o.target, QString::fromStdString(why), kAgentTargetForms);
    }
    o.targetToken = p.value("target-token");
    if (p.isSet("target-token") && !o.target.startsWith("tcp://"))
        problems << "target-token is the token of an agent listening on TCP; give --target tcp://…";
    if (p.isSet("target") && p.isSet("target-cmd"))
        problems << "target and --target-cmd name the target twice; give one of them";
    o.targetCmd = p.value("target-cmd").trimmed();
    if (p.isSet("target-cmd") && o.targetCmd.isEmpty())
        problems << "target-cmd needs a command that runs the agent, e.g. --target-cmd \"ssh root@board rtscope "
                    "agent --stdio\"";
    // `rtscope --compare a.json b.hist …`: every file argument is compared. One that cannot be read is the compare
    // window's to say (the others are still shown), so only "no file at all" is refused here.
    const QStringList files = p.isSet("compare") ? QStringList() : p.positionalArguments();
    if (p.isSet("compare")) {
        o.compare = p.positionalArguments();
        if (o.compare.isEmpty())
            problems << "compare needs the files to compare after the options, e.g. --compare a.json b.hist";
    }
    // `rtscope FILE` (the desktop file's "Exec=rtscope %f") opens FILE like --open.
    if (files.size() == 1 && o.open.isEmpty() && QFile::exists(files.first()))
        o.open = files.first();
    else if (files.size() == 1 && o.open.isEmpty())
        problems << QString("cannot open '%1': there is no such file").arg(files.first());
    else if (!files.isEmpty())
        problems << QString("unexpected argument '%1'; the desktop app takes only options and one file to open "
                            "(see --help-gui)")
                        .arg(files.size() == 1 ? files.first() : files.at(1));
    if (helpText)
        *helpText = p.helpText();
    o.help = p.isSet("help-gui");
    o.start = p.isSet("start");
    o.page = p.value("page");
    o.configJson = p.value("config-json");
    o.policy = p.value("policy");
    o.period = p.value("period");
    o.waiter = p.value("waiter");
    o.priority = intOption(p, "priority", problems);
    o.hogs = intOption(p, "hogs", problems);
    o.cpu = cpuOption(p, "cpu", problems);
    o.hogCpu = cpuOption(p, "hog-cpu", problems);
    o.trace = p.isSet("trace");
    o.screenshot = p.value("screenshot");
    if (auto v = secondsOption(p, "screenshot-after", problems))
        o.screenshotAfter = *v;
    o.quitAfterScreenshot = p.isSet("quit-after-screenshot");
    if (o.quitAfterScreenshot && o.screenshot.isEmpty())
        problems << "quit-after-screenshot needs --screenshot FILE";
    if (auto v = secondsOption(p, "quit-after", problems))
        o.quitAfter = *v;
    o.demo = p.value("demo");
    if (!o.demo.isEmpty() && o.demo != "other-vs-fifo")
        problems << QString("demo must be other-vs-fifo (got '%1')").arg(o.demo);
    if (auto v = secondsOption(p, "demo-seconds", problems)) {
        if (*v < 1 || *v > 600)
            problems << QString("demo-seconds must be between 1 and 600 (got %1)").arg(*v);
        else
            o.demoSeconds = *v;
    }
    o.preset = p.value("preset");
    if (!o.preset.isEmpty() && !o.demo.isEmpty())
        problems << "preset and demo are exclusive: give one of them";
    o.presentation = p.isSet("presentation");
    o.explain = p.isSet("explain");
    o.settingsFile = p.value("settings");
    // Before any window work: a file the app will write goes in a folder that exists (one that does not is refused,
    // not created as whoever runs the app), is no link, and is no file the app reads.
    OutputPlan outputFiles;
    outputFiles.addOutput("--screenshot", o.screenshot.toStdString());
    outputFiles.addOutput("--settings", o.settingsFile.toStdString());
    outputFiles.addInput("--open", o.open.toStdString());
    for (const QString& compared : o.compare)
        outputFiles.addInput("--compare", compared.toStdString());
    outputFiles.addInput("--config-json", o.configJson.toStdString());
    for (const std::string& problem : checkOutputs(outputFiles))
        problems << QString::fromStdString(problem);
    o.theme = p.value("theme");
    if (!o.theme.isEmpty() && o.theme != "light" && o.theme != "dark")
        problems << QString("theme must be light or dark (got '%1')").arg(o.theme);
    if (p.isSet("font-size")) {
        bool ok = false;
        o.fontSize = p.value("font-size").toDouble(&ok);
        if (!ok || o.fontSize < 6 || o.fontSize > 48)
            problems << QString("font-size must be between 6 and 48 points (got '%1')").arg(p.value("font-size"));
    }
    if (p.isSet("size")) {
        const QStringList wh = p.value("size").split('x');
        bool okW = false, okH = false;
        const int w = wh.size() == 2 ? wh[0].toInt(&okW) : 0;
        const int h = wh.size() == 2 ? wh[1].toInt(&okH) : 0;
        if (!okW || !okH || w < 640 || h < 480 || w > 10000 || h > 10000)
            problems
                << QString("size must be WIDTHxHEIGHT between 640x480 and 10000x10000 (got '%1')").arg(p.value("size"));
        else
            o.windowSize = QSize(w, h);
    }
    return problems;
}

LatencyConfig latencyConfigFromOptions(const GuiOptions& o, const LatencyConfig& base, QStringList& problems)
{
    LatencyConfig c = base;
    if (!o.configJson.isEmpty()) {
        std::string text, why;
        if (!readRegularFile(o.configJson.toStdString(), kMaxConfigJsonBytes, text, why)) {
            problems << QString("config-json: %1").arg(QString::fromStdString(why));
        } else {
            const ParsedJson parsed = parseJsonText(text, "config-json: '" + o.configJson.toStdString() + "'");
            if (!parsed.ok()) {
                problems << QString::fromStdString(
                    parsed.error("config-json: '" + o.configJson.toStdString() + "' is not valid JSON"));
            } else {
                const nlohmann::json& j = parsed.value;
                std::vector<std::string> errors;
                // A preset or a --json report: the config is the whole object or its "rtscope" member.
                const nlohmann::json& obj = (j.is_object() && j.contains("rtscope")) ? j.at("rtscope") : j;
                c = latencyConfigFromJson(obj, errors);
                for (const auto& e : errors)
                    problems << QString("config-json: %1").arg(QString::fromStdString(e));
            }
        }
    }
    LatencyFlagText flags;
    const auto text = [](const QString& value) {
        return value.isEmpty() ? std::nullopt : std::optional<std::string>(value.toStdString());
    };
    flags.policy = text(o.policy);
    flags.priority = o.priority;
    flags.period = text(o.period);
    flags.hogs = o.hogs;
    flags.cpu = o.cpu;
    flags.hogCpu = o.hogCpu;
    flags.waiter = text(o.waiter);
    flags.trace = o.trace;
    std::vector<std::string> errors;
    applyLatencyFlags(flags, {.deadline = false, .defaultRtPriority = kGuiDefaultRtPriority}, c, errors);
    for (const std::string& e : errors)
        problems << QString::fromStdString(e);
    return c;
}

} // namespace rtscope
