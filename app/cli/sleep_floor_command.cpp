// `rtscope sleep-floor`: what a sleep of 0 ns, 1 ns, 1 us, ... really costs, next to clock_getres, for each
// way of waiting (docs/experiments/sleep-floor.md).
#include "app/cli/command_util.h"
#include "app/cli/remote_target.h"
#include "app/cli/timer_cli.h"

#include "engine/experiments/timers/sleep_floor_experiment.h"
#include "engine/export/timer_reports.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cstdio>
#include <memory>

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
    TableOutputOptions output;
    RemoteTarget target;
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
    readSlack(o.slack, c.timerSlackNs, problems);
    readPolicy(o.policy, o.priority, c.policy, problems);
    c.priority = o.priority;
    c.cpu = o.cpu;
    c.backgroundLoad = o.load;
    readSignedDuration("margin", o.margin, c.hybridMarginNs, problems);
    return c;
}

void printSleepFloorTable(const SleepFloorSnapshot& s)
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

// The parts of a sleep-floor run that are its own, on this machine or a target; @p label gives the run's label.
TableRun<SleepFloorSnapshot> sleepFloorTable(std::function<std::string()> label, const SleepFloorConfig& config)
{
    return TableRun<SleepFloorSnapshot>{
        .command = "sleep-floor",
        .header = [label = std::move(label),
                   estimatedNs =
                       config.estimatedRunNs()] { return label() + " (about " + formatDuration(estimatedNs) + ")"; },
        .progress = [](const SleepFloorSnapshot& s) -> std::string {
            if (s.currentRequest < 0)
                return {};
            return "request " + formatDuration(s.config.requestsNs[size_t(s.currentRequest)]) + ": " +
                   std::to_string(s.samplesDone) + " of " + std::to_string(s.samplesTotal) + " samples";
        },
        .stoppedLineWhenQuiet = true,
        .printTable = printSleepFloorTable,
        .report =
            [](const SleepFloorSnapshot& s) {
                return nlohmann::json{{"rtscope", withProbeAndCommandLine(sleepFloorReportJson(s))}};
            },
        .csv = sleepFloorCsv,
        .figures =
            [](const SleepFloorSnapshot& s) {
                std::vector<RunFigure> figures;
                for (size_t m = 0; m < s.floorNs.size() && m < s.config.methods.size(); ++m)
                    figures.push_back({std::string(sleepMethodName(s.config.methods[m])) + " floor",
                                       double(s.floorNs[m]) / 1000.0, "us"});
                return figures;
            },
    };
}

// The measuring thread, the run's only one.
ThreadSpec firstThread(const SleepFloorConfig& c, const CpuTopology& topo)
{
    return threadSpec(c.policy, c.priority, 0, c.resolvedCpu(topo), "rtscope-sleep");
}

void addSleepFloorFlags(CLI::App* sub, SleepFloorOptions& o)
{
    sub->add_option("-r,--requests", o.requests,
                    "comma-separated lengths, 0..100ms each, at most 32 (bare numbers: us)")
        ->capture_default_str();
    sub->add_option("-l,--samples", o.samples, "samples per request and method, 1..100000")->capture_default_str();
    sub->add_option("-m,--methods", o.methods, "comma-separated: " + sleepMethodList())->capture_default_str();
    sub->add_option("--slack", o.slack,
                    "timer slack: default (0 means the same), 1ns or a duration up to 10ms (prctl PR_SET_TIMERSLACK)")
        ->capture_default_str();
    addPolicyOptions(sub, o.policy, o.priority);
    noValueBelow(sub->add_option("-a,--cpu", o.cpu, "measuring CPU (default: the highest usable CPU)"));
    sub->add_flag("--load", o.load, "background load: a SCHED_OTHER spinner on every other usable CPU");
    sub->add_option("--margin", o.margin, "hybrid: sleep until this long before the deadline, then spin (0..10ms)")
        ->capture_default_str();
    addTargetOptions(sub, o.target);
    addTableOutputOptions(sub, o.output, "write config, probe, clock_getres, floors and every request x method",
                          "write one row per sample", "only the table");
}

} // namespace

const TableCommand<SleepFloorExperiment, SleepFloorOptions> kSleepFloorCommand(
    "sleep-floor", 30, "The sleep floor: requested against actual sleep lengths",
    {.addFlags = addSleepFloorFlags, .toConfig = toConfig, .table = sleepFloorTable, .firstThread = firstThread});

} // namespace rtscope::cli
