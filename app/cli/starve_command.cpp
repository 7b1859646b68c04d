// `rtscope starve`: the SCHED_FIFO trap of docs/experiments/starvation.md, shown safely. Prints one row per burst: how
// long the spinner ran, what the starved counters achieved during the burst and in the gap after it, and the windows in
// which the kernel's safety net let them run anyway.
#include "app/cli/command_util.h"
#include "app/cli/remote_target.h"

#include "engine/experiments/starvation/starvation_experiment.h"
#include "engine/export/starvation_report.h"
#include "engine/rt/caller_affinity.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <cstdio>
#include <memory>
#include <pthread.h>
#include <sched.h>

namespace rtscope::cli {

namespace {

struct StarveOptions {
    std::string burst = "300ms";
    std::string gap = "700ms";
    int bursts = 3;
    std::string policy = "fifo";
    int priority = 80;
    int counters = 1;
    int nice = 0;
    int cpu = -1;
    bool control = false;
    int controlCpu = -1;
    int samplerPriority = 0;
    std::string reserve;
    TableOutputOptions output;
    RemoteTarget target;
};

// Builds the config from the flags. Unit and name errors are reported here; every range is validate()'s.
StarvationConfig toConfig(const StarveOptions& o, const CpuTopology& cpus, std::vector<std::string>& problems)
{
    StarvationConfig c;
    if (auto p = parsePolicy(o.policy))
        c.policy = *p;
    else
        problems.push_back("policy must be fifo or rr (got '" + o.policy + "')");
    c.priority = o.priority;
    // A burst is naturally counted in milliseconds; cyclictest's bare microseconds would make "300" a 0.3 ms
    // burst, which validate() would only refuse with a confusing range.
    readDuration("burst", o.burst, kNsPerMs, "e.g. 300ms or 1.5s (bare numbers are ms)", c.burstNs, problems);
    readDuration("gap", o.gap, kNsPerMs, "e.g. 700ms or 2s (bare numbers are ms)", c.gapNs, problems);
    c.bursts = o.bursts;
    c.counters = o.counters;
    c.counterNice = o.nice;
    c.cpu = o.cpu;
    c.controlCounter = o.control || o.controlCpu >= 0;
    c.controlCpu = o.controlCpu;
    c.samplerPriority = o.samplerPriority;
    if (!o.reserve.empty()) {
        if (auto list = parseCpuList(o.reserve, cpus.online))
            c.reservedCpus = *list;
        else
            problems.push_back("reserve: '" + o.reserve + "' is not a CPU list; use e.g. 0 or 0,2-3");
    }
    return c;
}

std::string fmtCount(uint64_t v)
{
    // Grouped digits: the counts reach billions, and "0" must stand out from them at a glance.
    std::string digits = std::to_string(v), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

std::string fmtRate(double perSec)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g/s", perSec);
    return buf;
}

std::string windowsText(const BurstRecord& b)
{
    if (b.windows.empty())
        return "none";
    std::string text = std::to_string(b.windows.size()) + ":";
    for (size_t i = 0; i < b.windows.size() && i < 3; ++i)
        text += std::string(i ? "," : "") + " " + formatDuration(b.windows[i].lengthNs()) + " at +" +
                formatDuration(b.windows[i].offsetNs);
    if (b.windows.size() > 3)
        text += ", ...";
    return text;
}

class Table {
public:
    explicit Table(bool control)
        : m_control(control)
    {}
    void header() const
    {
        std::printf("\n%5s  %11s  %15s  %-28s%s  %s\n", "burst", "spinner", "starved during", "starved after (gap)",
                    m_control ? "   control during" : "", "windows (length at offset)");
    }
    void row(const StarvationSnapshot& s, const BurstRecord& b) const
    {
        const std::string after = fmtCount(b.afterSum(s.starvedCounters)) + " in " + formatDuration(b.gapNs());
        std::string control;
        if (m_control) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "  %15s", fmtCount(b.during[size_t(s.starvedCounters)]).c_str());
            control = buf;
        }
        std::string flags;
        if (b.watchdogDemoted)
            flags += "  [watchdog demoted the spinner]";
        if (b.interrupted)
            flags += "  [stopped during the burst]";
        std::printf("%5d  %11s  %15s  %-28s%s  %s%s\n", b.index, formatDuration(b.spinnerNs()).c_str(),
                    fmtCount(b.duringSum(s.starvedCounters)).c_str(), after.c_str(), control.c_str(),
                    windowsText(b).c_str(), flags.c_str());
        std::fflush(stdout);
    }

private:
    bool m_control;
};

// A row is complete once its gap has ended and no window can still appear in it.
bool complete(const BurstRecord& b)
{
    return b.gapEndNs != 0 && b.windowsFinal;
}

