// `rtscope locks`: the contention experiment of the lock lab, one lock kind after the other with the same
// settings, printed as a table sorted by throughput, with --json and --csv exports.
#include "app/cli/cli.h"
#include "app/cli/experiment_runs.h"

#include "engine/experiments/contention_experiment.h"
#include "engine/io/lock_lab_report.h"
#include "engine/io/report_json.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace rtscope::cli {

namespace {

struct LocksOptions {
    std::string kinds = "spin,mutex,adaptive-glibc,adaptive,pi";
    int threads = 4;
    std::string hold = "1us";
    std::string work = "5us";
    std::string duration = "2s";
    std::string placement = "spread";
    int cpu = -1;
    std::string policy;
    int priority = 0;
    int nice = 0;
    int spinLimit = LockOptions::kDefaultSpinLimit;
    bool noSteal = false;
    std::string json;
    std::string csv;
    bool quiet = false;
};

// Builds the config from the flags. Unit and name errors are reported here; every range is validate()'s.
ContentionConfig toConfig(const LocksOptions& o, std::vector<std::string>& problems)
{
    ContentionConfig c;
    if (o.kinds != "all") {
        c.kinds.clear();
        for (const std::string& name : splitList(o.kinds)) {
            if (auto k = parseLockKind(name))
                c.kinds.push_back(*k);
            else
                problems.push_back("kinds: '" + name +
                                   "' is not a lock kind; choose among spin, mutex, adaptive-glibc, adaptive, pi");
        }
    }
    c.threads = o.threads;
    auto duration = [&](const char* field, const std::string& text, int64_t& dst, int64_t bareUnit, const char* eg) {
        if (auto d = parseDuration(text, bareUnit))
            dst = *d;
        else
            problems.push_back(std::string(field) + ": '" + text + "' is not a duration; use " + eg);
    };
    duration("hold", o.hold, c.holdNs, kNsPerUs, "e.g. 0, 250ns, 1us (bare numbers are microseconds)");
    duration("work", o.work, c.workNs, kNsPerUs, "e.g. 0, 500ns, 5us (bare numbers are microseconds)");
    duration("duration", o.duration, c.durationNs, kNsPerSec, "e.g. 5s or 500ms (bare numbers are seconds)");
    if (auto p = parsePlacement(o.placement))
        c.placement = *p;
    else
        problems.push_back("placement must be spread or one-cpu (got '" + o.placement + "')");
    c.cpu = o.cpu;
    if (!o.policy.empty()) {
        if (auto p = parsePolicy(o.policy))
            c.policy = *p;
        else
            problems.push_back("policy must be one of other, batch, idle, fifo, rr (got '" + o.policy + "')");
    } else if (o.priority > 0) {
        c.policy = Policy::Fifo;
    }
    c.priority = o.priority;
    c.nice = o.nice;
    c.spinLimit = o.spinLimit;
    c.stealing = !o.noSteal;
    return c;
}

std::string rate(double perSec)
{
    char buf[32];
    if (perSec >= 1e6)
        std::snprintf(buf, sizeof buf, "%.2f M", perSec / 1e6);
    else if (perSec >= 1e3)
        std::snprintf(buf, sizeof buf, "%.1f k", perSec / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.0f ", perSec);
    return buf;
}

std::string percent(uint64_t part, uint64_t whole)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", whole ? 100.0 * double(part) / double(whole) : 0.0);
    return buf;
}

std::string progressLine(const ContentionSnapshot& s)
{
    if (s.currentKind < 0 || size_t(s.currentKind) >= s.kinds.size())
        return {};
    const ContentionKindResult& r = *s.kinds[size_t(s.currentKind)];
    char buf[200];
    std::snprintf(buf, sizeof buf, "[%d/%zu] %-14s %7.2f s  %10s acq/s  wait p99 %s", s.currentKind + 1, s.kinds.size(),
                  lockKindName(r.kind), double(r.elapsedNs) / 1e9, rate(r.acquisitionsPerSec).c_str(),
                  formatDuration(r.wait.percentile(99)).c_str());
    return buf;
}

void printTable(const ContentionSnapshot& s)
{
    std::vector<const ContentionKindResult*> rows;
    for (const auto& r : s.kinds)
        if (r && r->state != KindRunState::Pending)
            rows.push_back(r.get());
    std::stable_sort(rows.begin(), rows.end(), [](const ContentionKindResult* a, const ContentionKindResult* b) {
        return a->acquisitionsPerSec > b->acquisitionsPerSec;
    });
    double best = 0;
    for (const auto* r : rows)
        best = std::max(best, r->acquisitionsPerSec);

    std::printf("\nSummary: %s, workers on CPU %s\n", s.config.label().c_str(),
                formatCpuList([&] {
                    std::vector<int> c = s.workerCpus;
                    std::sort(c.begin(), c.end());
                    c.erase(std::unique(c.begin(), c.end()), c.end());
                    return c;
                }())
                    .c_str());
    std::printf("  %-15s %10s %7s  %-20s %10s %10s %10s %8s %8s %10s %6s %s\n", "kind", "acq/s", "vs mutex",
                "throughput", "wait p50", "p99", "max", "vcs/1k", "ivcs/1k", "cpu/acq", "fair", "state");
    for (const auto* r : rows) {
        const int barLen = best > 0 ? int(20.0 * r->acquisitionsPerSec / best + 0.5) : 0;
        const double ratio = throughputVsMutex(s, *r);
        char ratioText[16] = "-";
        if (ratio > 0)
            std::snprintf(ratioText, sizeof ratioText, "%.2fx", ratio);
        const double acq = double(std::max<uint64_t>(r->counts.acquisitions, 1));
        std::printf("  %-15s %10s %7s  %-20s %10s %10s %10s %8.2f %8.2f %10s %6.3f %s\n", lockKindName(r->kind),
                    rate(r->acquisitionsPerSec).c_str(), ratioText, std::string(size_t(barLen), '#').c_str(),
                    formatDuration(r->wait.percentile(50)).c_str(), formatDuration(r->wait.percentile(99)).c_str(),
                    formatDuration(r->wait.max()).c_str(), 1000.0 * double(r->voluntarySwitches) / acq,
                    1000.0 * double(r->involuntarySwitches) / acq,
                    formatDuration(int64_t(r->cpuNsPerAcquisition + 0.5)).c_str(), r->fairness,
                    kindRunStateName(r->state));
    }

    std::printf("  acquisition paths (of all acquisitions):\n");
    for (const auto* r : rows) {
        const AcquisitionCounts& c = r->counts;
        std::printf("    %-15s uncontended %-7s spun and won %-7s slept %-7s", lockKindName(r->kind),
                    percent(c.uncontended, c.acquisitions).c_str(), percent(c.spun, c.acquisitions).c_str(),
                    percent(c.slept, c.acquisitions).c_str());
        if (r->kind == LockKind::Adaptive)
            std::printf(" (slept because: owner blocked %llu, owner on this CPU %llu, spin limit %llu; %llu futex "
                        "sleeps)",
                        (unsigned long long)c.sleptOwnerNotRunning, (unsigned long long)c.sleptOwnerOnThisCpu,
                        (unsigned long long)c.sleptSpinLimit, (unsigned long long)c.futexSleeps);
        std::printf("\n");
    }
    uint64_t drops = 0;
    for (const auto* r : rows)
        drops += r->samplesDropped;
    std::printf("  dropped samples %llu   memory %s\n", (unsigned long long)drops, s.memoryLock.c_str());
    for (const auto* r : rows)
        if (!r->error.empty())
            std::printf("  error (%s) %s\n", lockKindName(r->kind), r->error.c_str());
    if (!s.error.empty())
        std::printf("  error         %s\n", s.error.c_str());
}

int run(const LocksOptions& o)
{
    std::vector<std::string> problems;
    ContentionConfig config = toConfig(o, problems);
    for (auto& p : config.validate(CpuTopology::current()))
        problems.push_back(std::move(p));
    if (!problems.empty())
        return reportInvalid("locks", problems);
    return runContention(config, tableOutput(o.quiet, o.json, o.csv)).exitCode;
}

} // namespace

