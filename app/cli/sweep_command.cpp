// `rtscope sweep`: the latency experiment over a list of policies/priorities under a chosen load.
#include "app/cli/command_util.h"
#include "app/cli/latency_options.h"
#include "app/cli/remote_target.h"

#include "engine/experiments/sweep/sweep_experiment.h"
#include "engine/export/report_json.h"
#include "engine/formats/probe_json.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

namespace rtscope::cli {

namespace {

// The latency flags of the sweep's base config: its settings list the policies, and it measures one CPU.
constexpr LatencyFlagSet kSweepLatencyFlags{
    .policy = false, .deadline = false, .cpus = false, .hogsHelp = "built-in CPU hogs on the measuring CPU, 0..256"};

struct SweepOptions {
    std::string settings = "other,fifo:1,fifo:50,fifo:80";
    std::string each = "10s";
    LatencyThreadFlags base; ///< -i, --hogs, -a: the base latency config's, as latency's (app/cli/latency_options.h)
    std::string loadCmd;
    std::string json;
    RemoteTarget target;
};

std::string us1(int64_t ns)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", double(ns) / 1000.0);
    return b;
}

// Builds the config from the flags. Unit and name errors are reported here; every range is validate()'s.
SweepConfig toConfig(const SweepOptions& o, std::vector<std::string>& problems)
{
    SweepConfig c;
    std::string error;
    if (!parseSweepSettings(o.settings, c.settings, error))
        problems.push_back(error);
    readDuration("each", o.each, kNsPerSec, "e.g. 10s (bare numbers are seconds)", c.eachNs, problems);
    readLatencyOptions(o.base, kSweepLatencyFlags, c.base, problems);
    c.loadCmd = o.loadCmd;
    return c;
}

// A started sweep, on this machine or a target (@p targetLine, its "# target: …" line; empty here): each setting's
// row as it completes, then --json, whose machine @p describe names.
template <class Experiment>
int finishSweep(Experiment& sweep, const SweepConfig& c, const SweepOptions& o, const std::string& targetLine,
                const std::function<void(nlohmann::json&)>& describe)
{
    std::printf("# rtscope sweep: %zu settings x %s, period %s, %s\n", c.settings.size(),
                formatDuration(c.eachNs).c_str(), formatDuration(c.base.periodNs).c_str(),
                !c.loadCmd.empty() ? ("load: " + c.loadCmd).c_str() : (std::to_string(c.base.hogs) + " hogs").c_str());
    if (!targetLine.empty())
        std::printf("%s\n", targetLine.c_str());
    std::fflush(stdout);
    size_t printed = 0;
    auto printRows = [&](const SweepSnapshot& s) {
        for (; printed < s.results.size(); ++printed) {
            const SweepResult& r = s.results[printed];
            const Histogram& h = r.stats.histogram;
            if (!r.error.empty() && r.stats.samples == 0) {
                std::printf("%-10s  error: %s\n", r.setting.label().c_str(), r.error.c_str());
                continue;
            }
            std::printf("%-10s %9llu %9s %9s %9s %9s %7llu %7llu\n", r.setting.label().c_str(),
                        (unsigned long long)r.stats.samples, us1(h.percentile(50)).c_str(),
                        us1(h.percentile(99)).c_str(), us1(h.percentile(99.9)).c_str(), us1(h.max()).c_str(),
                        (unsigned long long)r.stats.skipped, (unsigned long long)r.stats.drops);
        }
        std::fflush(stdout);
    };
    std::printf("%-10s %9s %9s %9s %9s %9s %7s %7s\n", "setting", "samples", "p50 us", "p99 us", "p99.9 us", "max us",
                "skipped", "dropped");
    // Off the CPUs every setting loads: the measured ones and the hogs' (a --load-cmd runs where it likes).
    const int signal = waitForExperiment(sweep, [&] {
        if (const auto s = sweep.snapshot())
            printRows(*s);
    });
    sweep.stop();
    const std::shared_ptr<const SweepSnapshot> last = sweep.snapshot(); // the final one, published by stop()
    const SweepSnapshot& s = *last;
    printRows(s);
    if (signal)
        std::printf("# stopped by %s after %zu of %zu settings\n", strsignal(signal), s.results.size(), s.total);
    if (!s.loadStatus.empty())
        std::printf("# load command: %s\n", s.loadStatus.c_str());

    if (!o.json.empty()) {
        nlohmann::json rows = nlohmann::json::array();
        for (const SweepResult& r : s.results) {
            nlohmann::json row = histogramSummaryJson(r.stats.histogram);
            row["setting"] = r.setting.label();
            row["policy"] = policyName(r.setting.policy);
            row["priority"] = r.setting.priority;
            if (isDeadline(r.setting.policy)) {
                row["runtime_ns"] = r.setting.runtimeNs;
                row["deadline_ns"] = r.setting.deadlineNs;
            }
            row["samples"] = r.stats.samples;
            row["skipped_periods"] = r.stats.skipped;
            row["dropped_samples"] = r.stats.drops;
            row["duration_ns"] = r.durationNs;
            row["error"] = r.error;
            rows.push_back(std::move(row));
        }
        nlohmann::json j{{"rtscope", RTSCOPE_VERSION}, {"experiment", "sweep"}, {"each_ns", c.eachNs},
                         {"base", toJson(c.base)},     {"load_cmd", c.loadCmd}, {"load_status", s.loadStatus},
                         {"cancelled", signal != 0},   {"results", rows}};
        describe(j);
        if (!writeJsonFile(o.json, j))
            return ExitFailure;
    }
    // A setting that could not run is a failure of the sweep, not a row to overlook.
    const bool failed = std::any_of(s.results.begin(), s.results.end(),
                                    [](const SweepResult& r) { return !r.error.empty() && r.stats.samples == 0; });
    return failed ? ExitFailure : ExitOk;
}

int run(const SweepOptions& o)
{
    if (o.target.given())
        return runOwnCommandOnTarget<SweepConfig>(
            "sweep", o.target,
            [&](const CpuTopology& target, std::vector<std::string>& problems) {
                SweepConfig c = toConfig(o, problems);
                if (problems.empty()) // the agent validates it again, with its privileges
                    for (auto& p : c.validate(target))
                        problems.push_back(std::move(p));
                return c;
            },
            [&](CliTarget& link, const SweepConfig& c) {
                RemoteExperiment<SweepConfig> sweep(link);
                prepareRemoteRun(sweep);
                RunResult result;
                if (Error e = sweep.start(c, link.topology()))
                    return link.refused(e);
                result.exitCode =
                    finishSweep(sweep, c, o, link.targetLine(), [&](nlohmann::json& j) { describeTarget(j, link); });
                return result;
            });
    std::vector<std::string> problems;
    const SweepConfig c = toConfig(o, problems);
    const CpuTopology topo = CpuTopology::current();
    if (problems.empty())
        for (auto& p : c.validate(topo))
            problems.push_back(std::move(p));
    if (!problems.empty())
        return reportInvalid("sweep", problems);
    SweepExperiment sweep;
    warnAboutOtherMeasurements("sweep", c.base.resolvedCpus(topo));
    if (Error e = SweepExperiment::checkRealtimeSettings(c, topo))
        return notStarted("sweep", e).exitCode;
    if (Error e = sweep.start(c, topo))
        return notStarted("sweep", e).exitCode;
    return finishSweep(sweep, c, o, {}, [](nlohmann::json& j) { j["probe"] = toJson(probeSystem()); });
}

void addSweepFlags(CLI::App* sub, SweepOptions& o)
{
    sub->add_option("--settings", o.settings,
                    "comma list: other, batch, idle, fifo:PRIO, rr:PRIO, deadline:RUNTIME[/DEADLINE]")
        ->capture_default_str();
    sub->add_option("--each", o.each, "time per setting, 100ms..1h (bare number: seconds)")->capture_default_str();
    CLI::Option* hogs = addLatencyOptions(sub, o.base, kSweepLatencyFlags);
    sub->add_option("--load-cmd", o.loadCmd, "your own load, run with /bin/sh -c for the whole sweep, then stopped")
        ->excludes(hogs);
    addTargetOptions(sub, o.target);
    outputFile(sub->add_option("--json", o.json, "write every setting's figures as JSON"));
}

} // namespace

const OptionsCommand<SweepOptions>
    kSweepCommand("sweep", 80, "Run the latency experiment over a list of policies/priorities", addSweepFlags, run);

} // namespace rtscope::cli
