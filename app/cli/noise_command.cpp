// `rtscope noise`: where a CPU goes. One busy-polling thread per measured CPU; every gap in its loop is noise, and
// the kernel's trace events say who took it (docs/experiments/noise.md). The table is osnoise's summary.
#include "app/cli/command_util.h"
#include "app/cli/remote_target.h"
#include "app/cli/timer_cli.h"

#include "engine/experiments/noise/noise_experiment.h"
#include "engine/export/noise_report.h"
#include "engine/formats/cyclictest_format.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace rtscope::cli {

namespace {

/// Culprits the table lists; --json carries every one the run kept.
constexpr size_t kTableCulprits = 10;

struct NoiseOptions {
    std::string cpus;
    std::string duration = "5s";
    std::string threshold = "1us";
    std::string policy;
    int priority = 0;
    bool noTrace = false;
    std::string histfile;
    std::string osnoiseFile;
    TableOutputOptions output;
    RemoteTarget target;
};

// Builds the config from the flags. Unit and list errors are reported here; every range is validate()'s.
NoiseConfig toConfig(const NoiseOptions& o, const CpuTopology& topology, std::vector<std::string>& problems)
{
    NoiseConfig c;
    if (!o.cpus.empty())
        readCpuList("cpus", o.cpus, topology, c.cpus, problems);
    const size_t before = problems.size();
    readDuration("duration", o.duration, kNsPerSec, "e.g. 5s, 500ms (bare numbers are seconds)", c.durationNs,
                 problems);
    // 0 means "until stopped" inside (the GUI's live mode); on the command line a run has a length: Ctrl-C ends a
    // long one early.
    if (problems.size() == before && c.durationNs <= 0)
        problems.push_back("duration must be between " +
                           formatDurationRange(NoiseConfig::kMinDurationNs, NoiseConfig::kMaxDurationNs) + " (got '" +
                           o.duration + "')");
    readSignedDuration("threshold", o.threshold, c.thresholdNs, problems);
    readPolicy(o.policy, o.priority, c.policy, problems);
    c.priority = o.priority;
    c.trace = !o.noTrace;
    return c;
}

std::string kindCell(const NoiseCpuStats& c, NoiseKind k)
{
    return std::to_string(c.kindCount[size_t(k)]);
}

void printNoiseTable(const NoiseSnapshot& s)
{
    std::printf("\n%-4s %13s %12s %10s %12s %8s %8s %8s %8s %8s\n", "CPU", "Runtime(us)", "Noise(us)", "% CPU Aval",
                "Max Single", "HW", "NMI", "IRQ", "Softirq", "Thread");
    for (const NoiseCpuStats& c : s.cpus)
        std::printf("%-4d %13.0f %12.1f %10.5f %12.1f %8s %8s %8s %8s %8s\n", c.cpu, double(c.runtimeNs) / 1000.0,
                    double(c.noiseNs) / 1000.0, c.availablePercent, double(c.maxSingleNs) / 1000.0,
                    kindCell(c, NoiseKind::Unexplained).c_str(), kindCell(c, NoiseKind::Nmi).c_str(),
                    kindCell(c, NoiseKind::Irq).c_str(), kindCell(c, NoiseKind::Softirq).c_str(),
                    kindCell(c, NoiseKind::Thread).c_str());
    std::printf("(noise: gaps of %s or more between two clock reads; HW: gaps no traced work touched)\n",
                formatDuration(s.config.thresholdNs).c_str());

    std::printf("\nnoise time by kind (us):\n%-4s", "CPU");
    for (NoiseKind k : kNoiseKinds)
        std::printf(" %12s", noiseKindName(k));
    std::printf(" %10s %8s\n", "steal", "SMIs");
    for (const NoiseCpuStats& c : s.cpus) {
        std::printf("%-4d", c.cpu);
        for (NoiseKind k : kNoiseKinds)
            std::printf(" %12.1f", double(c.kindNs[size_t(k)]) / 1000.0);
        const std::string steal = c.stealNs < 0 ? "-" : usText(double(c.stealNs));
        const std::string smi = c.smiCount < 0 ? "-" : std::to_string(c.smiCount);
        std::printf(" %10s %8s\n", steal.c_str(), smi.c_str());
    }

    if (!s.culprits.empty()) {
        std::printf("\ntop culprits by time:\n%-4s %-11s %-32s %7s %8s %12s %10s %10s\n", "CPU", "kind", "name", "pid",
                    "count", "total (us)", "% of CPU", "max (us)");
        for (size_t i = 0; i < std::min(kTableCulprits, s.culprits.size()); ++i) {
            const NoiseCulprit& k = s.culprits[i];
            std::printf("%-4d %-11s %-32.32s %7s %8llu %12.1f %10.4f %10.1f\n", k.cpu, noiseKindName(k.kind),
                        k.name.c_str(), k.pid ? std::to_string(k.pid).c_str() : "-", (unsigned long long)k.count,
                        double(k.totalNs) / 1000.0, k.percent, double(k.maxNs) / 1000.0);
        }
        if (s.culprits.size() > kTableCulprits)
            std::printf("(%zu more in --json and --csv)\n", s.culprits.size() - kTableCulprits);
    }

    uint64_t loops = 0, gaps = 0, drops = 0;
    for (const NoiseCpuStats& c : s.cpus) {
        loops += c.loops;
        gaps += c.gaps;
        drops += c.drops;
    }
    std::printf("\nloops: %llu   gaps: %llu   dropped gaps: %llu   memory: %s\n", (unsigned long long)loops,
                (unsigned long long)gaps, (unsigned long long)drops, s.memoryLock.c_str());
    std::printf("attribution: %s\n", s.traced ? "kernel trace events (tracefs)" : "none");
    if (!s.loopClock.empty())
        std::printf("loop clock: %s\n", s.loopClock.c_str());
    for (const std::string* note : {&s.traceNote, &s.stealNote, &s.osnoiseNote})
        if (!note->empty())
            std::printf("note: %s\n", note->c_str());
    if (!s.smiNote.empty())
        std::printf("note: SMI count: %s\n", s.smiNote.c_str());
    for (const NoiseCpuStats& c : s.cpus)
        if (!c.error.empty())
            std::printf("error: CPU %d: %s\n", c.cpu, c.error.c_str());
    if (!s.error.empty())
        std::printf("error: %s\n", s.error.c_str());
}

// The kernel's osnoise tracer, read from a file, in the same columns as rtscope's table above it.
void printOsnoiseTable(const OsnoiseTrace& t, const NoiseSnapshot& s)
{
    std::printf("\nthe kernel's osnoise tracer, from %s (%llu periods):\n", t.source.c_str(),
                (unsigned long long)t.periodLines);
    std::printf("%-4s %13s %12s %10s %12s %8s %8s %8s %8s %8s\n", "CPU", "Runtime(us)", "Noise(us)", "% CPU Aval",
                "Max Single", "HW", "NMI", "IRQ", "Softirq", "Thread");
    for (const OsnoiseCpuSummary& c : t.cpus)
        std::printf("%-4d %13lld %12lld %10.5f %12lld %8llu %8llu %8llu %8llu %8llu\n", c.cpu, (long long)c.runtimeUs,
                    (long long)c.noiseUs, c.availablePercent(), (long long)c.maxSingleUs, (unsigned long long)c.hw,
                    (unsigned long long)c.nmi, (unsigned long long)c.irq, (unsigned long long)c.softirq,
                    (unsigned long long)c.thread);
    for (const NoiseCpuStats& c : s.cpus)
        if (std::none_of(t.cpus.begin(), t.cpus.end(), [&](const OsnoiseCpuSummary& o) { return o.cpu == c.cpu; }))
            std::printf("note: the osnoise trace has no period for CPU %d\n", c.cpu);
    std::printf("(osnoise's HW counts noise no traced work explained, as rtscope's HW does; the tracer counts an "
                "interference each time one begins, rtscope each time traced work ran inside a gap)\n");
    if (t.problemCount)
        std::printf("note: %llu line(s) of the osnoise trace were not read as summaries, the first: %s\n",
                    (unsigned long long)t.problemCount, t.problems.front().c_str());
}

std::string noiseProgressLine(const NoiseSnapshot& s)
{
    std::string line = formatDuration(s.elapsedNs) + " of " + formatDuration(s.config.durationNs);
    for (const NoiseCpuStats& c : s.cpus) {
        char cell[96];
        std::snprintf(cell, sizeof cell, "  CPU %d: %.4f %% available, max %.1f us", c.cpu, c.availablePercent,
                      double(c.maxSingleNs) / 1000.0);
        line += cell;
    }
    return line;
}

// The parts of a noise run that are its own, on this machine or a target; @p header gives the run's label,
// @p out's histfile (if any) receives the loop-length histogram, and its osnoise trace (if any) is shown beside the
// run.
TableRun<NoiseSnapshot> noiseTable(std::function<std::string()> header, const RunOutput& out)
{
    const std::string histfile = out.histfile;
    const std::shared_ptr<const OsnoiseTrace> osnoise = out.osnoise;
    return TableRun<NoiseSnapshot>{
        .command = "noise",
        .header = std::move(header),
        .progressInLog = Progress::InLog::EverySecond,
        .progress = noiseProgressLine,
        .stoppedLineWhenQuiet = false,
        .printTable =
            [osnoise](const NoiseSnapshot& s) {
                printNoiseTable(s);
                if (osnoise)
                    printOsnoiseTable(*osnoise, s);
            },
        .report =
            [osnoise](const NoiseSnapshot& s) {
                nlohmann::json report = noiseReportJson(s);
                if (osnoise)
                    report["osnoise"] = osnoiseTraceJson(*osnoise);
                return nlohmann::json{{"rtscope", withProbeAndCommandLine(std::move(report))}};
            },
        .csv = noiseCsv,
        .figures =
            [](const NoiseSnapshot& s) {
                std::vector<RunFigure> figures;
                for (const NoiseCpuStats& c : s.cpus) {
                    const std::string cpu = "CPU " + std::to_string(c.cpu);
                    figures.push_back({cpu + " available", c.availablePercent, "%"});
                    figures.push_back({cpu + " max single noise", double(c.maxSingleNs) / 1000.0, "us"});
                }
                return figures;
            },
        .moreOutputs =
            [histfile](const NoiseSnapshot& s) {
                return histfile.empty() || writeFile(histfile, writeCyclictestHistogram(noiseHistogramData(s)));
            },
    };
}

// The TableRun of a noise run writing @p out (its osnoise summary is shown beside the run).
auto noiseTableFor(const RunOutput& out)
{
    return [&out](std::function<std::string()> header, const NoiseConfig&) {
        return noiseTable(std::move(header), out);
    };
}

RunResult runNoise(const NoiseConfig& config, const RunOutput& out)
{
    return runTableHere<NoiseExperiment>(config, out, noiseTableFor(out));
}

RunResult runNoiseOn(CliTarget& link, const NoiseConfig& config, const RunOutput& out)
{
    return runTableOnTarget(link, config, out, noiseTableFor(out));
}

int run(const NoiseOptions& o)
{
    RunOutput out = o.output.runOutput();
    out.histfile = o.histfile;
    // The osnoise file is read before anything runs: a bad one is bad input, like a bad flag.
    std::shared_ptr<OsnoiseTrace> osnoise;
    std::string osnoiseProblem;
    if (!o.osnoiseFile.empty()) {
        osnoise = std::make_shared<OsnoiseTrace>();
        if (Error e = loadOsnoiseTrace(o.osnoiseFile, *osnoise))
            osnoiseProblem = e.message;
    }
    const auto configFor = [&](const CpuTopology& topology, std::vector<std::string>& problems) {
        const NoiseConfig c = toConfig(o, topology, problems);
        if (!osnoiseProblem.empty())
            problems.push_back(osnoiseProblem);
        return c;
    };
    out.osnoise = osnoise;
    return runTableCommand<NoiseConfig>("noise", o.target, out, configFor);
}

void addNoiseFlags(CLI::App* sub, NoiseOptions& o)
{
    sub->add_option("--cpus", o.cpus,
                    "CPUs to measure, one polling thread each: all, or a list like 0,2-3 "
                    "(default: the highest usable CPU)");
    sub->add_option("-D,--duration", o.duration,
                    "run time " + formatDurationRange(NoiseConfig::kMinDurationNs, NoiseConfig::kMaxDurationNs) +
                        ", e.g. 5s (bare number: seconds)")
        ->capture_default_str();
    sub->add_option("-T,--threshold", o.threshold,
                    "a loop at least this long is noise, " +
                        formatDurationRange(NoiseConfig::kMinThresholdNs, NoiseConfig::kMaxThresholdNs) +
                        " (bare number: us)")
        ->capture_default_str();
    addPolicyOptions(sub, o.policy, o.priority,
                     policyNameList(false, " or ") +
                         " for the polling threads (default: other, as osnoise; fifo if -p is given)");
    sub->add_flag("--no-trace", o.noTrace, "do not read the kernel's trace events: no attribution");
    sub->add_option("--histfile", o.histfile, "write the loop-length histogram (1 us bins, cyclictest's -h layout)");
    sub->add_option("--osnoise-file", o.osnoiseFile,
                    "show the kernel osnoise tracer's summary from FILE (its trace, saved) beside this run, in the "
                    "same columns");
    addTargetOptions(sub, o.target);
    addTableOutputOptions(sub, o.output, "write config, probe, per-CPU figures and every culprit as JSON",
                          "write one row per culprit (unexplained and untraced time included)", "only the table");
}

} // namespace

const OptionsCommand<NoiseOptions> kNoiseCommand("noise", 35,
                                                 "OS and hardware noise: a busy-polling thread per CPU, every lost "
                                                 "moment attributed (osnoise's summary, oslat's histogram)",
                                                 addNoiseFlags, run);
const HeadlessRegistration<NoiseConfig> kNoiseHeadless({
    .run = runNoise,
    .firstThread =
        [](const NoiseConfig& c, const CpuTopology& topo) {
            return threadSpec(c.policy, c.priority, 0, c.resolvedCpus(topo).front(), "rtscope-noise");
        },
    .fitToPhase =
        [](NoiseConfig& c, RunOutput&, int64_t phaseNs, bool) {
            if (c.durationNs == 0)
                c.durationNs = phaseNs;
        },
    .onTarget = runNoiseOn,
});

} // namespace rtscope::cli
