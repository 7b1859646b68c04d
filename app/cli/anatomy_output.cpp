// The latency anatomy as `rtscope latency --trace` prints it (anatomy_output.h). Only engine headers and the
// standard library: tests/cli/tst_anatomy_cli.cpp compiles this file on its own to check the text.
#include "app/cli/anatomy_output.h"

#include "engine/experiments/latency/latency_run.h"
#include "engine/pipeline/wakeup_anatomy.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/printable.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rtscope::cli {

namespace {

/// Rows of the culprit table printed; the rest are counted (every row is in --json).
constexpr size_t kAnatomyCulpritRows = 20;

std::string anatomyFmt(const char* format, auto... args)
{
    char buf[512];
    std::snprintf(buf, sizeof buf, format, args...);
    return buf;
}

std::string anatomyPart(const std::optional<int64_t>& ns)
{
    return ns ? formatDuration(*ns) : std::string("unknown");
}

std::string anatomyCpus(const LatencySnapshot& s)
{
    std::set<int> cpus;
    for (const auto& t : s.threads)
        cpus.insert(t.cpu);
    const std::vector<int> list(cpus.begin(), cpus.end());
    if (list.empty())
        return "the measured CPUs";
    return (list.size() == 1 ? "CPU " : "CPUs ") + formatCpuList(list);
}

std::string anatomyTask(int32_t pid, const std::string& comm, int32_t prio)
{
    std::string t = comm.empty() ? std::string("a task not named in the events") : printable(comm);
    t += " (pid " + (pid >= 0 ? std::to_string(pid) : std::string("unknown"));
    if (prio != -2)
        t += ", " + describeKernelPrio(prio);
    return t + ")";
}

std::string anatomyCulpritId(const CulpritRow& r)
{
    switch (r.kind) {
    case CulpritKind::Task:
    case CulpritKind::Irq:
        return std::to_string(r.id);
    default:
        return "-"; // a softirq vector, an x86 vector or a callback address: the name says which
    }
}

std::string anatomyCulpritPrio(const CulpritRow& r)
{
    if (r.kind != CulpritKind::Task)
        return "-";
    return r.prio == -2 ? std::string("unknown") : describeKernelPrio(r.prio);
}

const LatencyTracing* anatomyTracing(const LatencySnapshot& s)
{
    return s.tracing.get();
}

// The run's tracing when it is active (its anatomy figures are the run's), else null.
const LatencyTracing* activeTracing(const LatencySnapshot& s)
{
    const LatencyTracing* t = anatomyTracing(s);
    return t && t->active ? t : nullptr;
}

// One wake-up: its verdict, then where it was and its parts, one per line.
std::string anatomyWakeup(const LatencySnapshot& s, const TracedWakeup& w, size_t rank)
{
    const WakeupAnatomy& a = w.anatomy;
    std::string out = anatomyFmt("  %zu. ", rank) + printable(anatomyVerdict(a)) + "\n";
    const std::string indent = "     ";
    out += indent + "seq " + std::to_string(w.seq) + ", thread " + std::to_string(w.thread) + " (tid " +
           std::to_string(a.query.tid) + ")";
    if (w.thread < s.threads.size() && s.startNs > 0)
        out += anatomyFmt(", deadline %.6f s after the start", double(a.query.deadlineNs - s.startNs) / 1e9);
    out += ", " + std::to_string(w.events.size()) + " events in its window";
    if (w.eventsOmitted > 0)
        out += " (and " + std::to_string(w.eventsOmitted) + " earlier ones not kept)";
    out += "\n";

    const auto line = [&](const char* name, const std::string& value) {
        out += indent + anatomyFmt("%-18s", name) + value + "\n";
    };
    line("timer IRQ delay", anatomyPart(a.timerIrqDelayNs) + (a.idleAtTimer ? " (the CPU was idle)" : "") +
                                (a.runnableAtDeadline ? " (preempted at its deadline: no timer to wait for)" : ""));

    std::string irq = anatomyPart(a.irqNs);
    if (a.irqNs && !a.interrupts.empty()) {
        std::string list;
        for (const AnatomyInterrupt& i : a.interrupts)
            list += (list.empty() ? "" : ", ") + printable(i.name) + " " + formatDuration(i.ns) +
                    anatomyFmt(" (%d×)", i.count);
        irq += ": " + list;
    }
    line("interrupts", irq);

    std::string sched = anatomyPart(a.schedulingNs);
    if (a.schedulingNs) {
        std::string list;
        for (const AnatomyTaskShare& t : taskShares(a))
            list += (list.empty() ? "" : ", ") + anatomyTask(t.pid, t.comm, t.prio) + " " + formatDuration(t.ns);
        int64_t idleNs = 0;
        for (const AnatomySlice& sl : a.tasks)
            if (sl.idle())
                idleNs += sl.ns;
        if (idleNs > 0)
            list += (list.empty() ? "" : ", ") + std::string("idle ") + formatDuration(idleNs);
        if (!list.empty())
            sched += ": " + list;
        else if (*a.schedulingNs > 0)
            sched += " (no other task: the scheduler's own time)";
    }
    line("scheduling delay", sched);
    line("return to user", anatomyPart(a.returnToUserNs));
    line("unaccounted", formatDuration(a.unaccountedNs) + (a.complete() ? "" : " (the unknown parts)"));
    if (a.eventsLost)
        out += indent + "the kernel lost events inside this wake-up's window\n";
    if (!a.consistent)
        out += indent + "its events contradict the measured times: the parts they bound are unknown\n";
    if (!a.note.empty())
        out += indent + "note: " + printable(a.note) + "\n";
    return out;
}

} // namespace

