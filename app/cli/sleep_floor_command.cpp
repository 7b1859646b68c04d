// `rtscope sleep-floor`: what a sleep of 0 ns, 1 ns, 1 us, ... really costs, next to clock_getres, for each
// way of waiting (SCIENCE.md §4).
#include "app/cli/cli.h"
#include "app/cli/experiment_runs.h"
#include "app/cli/timer_cli.h"

#include "engine/experiments/timers/sleep_floor_experiment.h"
#include "engine/io/report_json.h"
#include "engine/io/timer_reports.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace rtscope::cli {

namespace {

struct SleepFloorOptions {
    std::string requests = "0,1ns,10ns,100ns,1us,10us,100us,1ms,10ms";
    int64_t samples = 200;
    std::string methods = compactList(sleepMethodList());
    std::string slack = "default";
    std::string policy;
    int priority = 0;
    int cpu = -1;
    bool load = false;
    std::string margin = "100us";
    std::string json;
    std::string csv;
    bool quiet = false;
};

// Builds the config from the flags. Unit and name errors are reported here; every range is validate()'s.
SleepFloorConfig toConfig(const SleepFloorOptions& o, std::vector<std::string>& problems)
{
    SleepFloorConfig c;
    c.requestsNs.clear();
    for (const std::string& item : splitList(o.requests)) {
        if (auto d = parseSignedDuration(item))
            c.requestsNs.push_back(*d);
        else
            problems.push_back(notADuration("requests", item));
    }
    c.samples = o.samples;
    c.methods = parseMethodList<SleepMethod>(o.methods, parseSleepMethod, sleepMethodList(), problems);
    if (auto s = parseSlack(o.slack))
        c.timerSlackNs = *s;
    else
        problems.push_back("slack: '" + o.slack + "' is not 'default' or a duration such as 1ns or 100us");
    if (!o.policy.empty()) {
        if (auto p = parsePolicy(o.policy))
            c.policy = *p;
        else
            problems.push_back("policy must be one of other, batch, idle, fifo, rr (got '" + o.policy + "')");
    } else if (o.priority > 0) {
        c.policy = Policy::Fifo; // as in `rtscope latency`: a priority alone means SCHED_FIFO
    }
    c.priority = o.priority;
    c.cpu = o.cpu;
    c.backgroundLoad = o.load;
    if (auto m = parseSignedDuration(o.margin))
        c.hybridMarginNs = *m;
    else
        problems.push_back(notADuration("margin", o.margin));
    return c;
}

void printTable(const SleepFloorSnapshot& s)
{
    std::printf("\n%-10s %-10s %7s %12s %12s %12s %15s %9s %14s %10s\n", "request", "method", "samples", "median (us)",
                "p99 (us)", "max (us)", "overshoot (us)", "ratio", "cpu/wait (us)", "cpu share");
    const size_t methods = s.config.methods.size();
    for (size_t r = 0; r < s.config.requestsNs.size(); ++r) {
        for (size_t m = 0; m < methods; ++m) {
            const SleepFloorCell& c = s.cell(r, m);
            if (c.samples == 0)
                continue;
            char ratio[32] = "-";
            if (c.requestNs > 0)
                std::snprintf(ratio, sizeof ratio, c.overshootRatio < 100 ? "%.2f" : "%.0f", c.overshootRatio);
            std::printf("%-10s %-10s %7llu %12s %12s %12s %15s %9s %14s %9.0f%%\n", formatDuration(c.requestNs).c_str(),
                        sleepMethodName(c.method), (unsigned long long)c.samples, usText(double(c.p50Ns), 2).c_str(),
                        usText(double(c.p99Ns), 2).c_str(), usText(double(c.maxNs), 2).c_str(),
                        usText(double(c.overshootNs), 2).c_str(), ratio, usText(c.cpuPerWaitNs, 2).c_str(),
                        100.0 * c.cpuShare);
        }
    }
    std::printf("(overshoot = median - request; ratio = median / request; cpu/wait = median CPU time per wait, less "
                "%s for reading the CPU clock; cpu share = cpu/wait / median)\n",
                formatDuration(s.cpuClockOverheadNs).c_str());
    std::printf("clock_getres(CLOCK_MONOTONIC): %s\n", formatDuration(s.clockResolutionNs).c_str());
    if (!s.floorNs.empty() && !s.config.requestsNs.empty()) {
        int64_t smallest = s.config.requestsNs.front();
        for (int64_t r : s.config.requestsNs)
            smallest = std::min(smallest, r);
        std::printf("measured floor (median for a %s request):", formatDuration(smallest).c_str());
        for (size_t m = 0; m < s.floorNs.size() && m < methods; ++m)
            std::printf("%s %s %s", m ? "," : "", sleepMethodName(s.config.methods[m]),
                        formatDuration(s.floorNs[m]).c_str());
        std::printf("\n");
    }
    std::printf("timer slack in force: %s\n", s.slackNote.c_str());
    std::printf("policy: %s   CPU %d   background load: %s\n", policyLabel(s.config.policy, s.config.priority).c_str(),
                s.config.cpu,
                s.loadThreads > 0 ? (std::to_string(s.loadThreads) + " spinner(s) on the other CPUs").c_str() : "off");
    std::printf("samples: %llu of %llu   dropped samples: %llu   memory: %s\n", (unsigned long long)s.samplesDone,
                (unsigned long long)s.samplesTotal, (unsigned long long)s.drops, s.memoryLock.c_str());
    if (!s.error.empty())
        std::printf("error: %s\n", s.error.c_str());
}

int run(const SleepFloorOptions& o)
{
    std::vector<std::string> problems;
    const SleepFloorConfig config = toConfig(o, problems);
    const CpuTopology cpus = CpuTopology::current();
    for (auto& p : config.validate(cpus))
        problems.push_back(std::move(p));
    if (!problems.empty())
        return reportInvalid("sleep-floor", problems);
    return runSleepFloor(config, tableOutput(o.quiet, o.json, o.csv)).exitCode;
}

} // namespace