void printHeader(const StarvationSnapshot& s)
{
    const StarvationConfig& c = s.config;
    std::printf("# rtscope %s starve: %s\n", RTSCOPE_VERSION, c.label().c_str());
    std::printf("# spinner %s on CPU %d; %d %s SCHED_OTHER nice %d on CPU %d",
                policyLabel(c.policy, c.priority).c_str(), c.cpu, c.counters, c.counters == 1 ? "counter" : "counters",
                c.counterNice, c.cpu);
    if (c.controlCounter)
        std::printf("; control counter on CPU %d", c.controlCpu);
    std::printf("\n# watchdog SCHED_FIFO %d on CPU %d demotes the spinner %s past its deadline; sampler every %s on "
                "CPU %d\n",
                s.watchdog.priority, s.watchdog.cpu, formatDuration(s.watchdog.marginNs).c_str(),
                formatDuration(StarvationConfig::kSampleIntervalNs).c_str(), s.controllerCpu);
    std::printf("# kernel %s: RT throttling %s\n", s.kernel.kernelRelease.c_str(), s.kernel.rtThrottlingText().c_str());
    std::printf("# fair server: %s\n", s.kernel.fairServerText().c_str());
    std::fflush(stdout);
}

void printLeadIn(const StarvationSnapshot& s)
{
    uint64_t ops = 0;
    for (int i = 0; i < s.starvedCounters; ++i)
        ops += s.leadIn[size_t(i)];
    std::printf("lead-in %s before the first burst: starved counters %s ops (%s)\n", formatDuration(s.leadInNs).c_str(),
                fmtCount(ops).c_str(), fmtRate(s.leadInNs > 0 ? double(ops) * 1e9 / double(s.leadInNs) : 0).c_str());
}

void printSummary(const StarvationSnapshot& s)
{
    uint64_t during = 0, after = 0;
    int64_t spun = 0, gaps = 0;
    std::vector<const ThrottleWindow*> windows;
    for (const BurstRecord& b : s.bursts) {
        during += b.duringSum(s.starvedCounters);
        after += b.afterSum(s.starvedCounters);
        spun += b.spinnerNs();
        gaps += b.gapNs();
        for (const ThrottleWindow& w : b.windows)
            windows.push_back(&w);
    }
    std::printf("\nSummary: %zu %s, %s of spinning, %s of gaps after them\n", s.bursts.size(),
                s.bursts.size() == 1 ? "burst" : "bursts", formatDuration(spun).c_str(), formatDuration(gaps).c_str());
    std::printf("  starved counters  %s ops while the spinner ran (%s), %s ops in the gaps (%s)\n",
                fmtCount(during).c_str(), fmtRate(spun > 0 ? double(during) * 1e9 / double(spun) : 0).c_str(),
                fmtCount(after).c_str(), fmtRate(gaps > 0 ? double(after) * 1e9 / double(gaps) : 0).c_str());
    for (const CounterStats& c : s.counters)
        if (c.control) {
            uint64_t d = 0;
            for (const BurstRecord& b : s.bursts)
                d += b.during[size_t(s.starvedCounters)];
            std::printf("  control counter   %s ops during the bursts (%s) on CPU %d\n", fmtCount(d).c_str(),
                        fmtRate(spun > 0 ? double(d) * 1e9 / double(spun) : 0).c_str(), c.cpu);
        }
    if (windows.empty()) {
        std::printf("  windows           none: the starved counters got nothing while the spinner ran\n");
    } else {
        int64_t minLen = INT64_MAX, maxLen = 0, minSpacing = INT64_MAX, maxSpacing = 0;
        for (const ThrottleWindow* w : windows) {
            minLen = std::min(minLen, w->lengthNs());
            maxLen = std::max(maxLen, w->lengthNs());
            if (w->spacingNs > 0) {
                minSpacing = std::min(minSpacing, w->spacingNs);
                maxSpacing = std::max(maxSpacing, w->spacingNs);
            }
        }
        std::printf("  windows           %zu, each %s .. %s long", windows.size(), formatDuration(minLen).c_str(),
                    formatDuration(maxLen).c_str());
        if (maxSpacing > 0)
            std::printf(", %s .. %s apart (start to start)", formatDuration(minSpacing).c_str(),
                        formatDuration(maxSpacing).c_str());
        std::printf("\n");
    }
    std::printf("  kernel safety net RT throttling %s; fair server %s\n", s.kernel.rtThrottlingText().c_str(),
                s.kernel.fairServerRuntimeNs ? s.kernel.fairServerText().c_str() : "not readable (see above)");
    if (s.watchdogTrips.empty()) {
        std::printf("  watchdog          never had to act\n");
    } else {
        for (const WatchdogTrip& t : s.watchdogTrips)
            std::printf("  watchdog          %s the spinner %s past its deadline%s\n",
                        t.demoted ? "demoted" : "could not demote", formatDuration(t.overrunNs()).c_str(),
                        t.atStop ? " (at stop)" : "");
    }
    std::printf("  dropped           %llu samples, %llu run segments, %llu events\n",
                (unsigned long long)s.droppedSamples, (unsigned long long)s.droppedSegments,
                (unsigned long long)s.droppedEvents);
    std::printf("  memory            %s\n", s.memoryLock.c_str());
    if (!s.note.empty())
        std::printf("  note              %s\n", s.note.c_str());
}

