// ctest: parallel. Pure preset parsing.
// Presets: every built-in preset passes the experiments' own validation, and a malformed, out-of-range or
// hostile preset is refused with sentences naming the file, the field and the allowed range — never a crash,
// never a half-read preset. No threads are started.
#include "engine/presets/preset.h"
#include "engine/rt/cpu_topology.h"

#include "tests/common/data_rows.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include <QFile>
#include <QTemporaryDir>

#include <QtTest>

#include <set>

using namespace rtscope;
using namespace rtscope::test;

namespace {

// A valid two-phase latency preset whose second phase gets @p phase1 merged in.
std::string latencyPreset(const nlohmann::json& phase1Patch, const nlohmann::json& topPatch = nlohmann::json::object())
{
    nlohmann::json phase0 = {{"policy", "other"}, {"hogs", 4}, {"period_ns", 1000000}};
    nlohmann::json phase1 = {{"policy", "fifo"}, {"priority", 80}, {"hogs", 4}, {"period_ns", 1000000}};
    if (phase1Patch.is_object())
        phase1.update(phase1Patch);
    nlohmann::json p = {{"title", "test"}, {"experiment", "latency"}, {"phases", {phase0, phase1}}};
    if (topPatch.is_object())
        p.update(topPatch);
    return p.dump();
}

std::string onePhase(const std::string& experiment, const nlohmann::json& config)
{
    return nlohmann::json{{"title", "t"}, {"experiment", experiment}, {"phases", {config}}}.dump();
}

} // namespace

class TestPreset : public QObject {
    Q_OBJECT
private slots:
    void everyBuiltinPresetValidates()
    {
        std::vector<std::string> errors;
        const std::vector<Preset> presets = builtinPresets(&errors);
        QVERIFY2(errors.empty(), qPrintable(joined(errors)));
        QCOMPARE(presets.size(), builtinPresetFiles().size());
        QCOMPARE(presets.size(), size_t(7));
        // The seven built-in lessons (docs/presets.md), in lesson order, one per experiment.
        const QStringList titles = {
            "FIFO vs OTHER under 16 hogs", "FIFO starvation and RT throttling",  "Sleep loop drift vs absolute timers",
            "Sleep floor and timer slack", "Priority inversion and inheritance", "Spin vs sleep vs adaptive locks",
            "DEADLINE cannot starve"};
        std::set<std::string> experiments, ids;
        for (size_t i = 0; i < presets.size(); ++i) {
            const Preset& p = presets[i];
            QCOMPARE(QString::fromStdString(p.title), titles[int(i)]);
            QCOMPARE(QString::fromStdString(p.experiment), QString::fromStdString(presetExperiments()[i]));
            QVERIFY(!p.description.empty());
            QCOMPARE(p.labels.size(), p.phases.size());
            QCOMPARE(QString::fromStdString(p.source), QString::fromStdString(p.id) + ".json");
            experiments.insert(p.experiment);
            ids.insert(p.id);
            // Each phase on its own, once more, through the experiment's validation path.
            for (const nlohmann::json& phase : p.phases) {
                const std::vector<std::string> problems = validateExperimentConfig(p.experiment, phase);
                QVERIFY2(problems.empty(), qPrintable(QString::fromStdString(p.id) + ": " + joined(problems)));
            }
        }
        QCOMPARE(experiments.size(), size_t(7));
        QCOMPARE(ids.size(), size_t(7));
    }