RunResult runSleepFloor(const SleepFloorConfig& config, const RunOutput& out)
{
    RunResult result;
    SleepFloorExperiment exp;
    exp.setLockAllMemory(true);
    if (Error e = exp.start(config)) {
        std::fprintf(stderr, "rtscope sleep-floor: %s\n", e.message.c_str());
        result.exitCode = exitCodeFor(e.kind);
        return result;
    }
    const bool tty = isatty(STDOUT_FILENO);
    if (!out.quiet)
        std::printf("# rtscope %s sleep-floor: %s (about %s)\n", RTSCOPE_VERSION, exp.config().label().c_str(),
                    formatDuration(exp.config().estimatedRunNs()).c_str());
    int signal = 0;
    while (!exp.finished()) {
        signal = waitForStopSignal(100);
        if (signal)
            break;
        auto snap = exp.snapshot();
        if (tty && !out.quiet && snap && snap->currentRequest >= 0) {
            std::printf("\rrequest %s: %llu of %llu samples\033[K",
                        formatDuration(snap->config.requestsNs[size_t(snap->currentRequest)]).c_str(),
                        (unsigned long long)snap->samplesDone, (unsigned long long)snap->samplesTotal);
            std::fflush(stdout);
        }
    }
    exp.stop();
    result.signal = signal;
    auto snap = exp.snapshot();
    if (!snap)
        return result;
    if (tty && !out.quiet)
        std::printf("\r\033[K");
    if (signal)
        std::printf("# stopped by %s: partial results follow\n", strsignal(signal));
    printTable(*snap);

    bool written = true;
    nlohmann::json report = sleepFloorReportJson(*snap);
    report["probe"] = toJson(probeSystem());
    report["cmdline"] = commandLine();
    result.report = nlohmann::json{{"rtscope", report}};
    if (!out.json.empty())
        written = writeFile(out.json, result.report.dump(2) + "\n") && written;
    if (!out.csv.empty())
        written = writeFile(out.csv, sleepFloorCsv(*snap)) && written;
    for (size_t m = 0; m < snap->floorNs.size() && m < snap->config.methods.size(); ++m)
        result.figures.push_back({std::string(sleepMethodName(snap->config.methods[m])) + " floor",
                                  double(snap->floorNs[m]) / 1000.0, "us"});
    if (!snap->error.empty())
        result.exitCode = ExitFailure;
    else
        result.exitCode = written ? ExitOk : ExitFailure;
    return result;
}

namespace {

Command addSleepFloorCommand(CLI::App& app)
{
    auto o = std::make_shared<SleepFloorOptions>();
    auto* sub = app.add_subcommand("sleep-floor", "The sleep floor: requested against actual sleep lengths");
    sub->add_option("-r,--requests", o->requests,
                    "comma-separated lengths, 0..100ms each, at most 32 (bare numbers: us)")
        ->capture_default_str();
    sub->add_option("-l,--samples", o->samples, "samples per request and method, 1..100000")->capture_default_str();
    sub->add_option("-m,--methods", o->methods, "comma-separated: " + sleepMethodList())->capture_default_str();
    sub->add_option("--slack", o->slack, "timer slack: default, 1ns or a duration up to 10ms (prctl PR_SET_TIMERSLACK)")
        ->capture_default_str();
    sub->add_option("--policy", o->policy, "other, batch, idle, fifo or rr (default: other; fifo if -p is given)");
    sub->add_option("-p,--priority", o->priority, "RT priority 1-99 for fifo/rr");
    sub->add_option("-a,--cpu", o->cpu, "measuring CPU (default: the highest usable CPU)");
    sub->add_flag("--load", o->load, "background load: a SCHED_OTHER spinner on every other usable CPU");
    sub->add_option("--margin", o->margin, "hybrid: sleep until this long before the deadline, then spin (0..10ms)")
        ->capture_default_str();
    sub->add_option("--json", o->json, "write config, probe, clock_getres, floors and every request x method");
    sub->add_option("--csv", o->csv, "write one row per sample");
    sub->add_flag("-q,--quiet", o->quiet, "only the table");
    return {sub, [o] {
                return run(*o);
            }};
}

} // namespace

const CommandRegistration kRegistration("sleep-floor", 30, &addSleepFloorCommand);

} // namespace rtscope::cli
