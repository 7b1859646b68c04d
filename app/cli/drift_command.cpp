// `rtscope drift`: periodic timing methods side by side; the naive loop's drift climbs, absolute deadlines stay
// flat (SCIENCE.md §3).
#include "app/cli/cli.h"
#include "app/cli/experiment_runs.h"
#include "app/cli/timer_cli.h"

#include "engine/experiments/timers/drift_experiment.h"
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
    std::string json;
    std::string csv;
    bool quiet = false;
};

// Builds the config from the flags. Unit and name errors are reported here; every range is validate()'s.
DriftConfig toConfig(const DriftOptions& o, std::vector<std::string>& problems)
{
    DriftConfig c;
    if (auto p = parseSignedDuration(o.period))
        c.periodNs = *p;
    else
        problems.push_back(notADuration("period", o.period));
    c.ticks = o.ticks;
    if (!o.duration.empty()) {
        if (auto d = parseDuration(o.duration, kNsPerSec))
            c.durationNs = *d;
        else
            problems.push_back("duration: '" + o.duration +
                               "' is not a duration; use e.g. 2s, 500ms (bare numbers are seconds)");
    }
    if (auto w = parseSignedDuration(o.work))
        c.workNs = *w;
    else
        problems.push_back(notADuration("work", o.work));
    c.methods = parseMethodList<WaiterKind>(o.methods, parseDriftMethod, driftMethodList(), problems);
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
    c.stallTick = o.stallAt;
    if (auto s = parseSignedDuration(o.stall))
        c.stallNs = *s;
    else
        problems.push_back(notADuration("stall", o.stall));
    return c;
}

void printTable(const DriftSnapshot& s)
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

int run(const DriftOptions& o)
{
    std::vector<std::string> problems;
    const DriftConfig config = toConfig(o, problems);
    const CpuTopology cpus = CpuTopology::current();
    for (auto& p : config.validate(cpus))
        problems.push_back(std::move(p));
    if (!problems.empty())
        return reportInvalid("drift", problems);
    return runDrift(config, tableOutput(o.quiet, o.json, o.csv)).exitCode;
}

} // namespace

RunResult runDrift(const DriftConfig& config, const RunOutput& out)
{
    RunResult result;
    DriftExperiment exp;
    exp.setLockAllMemory(true);
    if (Error e = exp.start(config)) {
        std::fprintf(stderr, "rtscope drift: %s\n", e.message.c_str());
        result.exitCode = exitCodeFor(e.kind);
        return result;
    }
    const bool tty = isatty(STDOUT_FILENO);
    if (!out.quiet)
        std::printf("# rtscope %s drift: %s\n", RTSCOPE_VERSION, exp.config().label().c_str());
    int signal = 0;
    while (!exp.finished()) {
        signal = waitForStopSignal(100);
        if (signal)
            break;
        auto snap = exp.snapshot();
        if (tty && !out.quiet && snap && !snap->methods.empty()) {
            std::printf("\rtick %lld of %lld\033[K", (long long)snap->methods.front().lastTick,
                        (long long)snap->config.ticks);
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
    nlohmann::json report = driftReportJson(*snap);
    report["probe"] = toJson(probeSystem());
    report["cmdline"] = commandLine();
    result.report = nlohmann::json{{"rtscope", report}};
    if (!out.json.empty())
        written = writeFile(out.json, result.report.dump(2) + "\n") && written;
    if (!out.csv.empty())
        written = writeFile(out.csv, driftCsv(*snap)) && written;
    for (const DriftMethodStats& m : snap->methods)
        result.figures.push_back({std::string(driftMethodName(m.method)) + " drift", double(m.driftNs) / 1000.0, "us"});
    if (!snap->error.empty())
        result.exitCode = ExitFailure;
    else
        result.exitCode = written ? ExitOk : ExitFailure;
    return result;
}

namespace {

Command addDriftCommand(CLI::App& app)
{
    auto o = std::make_shared<DriftOptions>();
    auto* sub = app.add_subcommand("drift", "Timer drift: a naive sleep loop against absolute-deadline timers");
    sub->add_option("-i,--period", o->period, "period 100us..1s; units ns, us, ms, s (bare number: us)")
        ->capture_default_str();
    auto* ticks = sub->add_option("-n,--ticks", o->ticks, "ticks per method, 2..200000")->capture_default_str();
    auto* dur = sub->add_option("-D,--duration", o->duration, "run time instead of ticks, e.g. 2s (bare number: s)");
    dur->excludes(ticks);
    sub->add_option("-w,--work", o->work, "busy work after every wake-up, 0..90% of the period")->capture_default_str();
    sub->add_option("-m,--methods", o->methods, "comma-separated: " + driftMethodList())->capture_default_str();
    sub->add_option("--slack", o->slack, "timer slack: default, 1ns or a duration up to 1s (prctl PR_SET_TIMERSLACK)")
        ->capture_default_str();
    sub->add_option("--policy", o->policy, "other, batch, idle, fifo or rr (default: other; fifo if -p is given)");
    sub->add_option("-p,--priority", o->priority, "RT priority 1-99 for fifo/rr");
    sub->add_option("-a,--cpu", o->cpu, "CPU every method runs on (default: the highest usable CPU)");
    sub->add_option("--stall-at", o->stallAt, "tick after which every method stalls once (0: never)");
    sub->add_option("--stall", o->stall, "length of that stall, e.g. 10ms: timers count the ticks it misses");
    sub->add_option("--json", o->json, "write config, probe and per-method figures as JSON");
    sub->add_option("--csv", o->csv, "write one row per tick per method");
    sub->add_flag("-q,--quiet", o->quiet, "only the table");
    return {sub, [o] {
                return run(*o);
            }};
}

} // namespace

const CommandRegistration kRegistration("drift", 20, &addDriftCommand);

} // namespace rtscope::cli
