#include "engine/pipeline/wakeup_anatomy.h"

#include "engine/pipeline/wakeup_anatomy_steps.h"
#include "engine/util/name_list.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cctype>
#include <climits>

namespace rtscope {

namespace {

// A sched_switch's prev_state: the low byte holds the sleep state bits; 0 means the task was preempted while
// runnable (the kernel adds a "preempted" bit above them, TASK_REPORT_MAX, on some versions).
bool anatomyPreempted(const TraceEvent& e)
{
    return (e.sw.prevState & 0xff) == 0;
}

std::string anatomyTaskName(const AnatomyTaskShare& s)
{
    if (s.pid < 0)
        return "a task the events do not name";
    return (s.comm.empty() ? std::string("pid ") + std::to_string(s.pid) : s.comm) + " (pid " + std::to_string(s.pid) +
           (s.prio >= -1 ? ", " + describeKernelPrio(s.prio) : std::string()) + ")";
}

void anatomyAddNote(WakeupAnatomy& a, const std::string& text)
{
    a.note += (a.note.empty() ? "" : "; ") + text;
}

void anatomyFinish(WakeupAnatomy& a)
{
    if (a.eventsLost && !a.complete() && a.note.find("lost") == std::string::npos)
        anatomyAddNote(a, "the kernel lost events in this interval");
    int64_t known = 0;
    for (const auto& p : {a.timerIrqDelayNs, a.irqNs, a.schedulingNs, a.returnToUserNs})
        known += p.value_or(0);
    a.unaccountedNs = a.latencyNs - known;
}

// The thread held its CPU since @p switchInNs, before the deadline: clock_nanosleep found the deadline passed and did
// not sleep. Unless the kernel lost events since: the switch-out to sleep and the switch-in after it may be among
// them.
void noteNeverSlept(WakeupAnatomy& a, const std::vector<anatomy::LostGap>& gaps, int64_t switchInNs, int64_t hi)
{
    if (anatomy::gapOverlaps(gaps, a.runCpu, switchInNs, hi)) {
        a.eventsLost = true;
        anatomyAddNote(a, "the kernel lost events on CPU " + std::to_string(a.runCpu) +
                              " between the thread's last switch-in in the events and its wake time");
    } else {
        anatomyAddNote(a, "it held its CPU since " + formatDuration(a.query.deadlineNs - switchInNs) +
                              " before the deadline and never slept for it: its previous cycle ran late");
    }
}

// What woke the thread: its waking and wakeup, and the timer expiry it ran inside; or, without a waking, whether it
// was runnable at its deadline (preempted, not asleep: no timer to wait for).
void findWhatWokeIt(WakeupAnatomy& a, std::span<const TraceEvent> ev, const anatomy::SwitchIn& sw,
                    const anatomy::Waking& wk)
{
    if (wk.waking) {
        a.wakingNs = ev[*wk.waking].ts;
        if (wk.wakeup)
            a.wakeupNs = ev[*wk.wakeup].ts;
        if (const std::optional<size_t> timer = anatomy::findOwnTimer(ev, *wk.waking)) {
            const TraceEvent& t = ev[*timer];
            a.timerNs = t.ts;
            a.timerCpu = t.cpu;
            a.timerFunction = t.hrtimer.function;
            a.idleAtTimer = t.pid == 0;
        } else {
            anatomyAddNote(a, "it was woken on CPU " + std::to_string(ev[*wk.waking].cpu) + " by pid " +
                                  std::to_string(ev[*wk.waking].pid) +
                                  " outside a timer callback, not by its own timer");
        }
    } else if (sw.in && sw.outBefore && anatomyPreempted(ev[*sw.outBefore]) &&
               ev[*sw.outBefore].ts < a.query.deadlineNs) {
        a.runnableAtDeadline = true;
        anatomyAddNote(a, "it was runnable (preempted), not asleep, at its deadline: there was no timer to wait for");
    } else if (sw.in) {
        anatomyAddNote(a, "no sched_waking of the thread between its deadline and its switch-in in the events");
    }
}

// Where the wait for the CPU starts: the timer, or the deadline when it was runnable, or the waking.
std::optional<int64_t> waitStart(const WakeupAnatomy& a)
{
    if (a.timerNs)
        return a.timerNs;
    if (a.runnableAtDeadline)
        return a.query.deadlineNs;
    return a.wakingNs;
}

} // namespace

const char* culpritKindName(CulpritKind kind)
{
    return enumName<CulpritKind::Hrtimer>(kind, {"task", "irq", "softirq", "vector", "hrtimer"});
}

std::span<const TraceEvent> wakeupWindow(std::span<const TraceEvent> sorted, const WakeupQuery& query,
                                         int64_t lookbackNs)
{
    const std::span<const TraceEvent> w =
        traceWindow(sorted, query.deadlineNs - lookbackNs, query.wakeNs + kAnatomyToleranceNs);
    size_t end = size_t(w.data() - sorted.data()) + w.size();
    while (end < sorted.size() && sorted[end].cpu != query.cpu)
        ++end;
    if (end < sorted.size())
        ++end;
    const size_t begin = size_t(w.data() - sorted.data());
    return sorted.subspan(begin, end - begin);
}

std::vector<AnatomyTaskShare> taskShares(const WakeupAnatomy& anatomy)
{
    std::vector<AnatomyTaskShare> shares;
    for (const AnatomySlice& s : anatomy.tasks) {
        if (s.idle() || s.pid == anatomy.query.tid)
            continue;
        auto it = std::find_if(shares.begin(), shares.end(), [&](const AnatomyTaskShare& t) { return t.pid == s.pid; });
        if (it == shares.end()) {
            shares.push_back({s.pid, s.comm, s.prio, 0, 0});
            it = shares.end() - 1;
        }
        it->ns += s.ns;
        it->slices += 1;
        if (!s.comm.empty())
            it->comm = s.comm;
        if (s.prio != -2)
            it->prio = s.prio;
    }
    std::stable_sort(shares.begin(), shares.end(),
                     [](const AnatomyTaskShare& a, const AnatomyTaskShare& b) { return a.ns > b.ns; });
    return shares;
}

WakeupAnatomy analyzeWakeup(const WakeupQuery& query, std::span<const TraceEvent> input, const AnatomyOptions& options)
{
    std::vector<TraceEvent> sortedCopy;
    std::span<const TraceEvent> ev = input;
    if (!std::is_sorted(input.begin(), input.end(),
                        [](const TraceEvent& a, const TraceEvent& b) { return a.ts < b.ts; })) {
        sortedCopy.assign(input.begin(), input.end());
        sortTraceEvents(sortedCopy);
        ev = sortedCopy;
    }

    WakeupAnatomy a;
    a.query = query;
    a.latencyNs = query.wakeNs - query.deadlineNs;
    a.runCpu = query.cpu;
    const int64_t deadline = query.deadlineNs;
    const int64_t wake = query.wakeNs;
    const int64_t lo = deadline - kAnatomyToleranceNs;
    const int64_t hi = wake + kAnatomyToleranceNs;
    if (wake < deadline) {
        a.consistent = false;
        anatomyAddNote(a, "the wake time is before the deadline");
        anatomyFinish(a);
        return a;
    }

    const std::vector<anatomy::LostGap> gaps = anatomy::lostGaps(ev);
    a.eventsLost = anatomy::gapOverlaps(gaps, query.cpu, lo, hi);

    // Events up to the wake time (and the tolerance): [0, end).
    const size_t end = size_t(traceWindow(ev, INT64_MIN, hi).size());
    const anatomy::SwitchIn sw = anatomy::findSwitchIn(ev, end, query.tid, wake);
    if (sw.in && ev[*sw.in].ts < lo) {
        a.runCpu = ev[*sw.in].cpu;
        noteNeverSlept(a, gaps, ev[*sw.in].ts, hi);
        anatomyFinish(a);
        return a;
    }
    if (sw.in) {
        a.switchInNs = ev[*sw.in].ts;
        a.runCpu = ev[*sw.in].cpu;
    } else {
        anatomyAddNote(a, anatomy::missingSwitchInNote(ev, end, query.tid, query.cpu));
    }

    // The waking: the first sched_waking of the thread from the deadline on, up to its switch-in.
    const size_t fromDeadline = size_t(ev.size() - traceWindow(ev, lo, INT64_MAX).size());
    const anatomy::Waking wk = anatomy::findWaking(ev, fromDeadline, sw.in ? *sw.in + 1 : end, query.tid);
    findWhatWokeIt(a, ev, sw, wk);

    if (a.timerNs && *a.timerNs < lo) {
        a.consistent = false;
        anatomyAddNote(a, "its timer fired " + formatDuration(deadline - *a.timerNs) +
                              " before the deadline: the events do not belong to this wake-up");
    }

    // The scheduling window [s, e]: from the timer (or the waking, or the deadline when it was runnable) to the
    // switch-in, both clipped to [deadline, wake] (the tolerance: kAnatomyToleranceNs).
    const std::optional<int64_t> start = waitStart(a);
    if (a.consistent && start && a.switchInNs && *start > *a.switchInNs) {
        a.consistent = false;
        anatomyAddNote(a, "the switch-in comes before the wake-up in the events");
    }
    for (const anatomy::LostGap& g : gaps)
        if ((g.cpu == a.runCpu || g.cpu == a.timerCpu || (wk.waking && g.cpu == ev[*wk.waking].cpu)) && g.fromNs < hi &&
            g.toNs > lo)
            a.eventsLost = true;
    if (!a.consistent) {
        anatomyFinish(a);
        return a;
    }

    if (a.timerNs)
        a.timerIrqDelayNs = std::max(*a.timerNs, deadline) - deadline;
    else if (a.runnableAtDeadline)
        a.timerIrqDelayNs = 0;
    if (a.switchInNs)
        a.returnToUserNs = wake - std::min(*a.switchInNs, wake);
    if (a.switchInNs && anatomy::gapOverlaps(gaps, a.runCpu, std::min(*a.switchInNs, wake), wake)) {
        a.returnToUserNs.reset();
        anatomyAddNote(a, "the kernel lost events on CPU " + std::to_string(a.runCpu) +
                              " between the switch-in and the wake time");
    }

    if (start && a.switchInNs) {
        const int64_t s = std::max(*start, deadline);
        const int64_t e = std::min(*a.switchInNs, wake);
        anatomy::SchedulingSweep sweep =
            anatomy::sweepSchedulingWindow(ev, *sw.in, a.runCpu, s, e, {a.timerNs, a.timerCpu}, options);
        a.tasks = std::move(sweep.tasks);
        a.interrupts = std::move(sweep.interrupts);
        a.irqNs = sweep.irqNs;
        a.schedulingNs = sweep.taskNs;
        if (anatomy::gapOverlaps(gaps, a.runCpu, s, e)) {
            a.irqNs.reset();
            a.schedulingNs.reset();
            anatomyAddNote(a, "the kernel lost events on CPU " + std::to_string(a.runCpu) +
                                  " between the timer and the switch-in: how that time splits is unknown");
        }
    }
    anatomyFinish(a);
    return a;
}

std::string anatomyVerdict(const WakeupAnatomy& a, MicroUnit unit)
{
    // formatDuration() writes "us"; the names of tasks and handlers are never touched.
    auto formatDuration = [unit](int64_t ns) {
        const std::string s = rtscope::formatDuration(ns);
        return unit == MicroUnit::Sign ? withMicroSign(s) : s;
    };
    const std::string note = unit == MicroUnit::Sign ? withMicroSign(a.note) : a.note;
    const std::string head = formatDuration(a.latencyNs) + " late on CPU " + std::to_string(a.runCpu);
    if (!a.consistent || (!a.timerIrqDelayNs && !a.irqNs && !a.schedulingNs && !a.returnToUserNs))
        return head + ": no anatomy: " + (note.empty() ? std::string("no events") : note) + ".";

    struct Part {
        int64_t ns;
        std::string text;
    };
    std::vector<Part> parts;
    if (a.schedulingNs) {
        const std::vector<AnatomyTaskShare> shares = taskShares(a);
        std::string t;
        if (!shares.empty() && shares.front().ns > 0) {
            const AnatomyTaskShare& top = shares.front();
            if (top.ns * 2 >= *a.schedulingNs) {
                t = formatDuration(*a.schedulingNs) + " waiting for " + anatomyTaskName(top) + " to leave the CPU";
                if (shares.size() > 1)
                    t += " (and " + std::to_string(shares.size() - 1) + " other task" + (shares.size() > 2 ? "s" : "") +
                         ")";
            } else {
                t = formatDuration(*a.schedulingNs) + " waiting for " + std::to_string(shares.size()) +
                    " tasks to leave the CPU (most: " + anatomyTaskName(top) + " " + formatDuration(top.ns) + ")";
            }
        } else {
            const bool fromIdle =
                std::any_of(a.tasks.begin(), a.tasks.end(), [](const AnatomySlice& s) { return s.idle(); });
            t = formatDuration(*a.schedulingNs) + " in the scheduler" + (fromIdle ? " (switching from idle)" : "");
        }
        parts.push_back({*a.schedulingNs, t});
    }
    if (a.timerIrqDelayNs && !a.runnableAtDeadline)
        parts.push_back(
            {*a.timerIrqDelayNs, "timer IRQ " + formatDuration(*a.timerIrqDelayNs) + " after the deadline" +
                                     (a.idleAtTimer ? " (the CPU was idle: that includes the exit from idle)" : "")});
    if (a.irqNs) {
        std::string t = formatDuration(*a.irqNs) + " in interrupts";
        const auto top = std::find_if(a.interrupts.begin(), a.interrupts.end(),
                                      [](const AnatomyInterrupt& i) { return !i.ownTimer && i.ns > 0; });
        if (top != a.interrupts.end())
            t += " (most: " + top->name + " " + formatDuration(top->ns) + ")";
        else if (*a.irqNs > 0)
            t += " (its own timer's)";
        parts.push_back({*a.irqNs, t});
    }
    if (a.returnToUserNs)
        parts.push_back({*a.returnToUserNs, "return to user " + formatDuration(*a.returnToUserNs)});
    std::stable_sort(parts.begin(), parts.end(), [](const Part& x, const Part& y) { return x.ns > y.ns; });

    std::string out = head + ": ";
    for (size_t i = 0; i < parts.size(); ++i)
        out += (i ? "; " : "") + parts[i].text;
    if (!a.complete() || a.unaccountedNs != 0)
        out += "; " + formatDuration(a.unaccountedNs) + " unaccounted" + (note.empty() ? "" : " (" + note + ")");
    else if (a.runnableAtDeadline)
        out += " (" + note + ")";
    return out + ".";
}

void CulpritTable::add(const WakeupAnatomy& anatomy)
{
    ++m_wakeups;
    if (anatomy.schedulingNs)
        for (const AnatomyTaskShare& s : taskShares(anatomy)) {
            if (s.pid <= 0 || s.ns <= 0)
                continue;
            CulpritRow& r = m_rows[{CulpritKind::Task, s.pid}];
            r.kind = CulpritKind::Task;
            r.id = s.pid;
            if (!s.comm.empty())
                r.name = s.comm;
            if (s.prio != -2)
                r.prio = s.prio;
            r.wakeups += 1;
            r.totalNs += s.ns;
            r.worstNs = std::max(r.worstNs, s.ns);
        }
    if (anatomy.irqNs)
        for (const AnatomyInterrupt& i : anatomy.interrupts) {
            if (i.ownTimer || i.ns <= 0)
                continue;
            CulpritRow& r = m_rows[{i.kind, i.id}];
            r.kind = i.kind;
            r.id = i.id;
            r.name = i.name;
            r.wakeups += 1;
            r.totalNs += i.ns;
            r.worstNs = std::max(r.worstNs, i.ns);
        }
}

std::vector<CulpritRow> CulpritTable::rows() const
{
    std::vector<CulpritRow> out;
    out.reserve(m_rows.size());
    for (const auto& [key, row] : m_rows)
        out.push_back(row);
    std::stable_sort(out.begin(), out.end(),
                     [](const CulpritRow& x, const CulpritRow& y) { return x.totalNs > y.totalNs; });
    return out;
}

void CulpritTable::clear()
{
    m_rows.clear();
    m_wakeups = 0;
}

} // namespace rtscope