std::string anatomyStatusText(const LatencySnapshot& s)
{
    const LatencyTracing* t = anatomyTracing(s);
    if (!t)
        return {};
    if (!t->active)
        return "Tracing: not available: " + printable(t->unavailable.empty() ? "no reason given" : t->unavailable) +
               "\n  the run was measured untraced\n";
    const TraceStats& st = t->stats;
    // Over the time the stats were taken at (updatedNs), which a replay keeps from the live run.
    const double seconds = double((t->updatedNs > 0 ? t->updatedNs : s.publishedNs) - s.startNs) / 1e9;
    std::string out =
        "Tracing: private tracefs instance on " + anatomyCpus(s) + ": " + std::to_string(st.events) +
        anatomyFmt(" events in %.2f s (%.0f events/s), ", seconds, seconds > 0 ? double(st.events) / seconds : 0.0) +
        "lost events " + std::to_string(st.lostEvents);
    if (st.lossReports > 0)
        out += " (" + std::to_string(st.lossReports) + " loss reports)";
    if (t->queueDroppedEvents > 0)
        out += ", " + std::to_string(t->queueDroppedEvents) + " more dropped on the way to the analysis (" +
               std::to_string(t->queueDroppedBatches) + " batches: the queue was full)";
    out += "\n";
    if (st.kernelOverrun || st.kernelDropped || st.unreadAtStop || st.undecoded || st.handlerErrors)
        out += "  kernel overruns " + std::to_string(st.kernelOverrun) + ", dropped " +
               std::to_string(st.kernelDropped) + ", unread at stop " + std::to_string(st.unreadAtStop) +
               ", undecoded " + std::to_string(st.undecoded) + ", handler errors " + std::to_string(st.handlerErrors) +
               "\n";
    const AnatomyFigures& f = t->figures;
    out += "  wake-ups: " + std::to_string(f.wakeupsSeen) + " measured, " + std::to_string(f.wakeupsAnalysed) +
           " analysed (" + std::to_string(f.wakeupsComplete) + " with every part known, " +
           std::to_string(f.wakeupsWithLoss) + " with lost events in their window), " +
           std::to_string(f.wakeupsNotAnalysed) + " not analysed (their events were not held), " +
           std::to_string(f.wakeupsPending) + " still waiting for their events\n";
    if (f.eventsDropped > 0)
        out += "  events the analysis never used (outside every window it kept): " + std::to_string(f.eventsDropped) +
               "\n";
    if (!t->missingEvents.empty()) {
        std::string list;
        for (const auto& e : t->missingEvents)
            list += (list.empty() ? "" : ", ") + printable(e);
        out += "  events this kernel lacks: " + list + " (the parts they bound may be unknown)\n";
    }
    return out;
}

