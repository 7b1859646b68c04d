// `rtscope run --preset NAME|FILE`: a lesson from resources/presets (or a file of the same format), run headless
// through the experiment's own subcommand code. A comparison preset runs both phases and ends with one line
// that sets their headline figures side by side.
#include "app/cli/command_util.h"
#include "app/cli/remote_target.h"

#include "engine/experiments/registry.h"
#include "engine/presets/preset.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_threads.h"
#include "engine/util/clock.h"
#include "engine/util/printable.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

namespace rtscope::cli {

namespace {

struct RunOptions {
    std::string preset;
    bool list = false;
    std::string json;
    bool quiet = false;
    RemoteTarget target; ///< --target, --target-cmd, …: every phase runs in an agent there (docs/remote.md)
};

// A command file that does not register its experiment's HeadlessRun (experiment_runs.h) is named before anything
// runs (and by `--list`, which the CLI tests check), rather than crashing on a null function.
template <class Config> bool isHeadlessRunRegistered()
{
    const HeadlessRun<Config>& h = headlessRun<Config>;
    return h.run != nullptr && h.firstThread != nullptr && h.onTarget != nullptr;
}

// Reads a phase the preset parser has already validated (so nothing is refused) and hands it to @p f as its
// experiment's config type.
template <class F> void withPhaseConfig(const Preset& p, size_t phase, F&& f)
{
    withExperimentConfigType(p.experiment, [&]<class Config>(std::type_identity<Config>) {
        std::vector<std::string> ignored;
        f(ExperimentTraits<Config>::fromJson(p.phases[phase], ignored));
    });
}

RunResult runPhase(const Preset& p, size_t phase, const RunOptions& o)
{
    const auto phaseNs = int64_t(p.phaseSeconds * double(kNsPerSec));
    RunOutput out;
    out.quiet = o.quiet;
    RunResult result;
    withPhaseConfig(p, phase, [&]<class Config>(Config c) {
        const HeadlessRun<Config>& h = headlessRun<Config>;
        if (h.fitToPhase)
            h.fitToPhase(c, out, phaseNs, !o.json.empty());
        if (!o.target.given()) {
            result = h.run(c, out);
            return;
        }
        // A link a phase: a run's end closes its link, and the agent leaves with it.
        CliTarget link("run");
        if (link.open(o.target))
            result = h.onTarget(link, c, out);
    });
    return result;
}

// The phase's thread that needs a privilege; nullopt when the phase needs none.
std::optional<ThreadSpec> privilegedThread(const Preset& p, size_t phase)
{
    const CpuTopology topo = CpuTopology::current();
    ThreadSpec spec;
    withPhaseConfig(p, phase, [&]<class Config>(const Config& c) { spec = headlessRun<Config>.firstThread(c, topo); });
    if (!isRealtime(spec.policy) && !isDeadline(spec.policy) && spec.nice >= 0)
        return std::nullopt;
    return spec;
}

// Every phase's privileged thread is tried before the first phase runs: a comparison whose second phase cannot
// start must not first spend the reference phase's run time to find out. On a target (@p here false) the agent is
// the one to refuse, with the same sentence, when the phase starts.
Error checkPhases(const Preset& p, bool here)
{
    bool registered = false;
    withExperimentConfigType(p.experiment, [&]<class Config>(std::type_identity<Config>) {
        registered = isHeadlessRunRegistered<Config>();
    });
    if (!registered)
        return Error{ErrorKind::System,
                     "rtscope cannot run a " + p.experiment + " preset headless: its command registers no HeadlessRun"};
    for (size_t i = 0; here && i < p.phases.size(); ++i)
        if (const std::optional<ThreadSpec> spec = privilegedThread(p, i))
            if (Error e = tryThreadSpec(*spec))
                return e;
    return {};
}

std::string figureText(double v, const std::string& unit)
{
    // Three significant figures or so, whatever the magnitude: 77 ns must not print as "0.1 us".
    const double a = std::fabs(v);
    const int decimals = a >= 100 || v == std::floor(v) ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return unit.empty() ? std::string(buf) : std::string(buf) + " " + unit;
}

// "max latency 3912 us → 14.2 us (276× lower)": the figures both phases have, in the order the run gave them.
std::string comparisonLine(const RunResult& ref, const RunResult& now)
{
    std::string line;
    for (const RunFigure& a : ref.figures)
        for (const RunFigure& b : now.figures) {
            if (a.name != b.name)
                continue;
            std::string ratio;
            if (a.value > 0 && b.value > 0 && a.value != b.value) {
                const double r = a.value > b.value ? a.value / b.value : b.value / a.value;
                char buf[48];
                std::snprintf(buf, sizeof buf, r >= 10 ? "%.0f× %s" : "%.2f× %s", r,
                              a.value > b.value ? "lower" : "higher");
                ratio = std::string(" (") + buf + ")";
            } else if (a.value == b.value) {
                ratio = " (same)";
            }
            line += (line.empty() ? "" : "; ") + a.name + " " + figureText(a.value, a.unit) + " → " +
                    figureText(b.value, b.unit) + ratio;
        }
    return line;
}

nlohmann::json figuresJson(const RunResult& r)
{
    nlohmann::json out = nlohmann::json::array();
    for (const RunFigure& f : r.figures)
        out.push_back({{"name", f.name}, {"value", f.value}, {"unit", f.unit}});
    return out;
}

bool printList()
{
    std::vector<std::string> errors;
    const std::vector<Preset> presets = builtinPresets(&errors);
    size_t width = 0;
    for (const Preset& p : presets)
        width = std::max(width, p.id.size());
    for (const Preset& p : presets)
        std::printf("%-*s  %s  [%s%s]\n", int(width), p.id.c_str(), printable(p.title).c_str(), p.experiment.c_str(),
                    p.isComparison() ? ", compares two runs" : "");
    for (const std::string& e : errors)
        std::fprintf(stderr, "rtscope run: built-in preset refused: %s\n", e.c_str());
    bool complete = errors.empty();
    [&]<class... Configs>(ExperimentList<Configs...>) {
        for (const auto& [name, registered] :
             {std::pair{ExperimentTraits<Configs>::kName, isHeadlessRunRegistered<Configs>()}...})
            if (!registered) {
                std::fprintf(stderr, "rtscope run: %s presets cannot run: its command registers no HeadlessRun\n",
                             std::string(name).c_str());
                complete = false;
            }
    }(ExperimentConfigs{});
    return complete;
}

int run(const RunOptions& o)
{
    if (o.list) {
        return printList() ? ExitOk : ExitFailure;
    }
    if (const std::vector<std::string> problems = remoteTargetProblems(o.target); !problems.empty())
        return reportInvalid("run", problems);
    if (o.preset.empty()) {
        std::fprintf(stderr, "rtscope run: give --preset NAME or FILE, or --list to see the built-in presets\n");
        return ExitBadInput;
    }
    const PresetParseResult loaded = loadPreset(o.preset);
    if (!loaded.preset) {
        // The sentences quote the file (its name, a key, a JSON syntax error's last bytes).
        std::vector<std::string> problems;
        for (const std::string& e : loaded.errors)
            problems.push_back(printable(e));
        return reportInvalid("run", problems);
    }
    const Preset& p = *loaded.preset;
    if (Error e = checkPhases(p, !o.target.given()))
        return notStarted("run", e).exitCode;

    // A preset file's texts reach the terminal through printable(): a title must not retitle the window.
    std::vector<std::string> labels;
    for (const std::string& l : p.labels)
        labels.push_back(printable(l));
    std::printf("# preset %s: %s\n# %s, %zu %s", printable(p.id).c_str(), printable(p.title).c_str(),
                printable(p.experiment).c_str(), p.phases.size(),
                p.isComparison() ? "phases: the first is the reference" : "phase");
    std::printf("\n# %s\n", printable(p.description).c_str());
    std::fflush(stdout);

    nlohmann::json phasesJson = nlohmann::json::array();
    std::vector<RunResult> results;
    int exitCode = ExitOk;
    for (size_t i = 0; i < p.phases.size(); ++i) {
        std::printf("\n== phase %zu of %zu: %s%s ==\n", i + 1, p.phases.size(), labels[i].c_str(),
                    p.isComparison() && i == 0 ? " (reference)" : "");
        std::fflush(stdout);
        RunResult r = runPhase(p, i, o);
        phasesJson.push_back({{"label", p.labels[i]},
                              {"config", p.phases[i]},
                              {"exit_code", r.exitCode},
                              {"figures", figuresJson(r)},
                              {"report", r.report}});
        exitCode = r.exitCode;
        const bool cut = r.signal != 0;
        results.push_back(std::move(r));
        if (exitCode != ExitOk || cut) {
            if (i + 1 < p.phases.size())
                std::printf("# %s: the remaining phase was not run\n",
                            cut ? "stopped by a signal" : "this phase failed");
            break;
        }
    }

    nlohmann::json doc = {{"preset",
                           {{"id", p.id},
                            {"title", p.title},
                            {"experiment", p.experiment},
                            {"source", p.source},
                            {"phase_seconds", p.phaseSeconds}}},
                          {"phases", phasesJson},
                          {"cmdline", commandLine()}};
    if (p.isComparison() && results.size() == 2 && exitCode == ExitOk && results[1].signal == 0) {
        const std::string line = comparisonLine(results[0], results[1]);
        std::printf("\nComparison, %s → %s: %s\n", labels[0].c_str(), labels[1].c_str(),
                    line.empty() ? "no figures to compare" : line.c_str());
        doc["comparison"] = line;
    }
    if (!writeJsonFile(o.json, doc) && exitCode == ExitOk)
        exitCode = ExitFailure;
    return exitCode;
}

void addRunFlags(CLI::App* sub, RunOptions& o)
{
    inputFile(sub->add_option("--preset", o.preset, "a built-in preset's name (see --list) or a preset file (.json)"),
              "--preset");
    sub->add_flag("--list", o.list, "list the built-in presets: name, title, experiment");
    outputFile(sub->add_option("--json", o.json, "write every phase's configuration, figures and full report as JSON"));
    sub->add_flag("-q,--quiet", o.quiet, "no progress lines, only each phase's table and the comparison");
    addTargetOptions(sub, o.target);
    sub->footer("Presets are validated exactly like the subcommands' flags; docs/presets.md describes the format.");
}

} // namespace

const OptionsCommand<RunOptions> kRunCommand("run", 65,
                                             "Run a lesson preset (built-in name or JSON file); comparisons run both "
                                             "settings and compare them",
                                             addRunFlags, run, OptionsCommand<RunOptions>::Exceptions::Catch);

} // namespace rtscope::cli