    void comparisonsDifferOnlyInWhatTheyCompare()
    {
        const PresetParseResult r = loadPreset("fifo-vs-other");
        QVERIFY2(r.preset, qPrintable(joined(r.errors)));
        const Preset& p = *r.preset;
        QVERIFY(p.isComparison());
        QCOMPARE(p.referenceLabel(), std::string("SCHED_OTHER, 16 hogs"));
        nlohmann::json a = p.phases[0], b = p.phases[1];
        QCOMPARE(a.at("hogs").get<int>(), 16);
        QCOMPARE(a.at("policy").get<std::string>(), std::string("other"));
        QCOMPARE(b.at("policy").get<std::string>(), std::string("fifo"));
        QCOMPARE(b.at("priority").get<int>(), 80);
        for (const char* k : {"policy", "priority"}) {
            a.erase(k);
            b.erase(k);
        }
        QCOMPARE(a, b);

        const PresetParseResult slack = loadPreset("sleep-floor-slack");
        QVERIFY(slack.preset && slack.preset->isComparison());
        QCOMPARE(slack.preset->phases[0].at("timer_slack_ns").get<int>(), 0);
        QCOMPARE(slack.preset->phases[1].at("timer_slack_ns").get<int>(), 1);
        const PresetParseResult pi = loadPreset("priority-inversion");
        QVERIFY(pi.preset && pi.preset->isComparison());
        QCOMPARE(pi.preset->phases[0].at("lock").get<std::string>(), std::string("mutex"));
        QCOMPARE(pi.preset->phases[1].at("lock").get<std::string>(), std::string("pi"));
    }

    void aMinimalPresetTakesTheDefaults()
    {
        const CpuTopology cpus = twoCpuTopology();
        const PresetParseResult r = parsePreset(onePhase("latency", nlohmann::json::object()), "mine.json", &cpus);
        QVERIFY2(r.preset, qPrintable(joined(r.errors)));
        QCOMPARE(r.preset->id, std::string("mine"));
        QCOMPARE(r.preset->labels, std::vector<std::string>{"phase 1"});
        QCOMPARE(r.preset->phaseSeconds, Preset::kDefaultPhaseSeconds);
        QVERIFY(!r.preset->isComparison());
    }

    void refusals_data()
    {
        test::addRows<QString, QString>(
            {"text", "expected"},
            {// The example docs/presets.md gives under Errors: file, field path, range, the value given.
             {"priority out of range", QString::fromStdString(latencyPreset({{"priority", 120}})),
              "p.json: phases[1].priority must be between 1 and 99 for fifo (got 120)"},
             {"CLI flag name becomes the JSON field", QString::fromStdString(latencyPreset({{"period_ns", 5}})),
              "p.json: phases[1].period_ns must be between 10.0 us and 10.000 s (got 5 ns)"},
             {"hog cpu", QString::fromStdString(latencyPreset({{"hog_cpu", 7}})),
              "p.json: phases[1].hog_cpu must be one of the online CPUs"},
             {"wrong type in a phase", QString::fromStdString(latencyPreset({{"hogs", "many"}})),
              "p.json: phases[1].hogs must be an integer"},
             {"unknown field in a phase", QString::fromStdString(latencyPreset({{"colour", "red"}})),
              "p.json: phases[1]: unknown field 'colour'"},
             {"unknown top-level field", QString::fromStdString(latencyPreset({}, {{"colour", "red"}})),
              "p.json: unknown field 'colour'"},
             {"phase seconds too short", QString::fromStdString(latencyPreset({}, {{"phase_seconds", 0.5}})),
              "p.json: phase_seconds must be between 1 and 600 seconds (got 0.5)"},
             {"phase seconds as text", QString::fromStdString(latencyPreset({}, {{"phase_seconds", "8"}})),
              "p.json: phase_seconds must be between 1 and 600 seconds (got \"8\")"},
             {"labels per phase", QString::fromStdString(latencyPreset({}, {{"labels", {"only one"}}})),
              "p.json: labels must have one entry per phase (2; got 1)"},
             {"unknown experiment", QString::fromStdString(latencyPreset({}, {{"experiment", "warp"}})),
              "p.json: experiment must be one of latency, starvation, drift, sleep-floor, inversion, contention, "
              "deadline, noise (got 'warp')"},
             {"missing title", QString::fromStdString(latencyPreset({}, {{"title", ""}})),
              "p.json: title must be 1 to 120 characters long (got 0)"},
             {"three phases", "{\"title\":\"t\",\"experiment\":\"drift\",\"phases\":[{},{},{}]}",
              "p.json: phases must be a list of 1 or 2 configurations (got 3 entries)"},
             {"no phases", "{\"title\":\"t\",\"experiment\":\"drift\",\"phases\":[]}",
              "p.json: phases must be a list of 1 or 2 configurations (got 0 entries)"},
             {"phase not an object", "{\"title\":\"t\",\"experiment\":\"drift\",\"phases\":[42]}",
              "p.json: phases[0] must be a JSON object: a drift configuration"},
             {"not JSON", "{\"title\": ", "p.json: not valid JSON (parse error at line 1, column 11"},
             {"not an object", "[1, 2]", "p.json: a preset must be a JSON object"},
             // Each experiment's own validate(), with its field names mapped to the file's.
             {"starvation priority", QString::fromStdString(onePhase("starvation", {{"priority", 99}})),
              "p.json: phases[0].priority must be between 1 and 98 (got 99): the watchdog runs above it at 99"},
             {"starvation burst", QString::fromStdString(onePhase("starvation", {{"burst_ns", 9000000000}})),
              "p.json: phases[0].burst_ns must be between 10.00 ms and 5.000 s"},
             {"drift stall", QString::fromStdString(onePhase("drift", {{"stall_ns", 1000}})),
              "p.json: phases[0].stall_tick must be between 1 and 499"},
             {"drift method", QString::fromStdString(onePhase("drift", {{"methods", {"busy"}}})),
              "p.json: phases[0].methods: unknown method \"busy\""},
             {"sleep floor margin", QString::fromStdString(onePhase("sleep-floor", {{"hybrid_margin_ns", -1}})),
              "p.json: phases[0].hybrid_margin_ns must be between 0 ns and 10.00 ms"},
             {"sleep floor slack", QString::fromStdString(onePhase("sleep-floor", {{"timer_slack_ns", 20000000}})),
              "p.json: phases[0].timer_slack_ns must be between 0 (the default) and 10.00 ms"},
             {"inversion priorities", QString::fromStdString(onePhase("inversion", {{"low_priority", 40}})),
              "p.json: phases[0]: priorities must rise from low to medium to high"},
             {"contention threads", QString::fromStdString(onePhase("contention", {{"threads", 1}})),
              "p.json: phases[0].threads must be between 2 and 32 (got 1)"}});
    }

