// `rtscope drift`: periodic timing methods side by side; the naive loop's drift climbs, absolute deadlines stay
// flat (docs/experiments/drift.md).
#include "app/cli/command_util.h"
#include "app/cli/remote_target.h"
#include "app/cli/timer_cli.h"

#include "engine/experiments/timers/drift_experiment.h"
#include "engine/export/timer_reports.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <cstdio>
#include <memory>

namespace rtscope::cli {

namespace {

struct DriftOptions {
    std::string period = "1ms";
    int64_t ticks = 500;
    std::string duration;
    std::string work = "0";
    std::string methods = compactList(driftMethodList());
    std::string slack = "default";
    std::string policy;
    int priority = 0;
    int cpu = -1;
    int64_t stallAt = 0;
    std::string stall = "0";
    TableOutputOptions output;
    RemoteTarget target;
};

// Builds the config from the flags. Unit and name errors are reported here; every range is validate()'s.
DriftConfig toConfig(const DriftOptions& o, std::vector<std::string>& problems)
{
    DriftConfig c;
    readSignedDuration("period", o.period, c.periodNs, problems);
    c.ticks = o.ticks;
    bool zeroDuration = false;
    if (!o.duration.empty()) {
        const size_t before = problems.size();
        readDuration("duration", o.duration, kNsPerSec, "e.g. 2s, 500ms (bare numbers are seconds)", c.durationNs,
                     problems);
        zeroDuration = problems.size() == before && c.durationNs == 0;
    }
    readSignedDuration("work", o.work, c.workNs, problems);
    c.methods = parseMethodList<WaiterKind>(o.methods, parseDriftMethod, driftMethodList(), problems);
    readSlack(o.slack, c.timerSlackNs, problems);
    readPolicy(o.policy, o.priority, c.policy, problems);
    c.priority = o.priority;
    c.cpu = o.cpu;
    c.stallTick = o.stallAt;
    readSignedDuration("stall", o.stall, c.stallNs, problems);
    // 0 means "count ticks instead" inside; on the command line that is leaving -D out, and a given 0 is a run
    // length out of range.
    if (zeroDuration)
        problems.push_back(c.durationProblem());
    return c;
}

void printDriftTable(const DriftSnapshot& s)
{
    std::printf("\n%-8s %7s %7s %7s %13s %13s %11s %9s %11s %11s %11s\n", "method", "ticks", "wakes", "missed",
                "drift (us)", "slope (us/k)", "rate (Hz)", "rate (%)", "late p50", "late p99", "late max");
    for (const DriftMethodStats& m : s.methods) {
        std::printf("%-8s %7lld %7llu %7llu %13s %13s %11.2f %9.3f %11s %11s %11s\n", driftMethodName(m.method),
                    (long long)m.lastTick, (unsigned long long)m.wakes, (unsigned long long)m.missedTicks,
                    usText(double(m.driftNs)).c_str(), usText(m.slopeNsPerTick, 3).c_str(), m.rateHz, m.ratePercent,
                    usText(double(m.latenessP50Ns)).c_str(), usText(double(m.latenessP99Ns)).c_str(),
                    usText(double(m.latenessMaxNs)).c_str());
    }
    std::printf("(drift = wake - (t0 + k*P) at the last tick k; slope by least squares over all ticks; lateness in us "
                "per tick; nominal rate %.2f Hz)\n",
                s.nominalHz);
    std::printf("timer slack in force: %s\n", s.slackNote.c_str());
    uint64_t drops = 0;
    for (const DriftMethodStats& m : s.methods)
        drops += m.drops;
    std::printf("dropped samples: %llu   memory: %s\n", (unsigned long long)drops, s.memoryLock.c_str());
    if (!s.error.empty())
        std::printf("error: %s\n", s.error.c_str());
}

// The parts of a drift run that are its own, on this machine or a target; @p header gives the run's label.
TableRun<DriftSnapshot> driftTable(std::function<std::string()> header, const DriftConfig&)
{
    return TableRun<DriftSnapshot>{
        .command = "drift",
        .header = std::move(header),
        .progress = [](const DriftSnapshot& s) -> std::string {
            if (s.methods.empty())
                return {};
            return "tick " + std::to_string(s.methods.front().lastTick) + " of " + std::to_string(s.config.ticks);
        },
        .stoppedLineWhenQuiet = true,
        .printTable = printDriftTable,
        .report =
            [](const DriftSnapshot& s) {
                return nlohmann::json{{"rtscope", withProbeAndCommandLine(driftReportJson(s))}};
            },
        .csv = driftCsv,
        .figures =
            [](const DriftSnapshot& s) {
                std::vector<RunFigure> figures;
                for (const DriftMethodStats& m : s.methods)
                    figures.push_back(
                        {std::string(driftMethodName(m.method)) + " drift", double(m.driftNs) / 1000.0, "us"});
                return figures;
            },
    };
}

// The measuring thread, the run's only one.
ThreadSpec firstThread(const DriftConfig& c, const CpuTopology& topo)
{
    return threadSpec(c.policy, c.priority, 0, c.resolvedCpu(topo), "rtscope-drift");
}

void addDriftFlags(CLI::App* sub, DriftOptions& o)
{
    sub->add_option("-i,--period", o.period, "period 100us..1s; units ns, us, ms, s (bare number: us)")
        ->capture_default_str();
    auto* ticks = sub->add_option("-n,--ticks", o.ticks, "ticks per method, 2..200000")->capture_default_str();
    auto* dur = sub->add_option("-D,--duration", o.duration, "run time instead of ticks, e.g. 2s (bare number: s)");
    dur->excludes(ticks);
    sub->add_option("-w,--work", o.work, "busy work after every wake-up, 0..90% of the period")->capture_default_str();
    sub->add_option("-m,--methods", o.methods, "comma-separated: " + driftMethodList())->capture_default_str();
    sub->add_option("--slack", o.slack,
                    "timer slack: default (0 means the same), 1ns or a duration up to 1s (prctl PR_SET_TIMERSLACK)")
        ->capture_default_str();
    addPolicyOptions(sub, o.policy, o.priority);
    noValueBelow(sub->add_option("-a,--cpu", o.cpu, "CPU every method runs on (default: the highest usable CPU)"));
    sub->add_option("--stall-at", o.stallAt, "tick after which every method stalls once, 1..ticks-1 (0: never)");
    sub->add_option("--stall", o.stall, "length of that stall, e.g. 10ms: timers count the ticks it misses");
    addTargetOptions(sub, o.target);
    addTableOutputOptions(sub, o.output, "write config, probe and per-method figures as JSON",
                          "write one row per tick per method", "only the table");
}

} // namespace

const TableCommand<DriftExperiment, DriftOptions>
    kDriftCommand("drift", 20, "Timer drift: a naive sleep loop against absolute-deadline timers",
                  {.addFlags = addDriftFlags, .toConfig = toConfig, .table = driftTable, .firstThread = firstThread});

} // namespace rtscope::cli