std::string culpritTableText(const LatencySnapshot& s)
{
    const LatencyTracing* t = activeTracing(s);
    if (!t)
        return {};
    const AnatomyFigures& f = t->figures;
    std::string out = "Who delayed the measuring thread (" + std::to_string(f.wakeupsAnalysed) +
                      " wake-ups analysed; time between its timer and its switch-in):\n";
    if (f.culprits.empty())
        return out + "  nobody: no other task or interrupt ran between a timer and its wake-up, in the wake-ups "
                     "whose parts are known\n";
    const size_t shown = std::min(f.culprits.size(), kAnatomyCulpritRows);
    size_t nameWidth = 4, prioWidth = 4;
    for (size_t i = 0; i < shown; ++i) {
        nameWidth = std::max(nameWidth, std::min<size_t>(printable(f.culprits[i].name).size(), 40));
        prioWidth = std::max(prioWidth, anatomyCulpritPrio(f.culprits[i]).size());
    }
    out += anatomyFmt("  %-8s %-*s %8s  %-*s %9s %11s %11s\n", "kind", int(nameWidth), "name", "pid/irq",
                      int(prioWidth), "prio", "wake-ups", "total", "worst");
    for (size_t i = 0; i < shown; ++i) {
        const CulpritRow& r = f.culprits[i];
        out += anatomyFmt("  %-8s %-*s %8s  %-*s %9llu %11s %11s\n", culpritKindName(r.kind), int(nameWidth),
                          printable(r.name).c_str(), anatomyCulpritId(r).c_str(), int(prioWidth),
                          anatomyCulpritPrio(r).c_str(), (unsigned long long)r.wakeups,
                          formatDuration(r.totalNs).c_str(), formatDuration(r.worstNs).c_str());
    }
    if (f.culprits.size() > shown)
        out += "  … and " + std::to_string(f.culprits.size() - shown) + " more (every row is in --json)\n";
    return out;
}

std::string worstWakeupsText(const LatencySnapshot& s)
{
    const LatencyTracing* t = activeTracing(s);
    if (!t)
        return {};
    const AnatomyFigures& f = t->figures;
    std::string out;
    if (f.worst.empty())
        out = "Worst wake-ups: none analysed (no wake-up's events had arrived)\n";
    else
        out = "Worst wake-ups (" + std::to_string(f.worst.size()) + " of " + std::to_string(f.wakeupsAnalysed) +
              " analysed, --trace-top " + std::to_string(t->top) + "), worst first:\n";
    for (size_t i = 0; i < f.worst.size(); ++i)
        out += anatomyWakeup(s, f.worst[i], i + 1);
    if (t->thresholdNs > 0)
        out += "Over the threshold of " + formatDuration(t->thresholdNs) + ": " + std::to_string(f.overThresholdTotal) +
               " wake-up" + (f.overThresholdTotal == 1 ? "" : "s") + " (the latest " +
               std::to_string(f.overThreshold.size()) + " with their anatomy in --json)\n";
    return out;
}

std::string anatomyText(const LatencySnapshot& s)
{
    const LatencyTracing* t = activeTracing(s);
    if (!t)
        return {};
    return anatomyStatusText(s) + "\n" + culpritTableText(s) + "\n" + worstWakeupsText(s);
}

std::string tracingUnavailableText(const std::string& command, const LatencySnapshot& s)
{
    const LatencyTracing* t = anatomyTracing(s);
    if (!t || t->active)
        return {};
    return "rtscope " + command +
           ": tracing is not available: " + printable(t->unavailable.empty() ? "no reason given" : t->unavailable) +
           "\nrtscope " + command + ": the run goes on untraced; its measurement is valid, only without the anatomy\n";
}

void printAnatomy(const LatencySnapshot& snapshot)
{
    const std::string text = anatomyText(snapshot);
    if (text.empty())
        return;
    std::fputs(("\n" + text).c_str(), stdout);
    std::fflush(stdout);
}

bool printTracingUnavailable(const std::string& command, const LatencySnapshot& snapshot, bool& printed)
{
    if (printed)
        return true;
    const std::string text = tracingUnavailableText(command, snapshot);
    if (text.empty())
        return false;
    std::fputs(text.c_str(), stderr);
    printed = true;
    return true;
}

void printTracingStopError(const std::string& command, const LatencySnapshot& snapshot)
{
    if (snapshot.tracing && !snapshot.tracing->stopError.empty())
        std::fprintf(stderr, "rtscope %s: warning: tracing: %s\n", command.c_str(),
                     printable(snapshot.tracing->stopError).c_str());
}

} // namespace rtscope::cli