RunResult runContention(const ContentionConfig& config, const RunOutput& out)
{
    RunResult result;
    ContentionExperiment exp;
    exp.setLockAllMemory(true);
    if (Error e = exp.start(config)) {
        std::fprintf(stderr, "rtscope locks: %s\n", e.message.c_str());
        result.exitCode = exitCodeFor(e.kind);
        return result;
    }
    const bool tty = isatty(STDOUT_FILENO);
    if (!out.quiet)
        std::printf("# rtscope %s locks: %s\n", RTSCOPE_VERSION, exp.config().label().c_str());
    int64_t lastPrint = 0;
    int signal = 0;
    while (!exp.finished()) {
        signal = waitForStopSignal(100);
        if (signal)
            break;
        auto snap = exp.snapshot();
        const int64_t now = nowNs();
        if (out.quiet || !snap || (!tty && now - lastPrint < kNsPerSec))
            continue;
        const std::string line = progressLine(*snap);
        if (line.empty())
            continue;
        if (tty)
            std::printf("\r%s\033[K", line.c_str());
        else
            std::printf("%s\n", line.c_str());
        std::fflush(stdout);
        lastPrint = now;
    }
    exp.stop();
    result.signal = signal;
    auto snap = exp.snapshot();
    if (!snap)
        return result;
    if (tty && !out.quiet)
        std::printf("\r\033[K");
    if (signal && !out.quiet)
        std::printf("# stopped by %s: partial results follow\n", strsignal(signal));
    printTable(*snap);

    bool written = true;
    result.report = contentionReportJson(*snap);
    result.report["probe"] = toJson(probeSystem());
    result.report["cmdline"] = commandLine();
    if (!out.json.empty())
        written = writeFile(out.json, result.report.dump(2) + "\n") && written;
    if (!out.csv.empty())
        written = writeFile(out.csv, contentionCsv(*snap)) && written;
    for (const auto& r : snap->kinds)
        if (r && r->state != KindRunState::Pending)
            result.figures.push_back(
                {std::string(lockKindName(r->kind)) + " throughput", r->acquisitionsPerSec, "acq/s"});
    if (!snap->error.empty())
        result.exitCode = ExitFailure;
    else
        result.exitCode = written ? ExitOk : ExitFailure;
    return result;
}