// The thread that waits for Ctrl-C must not sit behind the spinner it is meant to stop. The wait loop keeps it off
// the spinner's CPU for the run; when that is the only CPU it may use (a shell pinned there, and --reserve without
// that CPU), it moves to the controller's CPU before the start instead, for good. Best effort.
void leaveTheSpinnerCpu(const StarvationConfig& config)
{
    const CpuTopology cpus = StarvationConfig::placementTopology();
    const int controller = config.resolvedControllerCpu(cpus);
    if (controller < 0 || callerCpus() != std::vector<int>{config.resolvedCpu(cpus)})
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(controller, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// The rate series the run keeps: the whole planned run and 2 s more, or 120 s of a run until stopped; at most
// @p maxNs (0: no bound).
int64_t seriesWindowNs(const StarvationConfig& config, int64_t maxNs)
{
    const int64_t planned = config.plannedDurationNs();
    const int64_t window = planned > 0 ? planned + 2 * kNsPerSec : 120 * kNsPerSec;
    return maxNs > 0 ? std::min(window, maxNs) : window;
}

// A starvation run of @p exp, started: the header and each burst's row as it completes, the summary and the
// exports. The same for a local run and a run on a target (@p targetLine, its "# target: …" line; empty here).
template <class Experiment>
RunResult finishStarvation(Experiment& exp, const StarvationConfig& config, const RunOutput& out,
                           const std::string& targetLine, const std::function<void(nlohmann::json&)>& describe)
{
    RunResult result;

    Table table(config.controlCounter);
    size_t printed = 0;
    bool headerDone = false;
    bool tableStarted = false;
    const auto printReady = [&](const StarvationSnapshot& s, bool all) {
        if (out.quiet)
            return;
        if (!headerDone) {
            printHeader(s);
            if (!targetLine.empty())
                std::printf("%s\n", targetLine.c_str());
            headerDone = true;
        }
        if (!tableStarted && (all || !s.bursts.empty())) {
            printLeadIn(s);
            table.header();
            tableStarted = true;
        }
        while (printed < s.bursts.size() && (all || complete(s.bursts[printed])))
            table.row(s, s.bursts[printed++]);
    };

    const int64_t started = nowNs();
    result.signal = waitForExperiment(exp, [&] {
        if (out.stopAfterNs > 0 && nowNs() - started >= out.stopAfterNs)
            return false;
        if (auto snap = exp.snapshot())
            printReady(*snap, false);
        return true;
    });
    exp.stop();
    auto snap = exp.snapshot();
    if (!snap)
        return result;
    if (!out.quiet)
        printStoppedBy(result.signal);
    printReady(*snap, true);
    printSummary(*snap);

    result.report["rtscope"] = withProbeAndCommandLine(starvationReportJson(*snap));
    if (describe)
        describe(result.report);
    const int exported = writeTableOutputs(out, result.report, [&] { return starvationBurstCsv(*snap); }, {});
    uint64_t during = 0;
    int64_t spun = 0;
    for (const BurstRecord& b : snap->bursts) {
        during += b.duringSum(snap->starvedCounters);
        spun += b.spinnerNs();
    }
    result.figures = {{"starved progress during bursts", spun > 0 ? double(during) * 1e9 / double(spun) : 0, "ops/s"}};
    if (!snap->watchdogTrips.empty()) {
        std::fprintf(stderr, "rtscope starve: %s\n",
                     snap->note.empty() ? "the watchdog had to demote the spinner" : snap->note.c_str());
        result.exitCode = ExitFailure;
        return result;
    }
    result.exitCode = exported;
    return result;
}

RunResult runStarvation(const StarvationConfig& config, const RunOutput& out)
{
    leaveTheSpinnerCpu(config);
    StarvationExperiment exp;
    exp.setLockAllMemory(true);
    exp.setSeriesWindow(seriesWindowNs(config, 0));
    // The lab's threads are pinned by attribute: the cpuset bounds them, not this thread's affinity.
    if (Error e = exp.start(config, StarvationConfig::placementTopology()))
        return notStarted("starve", e);
    return finishStarvation(exp, config, out, {}, {});
}

RunResult runStarvationOn(CliTarget& link, const StarvationConfig& config, const RunOutput& out)
{
    RemoteExperiment<StarvationConfig> exp(link);
    prepareRemoteRun(exp, {{"series_window_ns", seriesWindowNs(config, kAgentViewMaxNs)}});
    if (Error e = exp.start(config, link.topology()))
        return link.refused(e);
    return finishStarvation(exp, config, out, link.targetLine(),
                            [&](nlohmann::json& report) { describeTarget(report, link); });
}

int run(const StarveOptions& o)
{
    if (o.target.given())
        return runOwnCommandOnTarget<StarvationConfig>(
            "starve", o.target,
            [&](const CpuTopology& target, std::vector<std::string>& problems) {
                return toConfig(o, target, problems);
            },
            [&](CliTarget& link, const StarvationConfig& config) {
                return runStarvationOn(link, config, o.output.runOutput());
            });
    std::vector<std::string> problems;
    const CpuTopology cpus = StarvationConfig::placementTopology();
    const StarvationConfig config = toConfig(o, cpus, problems);
    return runIfValid("starve", config, std::move(problems), cpus,
                      [&](const StarvationConfig& c) { return runStarvation(c, o.output.runOutput()).exitCode; });
}

void addStarveFlags(CLI::App* sub, StarveOptions& o)
{
    sub->add_option("--burst", o.burst, "how long the spinner busy-loops, 10ms..5s (bare number: ms)")
        ->capture_default_str();
    sub->add_option("--gap", o.gap, "sleep before the first burst and after each, 10ms..60s (bare number: ms)")
        ->capture_default_str();
    sub->add_option("--bursts", o.bursts, "number of bursts 1..1000; 0 repeats until Ctrl-C")->capture_default_str();
    sub->add_option("--policy", o.policy, "spinner policy: fifo or rr")->capture_default_str();
    sub->add_option("-p,--priority", o.priority, "spinner priority 1..98 (the watchdog runs above it)")
        ->capture_default_str();
    sub->add_option("--counters", o.counters, "SCHED_OTHER counter threads on the spinner's CPU, 1..8")
        ->capture_default_str();
    sub->add_option("--nice", o.nice, "nice of the counter threads, -20..19")->capture_default_str();
    noValueBelow(sub->add_option("-a,--cpu", o.cpu, "spinner CPU (default: the highest CPU that is not reserved)"));
    sub->add_flag("--control", o.control, "add a control counter on another CPU: the bursts must not touch it");
    noValueBelow(sub->add_option("--control-cpu", o.controlCpu,
                                 "CPU of the control counter (implies --control; default: the controller's CPU)"));
    sub->add_option("--sampler-priority", o.samplerPriority,
                    "0: SCHED_OTHER sampler (default); 1..priority-1: SCHED_FIFO below the spinner")
        ->capture_default_str();
    sub->add_option("--reserve", o.reserve,
                    "online CPUs the spinner must never take, e.g. 0,2 (default: 0 and any CPU this shell pinned "
                    "rtscope to)");
    addTargetOptions(sub, o.target);
    addTableOutputOptions(sub, o.output, "write the run as JSON (bursts, windows, rate series, kernel settings)",
                          "write one row per burst and counter as CSV", "no table, only the summary");
    sub->footer("Safety: the spinner checks its own deadline every few thousand iterations, a SCHED_FIFO watchdog "
                "on another CPU demotes it 50 ms past its deadline, and Ctrl-C stops it at once.");
}

} // namespace

const OptionsCommand<StarveOptions>
    kStarveCommand("starve", 40,
                   "Show how a SCHED_FIFO thread that never blocks starves its CPU (bounded bursts, watchdog)",
                   addStarveFlags, run, OptionsCommand<StarveOptions>::Exceptions::Catch);
const HeadlessRegistration<StarvationConfig> kStarveHeadless({
    .run = runStarvation,
    .firstThread =
        [](const StarvationConfig& c, const CpuTopology&) {
            return threadSpec(c.policy, c.priority, 0, c.resolvedCpu(StarvationConfig::placementTopology()),
                              "rtscope-spinner");
        },
    .fitToPhase =
        [](StarvationConfig& c, RunOutput& out, int64_t phaseNs, bool) {
            if (c.bursts == 0)
                out.stopAfterNs = phaseNs;
        },
    .onTarget = runStarvationOn,
});

} // namespace rtscope::cli