    void refusals()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const CpuTopology cpus = twoCpuTopology();
        const PresetParseResult r = parsePreset(text.toStdString(), "p.json", &cpus);
        QVERIFY2(!r.preset, "a refused preset must not be returned half-read");
        QVERIFY(!r.errors.empty());
        const QString all = joined(r.errors);
        QVERIFY2(all.contains(expected), qPrintable("expected '" + expected + "' in: " + all));
        for (const std::string& e : r.errors)
            QVERIFY2(QString::fromStdString(e).startsWith("p.json: "), e.c_str());
    }

    void everyProblemIsReportedAtOnce()
    {
        const CpuTopology cpus = twoCpuTopology();
        const std::string text = latencyPreset({{"priority", 120}, {"hogs", 999}}, {{"phase_seconds", 0}});
        const PresetParseResult r = parsePreset(text, "many.json", &cpus);
        QCOMPARE(r.errors.size(), size_t(3));
    }

    void hostileFilesAreRefusedWithoutACrash_data()
    {
        test::addRows<QByteArray, QString>(
            {"text", "expected"},
            {{"oversized", QByteArray(int(Preset::kMaxFileBytes) + 1, ' '),
              "p.json: the file is 262145 bytes; a preset must be at most 262144 bytes"},
             // Deep nesting within the size limit: refused before parsing (copying such a value would recurse).
             {"deep nesting", QByteArray(100000, '[') + QByteArray(100000, ']'),
              "p.json: the file nests lists and objects 100000 levels deep; rtscope "
              "reads at most 16"},
             {"brackets in a string are text",
              QByteArray("{\"title\":\"") + QByteArray(1000, '[') + "\",\"experiment\":\"drift\",\"phases\":[7]}",
              "p.json: phases[0] must be a JSON object"},
             {"deep nesting in a phase",
              QByteArray("{\"title\":\"t\",\"experiment\":\"latency\",\"phases\":[{\"cpus\":") +
                  QByteArray(50000, '[') + QByteArray(50000, ']') + "}]}",
              "p.json: the file nests lists and objects 50003 levels deep"},
             {"nesting just allowed",
              QByteArray("{\"title\":\"t\",\"experiment\":\"latency\",\"phases\":[{\"cpus\":") + QByteArray(13, '[') +
                  QByteArray(13, ']') + "}]}",
              "p.json: phases[0].cpus must be an array of CPU numbers"},
             {"NUL byte", QByteArray("{\"title\":\"a\0b\"}", 15), "p.json: not valid JSON"},
             {"invalid UTF-8", QByteArray("{\"title\":\"\xff\xfe\"}"), "p.json: not valid JSON"},
             {"huge number", QByteArray("{\"title\":\"t\",\"experiment\":\"latency\",\"phases\":[{\"hogs\":1e300}]}"),
              "p.json: phases[0].hogs must be an integer"},
             {"integer overflow",
              QByteArray(
                  "{\"title\":\"t\",\"experiment\":\"latency\",\"phases\":[{\"hogs\":99999999999999999999999}]}"),
              "p.json: phases[0].hogs must be an integer"},
             {"long title",
              QByteArray("{\"title\":\"") + QByteArray(5000, 'x') + "\",\"experiment\":\"latency\",\"phases\":[{}]}",
              "p.json: title must be 1 to 120 characters long (got 5000)"},
             {"empty file", QByteArray(), "p.json: not valid JSON"}});
    }

    void hostileFilesAreRefusedWithoutACrash()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        const CpuTopology cpus = twoCpuTopology();
        const PresetParseResult r =
            parsePreset(std::string_view(text.constData(), size_t(text.size())), "p.json", &cpus);
        QVERIFY(!r.preset);
        const QString all = joined(r.errors);
        QVERIFY2(all.contains(expected), qPrintable("expected '" + expected + "' in: " + all));
    }

    void theMachineDecidesWhatRuns()
    {
        // The same preset against a one-CPU machine: the starvation lab refuses to put a spinner on it.
        CpuTopology one;
        one.online = {0};
        one.allowed = {0};
        const PresetParseResult r = loadPreset("fifo-starvation", &one);
        QVERIFY(!r.preset);
        QVERIFY2(joined(r.errors).contains("fifo-starvation.json: phases[0].cpu: this machine has only one online CPU"),
                 qPrintable(joined(r.errors)));
    }

    void namesAndFiles()
    {
        const PresetParseResult unknown = loadPreset("no-such-lesson");
        QCOMPARE(unknown.errors.size(), size_t(1));
        const QString text = QString::fromStdString(unknown.errors.front());
        QVERIFY2(text.startsWith("preset 'no-such-lesson' is not a built-in preset; the built-in presets are "),
                 qPrintable(text));
        for (const PresetFile& f : builtinPresetFiles())
            QVERIFY(text.contains(QString::fromStdString(std::string(f.name)).chopped(5)));

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("mine.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(latencyPreset({{"priority", 0}}).c_str());
        f.close();
        QVERIFY(presetArgumentIsFile(path.toStdString()));
        QVERIFY(presetArgumentIsFile("mine.json"));
        QVERIFY(!presetArgumentIsFile("fifo-vs-other"));
        const PresetParseResult bad = loadPreset(path.toStdString());
        QVERIFY(!bad.preset);
        QVERIFY2(joined(bad.errors).startsWith(path + ": phases[1].priority must be between 1 and 99"),
                 qPrintable(joined(bad.errors)));

        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(latencyPreset({}).c_str());
        f.close();
        const PresetParseResult good = loadPreset(path.toStdString());
        QVERIFY2(good.preset, qPrintable(joined(good.errors)));
        QCOMPARE(good.preset->id, std::string("mine"));

        const PresetParseResult missing = loadPreset(dir.filePath("absent.json").toStdString());
        QVERIFY2(joined(missing.errors).contains("absent.json': No such file or directory"),
                 qPrintable(joined(missing.errors)));
        const PresetParseResult directory = loadPreset(dir.path().toStdString() + "/");
        QVERIFY2(joined(directory.errors).contains("is a directory, not a regular file"),
                 qPrintable(joined(directory.errors)));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestPreset)
#include "tst_preset.moc"