namespace {

Command addLocksCommand(CLI::App& app)
{
    auto o = std::make_shared<LocksOptions>();
    auto* sub = app.add_subcommand(
        "locks", "Lock contention: spinning, sleeping, adaptive and priority-inheriting locks, one kind after another");
    sub->add_option("--kinds", o->kinds, "comma-separated: spin, mutex, adaptive-glibc, adaptive, pi (or all)")
        ->capture_default_str();
    sub->add_option("-t,--threads", o->threads, "worker threads, 2..32")->capture_default_str();
    sub->add_option("--hold", o->hold, "critical section: busy work while holding the lock, 0..1ms (bare: us)")
        ->capture_default_str();
    sub->add_option("--work", o->work, "non-critical busy work between acquisitions, 0..1ms (bare: us)")
        ->capture_default_str();
    sub->add_option("-D,--duration", o->duration, "run time per kind, 10ms..1h (60s with fifo/rr; bare: s)")
        ->capture_default_str();
    sub->add_option("--placement", o->placement, "spread (pinned round-robin) or one-cpu")->capture_default_str();
    sub->add_option("-a,--cpu", o->cpu, "the CPU for --placement one-cpu (default: the highest usable CPU)");
    sub->add_option("--policy", o->policy,
                    "workers' policy: other, batch, idle, fifo, rr (fifo/rr: one-cpu, not CPU 0, no spin)");
    sub->add_option("-p,--priority", o->priority, "RT priority 1-99 for fifo/rr");
    sub->add_option("--nice", o->nice, "nice -20..19 for other/batch");
    sub->add_option("--spin-limit", o->spinLimit, "rtscope adaptive lock: spin iterations before sleeping, 0..1e7")
        ->capture_default_str();
    sub->add_flag("--no-steal", o->noSteal,
                  "rtscope adaptive lock: hand the lock to a sleeping waiter instead of letting a running one take it");
    sub->add_option("--json", o->json, "write every figure, per kind and per worker, as JSON");
    sub->add_option("--csv", o->csv, "write one CSV row per kind");
    sub->add_flag("-q,--quiet", o->quiet, "no progress line, only the summary");
    return {sub, [o] {
                return run(*o);
            }};
}

} // namespace

const CommandRegistration kRegistration("locks", 50, &addLocksCommand);

} // namespace rtscope::cli
