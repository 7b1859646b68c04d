// `rtscope inversion`: the lock lab's priority-inversion experiment (Mars Pathfinder): the high thread's wait
// for the lock, its missed periods, and a text timeline of the worst period.
#include "app/cli/command_util.h"
#include "app/cli/remote_target.h"

#include "engine/experiments/locks/inversion_experiment.h"
#include "engine/export/lock_lab_report.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace rtscope::cli {

namespace {

struct InversionOptions {
    std::string lock = "mutex";
    std::string burst = "50ms";
    std::string hold = "1ms";
    std::string period = "100ms";
    std::string duration = "5s";
    int cpu = -1;
    int lowPriority = InversionConfig().lowPriority;
    int mediumPriority = InversionConfig().mediumPriority;
    int highPriority = InversionConfig().highPriority;
    TableOutputOptions output;
    RemoteTarget target;
};

InversionConfig toConfig(const InversionOptions& o, std::vector<std::string>& problems)
{
    InversionConfig c;
    if (auto k = parseLockKind(o.lock))
        c.lock = *k;
    else
        problems.push_back("lock must be mutex, pi or ceiling (got '" + o.lock + "')");
    readDuration("medium-burst", o.burst, kNsPerUs, "e.g. 50ms (bare numbers are microseconds)", c.mediumBurstNs,
                 problems);
    readDuration("hold", o.hold, kNsPerUs, "e.g. 1ms (bare numbers are microseconds)", c.holdNs, problems);
    readDuration("period", o.period, kNsPerUs, "e.g. 100ms (bare numbers are microseconds)", c.periodNs, problems);
    readDuration("duration", o.duration, kNsPerSec, "e.g. 5s (bare numbers are seconds)", c.durationNs, problems);
    c.cpu = o.cpu;
    c.lowPriority = o.lowPriority;
    c.mediumPriority = o.mediumPriority;
    c.highPriority = o.highPriority;
    return c;
}

std::string ms(int64_t ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f ms", double(ns) / 1e6);
    return buf;
}

// One text row per thread over [from, to): H/L holding the lock, M running, w waiting for it, '.' not running.
void printPeriodTimeline(const InversionSnapshot& s, const InversionPeriod& p)
{
    const int64_t period = s.config.periodNs;
    const int64_t from = s.t0Ns + (p.releaseNs - s.t0Ns - s.config.highOffsetNs()) / period * period;
    const int64_t span =
        std::min(std::max(p.doneNs - from, s.config.mediumOffsetNs() + s.config.mediumBurstNs) * 21 / 20, period);
    constexpr int kColumns = 64;
    const int64_t to = from + std::max<int64_t>(span, kColumns);
    const double colNs = double(to - from) / kColumns;
    std::printf("  period released %.3f s after the start, one column = %s (H/L holding the lock, M running, w high "
                "waiting, . not running):\n",
                double(from - s.t0Ns) / 1e9, formatDuration(int64_t(colNs)).c_str());
    const InversionLane lanes[3] = {InversionLane::High, InversionLane::Medium, InversionLane::Low};
    for (InversionLane lane : lanes) {
        std::string row(kColumns, '.');
        for (const TimelineSegment& seg : s.timeline) {
            if (seg.lane != lane || seg.endNs <= from || seg.startNs >= to)
                continue;
            const int c0 = std::clamp(int(double(seg.startNs - from) / colNs), 0, kColumns - 1);
            const int c1 = std::clamp(int(double(seg.endNs - from) / colNs), c0, kColumns - 1);
            char mark = 'M';
            if (seg.state == SegmentState::HoldingLock)
                mark = lane == InversionLane::High ? 'H' : 'L';
            else if (seg.state == SegmentState::WaitingForLock)
                mark = 'w';
            for (int c = c0; c <= c1; ++c)
                if (row[size_t(c)] == '.' || (row[size_t(c)] == 'w' && mark != 'w'))
                    row[size_t(c)] = mark;
        }
        std::printf("    %-6s |%s|\n", inversionLaneName(lane), row.c_str());
    }
}

void printSummary(const InversionSnapshot& s)
{
    const Histogram& h = s.highWait;
    std::printf("\nSummary: %s, SCHED_FIFO low %d / medium %d / high %d, watchdog on CPU %d\n",
                s.config.label().c_str(), s.config.lowPriority, s.config.mediumPriority, s.config.highPriority,
                s.watchdogCpu);
    std::printf("  high thread   %llu periods, %llu found the lock held, %llu missed (lock after its next release), "
                "%llu releases skipped\n",
                (unsigned long long)s.highPeriods, (unsigned long long)s.highContended,
                (unsigned long long)s.highMissed, (unsigned long long)s.highSkipped);
    if (h.count() > 0)
        std::printf("  lock wait     p50 %s  p99 %s  max %s  (from its release; critical section %s, medium burst "
                    "%s)\n",
                    ms(h.percentile(50)).c_str(), ms(h.percentile(99)).c_str(), ms(h.max()).c_str(),
                    ms(s.config.holdNs).c_str(), ms(s.config.mediumBurstNs).c_str());
    std::printf("  inversion     medium ran %s while high waited (total wait %s); low ran %s of it\n",
                ms(s.mediumRanWhileHighWaitedNs).c_str(), ms(s.highWaitTotalNs).c_str(),
                ms(s.lowRanWhileHighWaitedNs).c_str());
    std::printf("  work done     %llu low sections, %llu medium bursts\n", (unsigned long long)s.lowSections,
                (unsigned long long)s.mediumBursts);
    std::printf("  watchdog      %zu trip(s)   dropped samples %llu   memory %s\n", s.watchdogTrips.size(),
                (unsigned long long)s.ringDrops, s.memoryLock.c_str());
    if (!s.error.empty())
        std::printf("  error         %s\n", s.error.c_str());
    if (!s.periods.empty()) {
        const auto worst = std::max_element(s.periods.begin(), s.periods.end(),
                                            [](const auto& a, const auto& b) { return a.waitNs() < b.waitNs(); });
        std::printf("  worst period: high waited %s\n", ms(worst->waitNs()).c_str());
        printPeriodTimeline(s, *worst);
    }
}

// The parts of a inversion run that are its own, on this machine or a target; @p header gives the run's label.
TableRun<InversionSnapshot> inversionTable(std::function<std::string()> header, const InversionConfig&)
{
    return TableRun<InversionSnapshot>{
        .command = "inversion",
        .header = std::move(header),
        .progressInLog = Progress::InLog::EverySecond,
        .progress =
            [](const InversionSnapshot& s) {
                return "high: " + std::to_string(s.highPeriods) + " periods  wait max " + ms(s.highWait.max()) +
                       "  missed " + std::to_string(s.highMissed);
            },
        .printTable = printSummary,
        .report = [](const InversionSnapshot& s) { return withProbeAndCommandLine(inversionReportJson(s)); },
        .csv = inversionTimelineCsv,
        .figures =
            [](const InversionSnapshot& s) {
                std::vector<RunFigure> figures;
                if (s.highWait.count() > 0)
                    figures = {{"high thread's max lock wait", double(s.highWait.max()) / 1e6, "ms"},
                               {"p99 lock wait", double(s.highWait.percentile(99)) / 1e6, "ms"}};
                figures.push_back({"missed periods", double(s.highMissed), ""});
                return figures;
            },
    };
}

void addInversionFlags(CLI::App* sub, InversionOptions& o)
{
    sub->add_option("--lock", o.lock, "mutex, pi (priority inheritance) or ceiling (priority protect)")
        ->capture_default_str();
    sub->add_option("--medium-burst", o.burst, "the medium thread's spin per period, 100us..1s (bare: us)")
        ->capture_default_str();
    sub->add_option("--hold", o.hold, "the low thread's critical section, 100us..100ms, at most period/2 (bare: us)")
        ->capture_default_str();
    sub->add_option("--period", o.period, "release period of all three threads, 10ms..10s (bare: us)")
        ->capture_default_str();
    sub->add_option("-D,--duration", o.duration, "run time, 100ms..10min (bare: s)")->capture_default_str();
    noValueBelow(
        sub->add_option("-a,--cpu", o.cpu, "the threads' CPU (default: the highest usable CPU; never the first one)"));
    sub->add_option("--low-priority", o.lowPriority, "SCHED_FIFO priority of the low thread, 1..98")
        ->capture_default_str();
    sub->add_option("--medium-priority", o.mediumPriority, "... of the medium thread, above low")
        ->capture_default_str();
    sub->add_option("--high-priority", o.highPriority, "... of the high thread (also the ceiling), at most 98")
        ->capture_default_str();
    addTargetOptions(sub, o.target);
    addTableOutputOptions(sub, o.output, "write the figures, every period and the whole timeline as JSON",
                          "write the timeline: one row per segment (lane,state,start_s,end_s,duration_us)",
                          "no progress line, only the summary");
}

} // namespace

const TableCommand<InversionExperiment, InversionOptions> kInversionCommand(
    "inversion", 60, "Priority inversion (Mars Pathfinder): three SCHED_FIFO threads, one lock, one CPU",
    {.addFlags = addInversionFlags,
     .toConfig = toConfig,
     .table = inversionTable,
     .firstThread =
         [](const InversionConfig& c, const CpuTopology& topo) {
             return threadSpec(Policy::Fifo, c.highPriority, 0, c.resolvedCpu(topo), "rtscope-inv-high");
         },
     .prepare =
         [](InversionExperiment& exp) {
             exp.setTimelineWindow(0); // the exports carry the whole run
             exp.setPublishInterval(250'000'000);
         },
     // The exports carry the run's timeline: as much of it as the agent keeps (docs/remote.md, Start).
     .view = {{"timeline_window_ns", kAgentViewMaxNs}}});

} // namespace rtscope::cli
