// `rtscope locks`: the contention experiment of the lock lab, one lock kind after the other with the same
// settings, printed as a table sorted by throughput, with --json and --csv exports.
#include "app/cli/command_util.h"
#include "app/cli/remote_target.h"

#include "engine/experiments/locks/contention_experiment.h"
#include "engine/export/lock_lab_report.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cstdio>
#include <memory>

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
    TableOutputOptions output;
    RemoteTarget target;
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
    readDuration("hold", o.hold, kNsPerUs, "e.g. 0, 250ns, 1us (bare numbers are microseconds)", c.holdNs, problems);
    readDuration("work", o.work, kNsPerUs, "e.g. 0, 500ns, 5us (bare numbers are microseconds)", c.workNs, problems);
    readDuration("duration", o.duration, kNsPerSec, "e.g. 5s or 500ms (bare numbers are seconds)", c.durationNs,
                 problems);
    if (auto p = parsePlacement(o.placement))
        c.placement = *p;
    else
        problems.push_back("placement must be spread or one-cpu (got '" + o.placement + "')");
    c.cpu = o.cpu;
    readPolicy(o.policy, o.priority, c.policy, problems);
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

std::string locksProgressLine(const ContentionSnapshot& s)
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

void printContentionTable(const ContentionSnapshot& s)
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

// The parts of a locks run that are its own, on this machine or a target; @p header gives the run's label.
TableRun<ContentionSnapshot> contentionTable(std::function<std::string()> header, const ContentionConfig&)
{
    return TableRun<ContentionSnapshot>{
        .command = "locks",
        .header = std::move(header),
        .progressInLog = Progress::InLog::EverySecond,
        .progress = locksProgressLine,
        .printTable = printContentionTable,
        .report = [](const ContentionSnapshot& s) { return withProbeAndCommandLine(contentionReportJson(s)); },
        .csv = contentionCsv,
        .figures =
            [](const ContentionSnapshot& s) {
                std::vector<RunFigure> figures;
                for (const auto& r : s.kinds)
                    if (r && r->state != KindRunState::Pending)
                        figures.push_back(
                            {std::string(lockKindName(r->kind)) + " throughput", r->acquisitionsPerSec, "acq/s"});
                return figures;
            },
    };
}

void addLocksFlags(CLI::App* sub, LocksOptions& o)
{
    sub->add_option("--kinds", o.kinds, "comma-separated: spin, mutex, adaptive-glibc, adaptive, pi (or all)")
        ->capture_default_str();
    sub->add_option("-t,--threads", o.threads, "worker threads, 2..32")->capture_default_str();
    sub->add_option("--hold", o.hold, "critical section: busy work while holding the lock, 0..1ms (bare: us)")
        ->capture_default_str();
    sub->add_option("--work", o.work, "non-critical busy work between acquisitions, 0..1ms (bare: us)")
        ->capture_default_str();
    sub->add_option("-D,--duration", o.duration, "run time per kind, 10ms..1h (60s with fifo/rr; bare: s)")
        ->capture_default_str();
    sub->add_option("--placement", o.placement, "spread (pinned round-robin) or one-cpu")->capture_default_str();
    noValueBelow(
        sub->add_option("-a,--cpu", o.cpu, "the CPU for --placement one-cpu (default: the highest usable CPU)"));
    addPolicyOptions(sub, o.policy, o.priority,
                     "workers' policy: " + policyNameList() + " (fifo/rr: one-cpu, not CPU 0, no spin)");
    sub->add_option("--nice", o.nice, "nice -20..19 for other/batch/idle (with fifo/rr use -p)");
    sub->add_option("--spin-limit", o.spinLimit, "rtscope adaptive lock: spin iterations before sleeping, 0..1e7")
        ->capture_default_str();
    sub->add_flag("--no-steal", o.noSteal,
                  "rtscope adaptive lock: hand the lock to a sleeping waiter instead of letting a running one take it");
    addTargetOptions(sub, o.target);
    addTableOutputOptions(sub, o.output, "write every figure, per kind and per worker, as JSON",
                          "write one CSV row per kind", "no progress line, only the summary");
}

} // namespace

const TableCommand<ContentionExperiment, LocksOptions>
    kLocksCommand("locks", 50,
                  "Lock contention: spinning, sleeping, adaptive and priority-inheriting locks, one kind after another",
                  {.addFlags = addLocksFlags,
                   .toConfig = toConfig,
                   .table = contentionTable,
                   .firstThread = [](const ContentionConfig& c, const CpuTopology& topo) {
                       return threadSpec(c.policy, c.priority, c.nice, c.workerCpus(topo).front(), "rtscope-lock");
                   }});

} // namespace rtscope::cli
