#include "engine/pipeline/wakeup_anatomy.h"

#include "engine/util/units.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <tuple>

namespace rtscope {

namespace {

// A span of one CPU's time where the kernel dropped events: (from, to), from = INT64_MIN when it did not say since
// when.
struct AnatomyGap {
    int cpu;
    int64_t from;
    int64_t to;
};

bool anatomyGapOverlaps(const std::vector<AnatomyGap>& gaps, int cpu, int64_t from, int64_t to)
{
    for (const AnatomyGap& g : gaps)
        if (g.cpu == cpu && g.from < to && g.to > from)
            return true;
    return false;
}

std::string anatomyHex(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// A sched_switch's prev_state: the low byte holds the sleep state bits; 0 means the task was preempted while
// runnable (the kernel adds a "preempted" bit above them, TASK_REPORT_MAX, on some versions).
bool anatomyPreempted(const TraceEvent& e)
{
    return (e.sw.prevState & 0xff) == 0;
}

// An interrupt context open on the CPU during the sweep.
struct AnatomyContext {
    CulpritKind kind;
    int64_t id;
    bool own;
    uint64_t timer; // hrtimer address (hrtimer contexts), to pair the exit
};

using AnatomyKey = std::tuple<CulpritKind, int64_t, bool>;

bool anatomyIsEntry(TraceEventType t)
{
    return t == TraceEventType::IrqEntry || t == TraceEventType::SoftirqEntry ||
           t == TraceEventType::HrtimerExpireEntry || t == TraceEventType::VectorEntry;
}

bool anatomyIsExit(TraceEventType t)
{
    return t == TraceEventType::IrqExit || t == TraceEventType::SoftirqExit || t == TraceEventType::HrtimerExpireExit ||
           t == TraceEventType::VectorExit;
}

AnatomyContext anatomyContextOf(const TraceEvent& e)
{
    switch (e.type) {
    case TraceEventType::IrqEntry:
    case TraceEventType::IrqExit:
        return {CulpritKind::Irq, e.irq.number, false, 0};
    case TraceEventType::SoftirqEntry:
    case TraceEventType::SoftirqExit:
        return {CulpritKind::Softirq, e.irq.number, false, 0};
    case TraceEventType::VectorEntry:
    case TraceEventType::VectorExit:
        return {CulpritKind::Vector, int64_t(e.irq.vector), false, 0};
    default:
        return {CulpritKind::Hrtimer, int64_t(e.hrtimer.function), false, e.hrtimer.timer};
    }
}

bool anatomySameContext(const AnatomyContext& open, const AnatomyContext& exit)
{
    if (open.kind != exit.kind)
        return false;
    // An hrtimer exit names only its timer; the others name what they close.
    return open.kind == CulpritKind::Hrtimer ? open.timer == exit.timer : open.id == exit.id;
}

std::string anatomyInterruptName(const TraceEvent& entry, const AnatomyContext& c, const AnatomyOptions& options)
{
    switch (c.kind) {
    case CulpritKind::Irq: {
        const std::string_view name = traceText(entry.irq.name);
        return "irq " + std::to_string(c.id) + (name.empty() ? std::string() : " (" + std::string(name) + ")");
    }
    case CulpritKind::Softirq:
        return std::string("softirq ") + softirqName(int(c.id));
    case CulpritKind::Vector:
        return traceVectorName(TraceVector(c.id));
    case CulpritKind::Hrtimer: {
        std::string fn = options.functionName ? options.functionName(uint64_t(c.id)) : std::string();
        if (fn.empty())
            fn = "hrtimer " + anatomyHex(uint64_t(c.id));
        return c.own ? fn + " (its own timer)" : fn;
    }
    case CulpritKind::Task:
        break;
    }
    return "?";
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

} // namespace

const char* culpritKindName(CulpritKind kind)
{
    switch (kind) {
    case CulpritKind::Task:
        return "task";
    case CulpritKind::Irq:
        return "irq";
    case CulpritKind::Softirq:
        return "softirq";
    case CulpritKind::Vector:
        return "vector";
    case CulpritKind::Hrtimer:
        return "hrtimer";
    }
    return "?";
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
    const int32_t tid = query.tid;
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

    std::vector<AnatomyGap> gaps;
    for (const TraceEvent& e : ev)
        if (e.type == TraceEventType::Lost)
            gaps.push_back({e.cpu, e.lost.sinceNs > 0 ? e.lost.sinceNs : INT64_MIN, e.ts});
    a.eventsLost = anatomyGapOverlaps(gaps, query.cpu, lo, hi);

    // Events up to the wake time (and the tolerance): [0, end).
    const size_t end = size_t(traceWindow(ev, INT64_MIN, hi).size());

    // The switch-in: the last sched_switch to the thread up to its wake time, with no switch-out after it (a
    // switch-out after the last switch-in means the switch-in that let it read its clock is missing).
    std::optional<size_t> in;
    bool outAfterIn = false;
    for (size_t i = end; i-- > 0;) {
        const TraceEvent& e = ev[i];
        if (e.type != TraceEventType::SchedSwitch)
            continue;
        if (e.sw.next.pid == tid) {
            in = i;
            break;
        }
        // A switch-out after the wake time (inside the tolerance) is the thread going back to sleep.
        if (e.sw.prev.pid == tid && e.ts <= wake)
            outAfterIn = true;
    }
    if (in && outAfterIn)
        in.reset();
    std::optional<size_t> outBefore;
    if (in)
        for (size_t i = *in; i-- > 0;)
            if (ev[i].type == TraceEventType::SchedSwitch && ev[i].sw.prev.pid == tid) {
                outBefore = i;
                break;
            }

    if (in && ev[*in].ts < lo) {
        // On its CPU since before the deadline: clock_nanosleep found the deadline passed and did not sleep. Unless
        // the kernel lost events since: the switch-out to sleep and the switch-in after it may be among them.
        a.runCpu = ev[*in].cpu;
        if (anatomyGapOverlaps(gaps, a.runCpu, ev[*in].ts, hi)) {
            a.eventsLost = true;
            anatomyAddNote(a, "the kernel lost events on CPU " + std::to_string(a.runCpu) +
                                  " between the thread's last switch-in in the events and its wake time");
        } else {
            anatomyAddNote(a, "it held its CPU since " + formatDuration(deadline - ev[*in].ts) +
                                  " before the deadline and never slept for it: its previous cycle ran late");
        }
        anatomyFinish(a);
        return a;
    }
    if (in) {
        a.switchInNs = ev[*in].ts;
        a.runCpu = ev[*in].cpu;
    } else {
        std::string note = "no sched_switch to thread " + std::to_string(tid) + " before its wake time in the events";
        // Seen on a 6.18 kernel: switches into the idle task are recorded, switches out of it never are. Say so
        // when the window shows exactly that on the thread's CPU, rather than leave the gap unexplained.
        bool toIdle = false;
        bool fromIdle = false;
        for (size_t i = 0; i < end; ++i)
            if (ev[i].type == TraceEventType::SchedSwitch && ev[i].cpu == query.cpu) {
                toIdle = toIdle || ev[i].sw.next.pid == 0;
                fromIdle = fromIdle || ev[i].sw.prev.pid == 0;
            }
        if (toIdle && !fromIdle)
            note += " (the trace holds switches into the idle task of CPU " + std::to_string(query.cpu) +
                    " but none out of it: this kernel did not record them)";
        anatomyAddNote(a, note);
    }
    const size_t searchEnd = in ? *in + 1 : end;

    // The waking: the first sched_waking of the thread from the deadline on; then its sched_wakeup.
    std::optional<size_t> waking;
    for (size_t i = size_t(ev.size() - traceWindow(ev, lo, INT64_MAX).size()); i < searchEnd; ++i)
        if (ev[i].type == TraceEventType::SchedWaking && ev[i].wake.task.pid == tid) {
            waking = i;
            break;
        }
    if (waking) {
        a.wakingNs = ev[*waking].ts;
        for (size_t i = *waking + 1; i < searchEnd; ++i)
            if (ev[i].type == TraceEventType::SchedWakeup && ev[i].wake.task.pid == tid) {
                a.wakeupNs = ev[i].ts;
                break;
            }
        // The timer: the innermost hrtimer expiry still running on the waker's CPU when the waking happened. Walking
        // back from the waking, an entry whose exit came before the waking is closed; a switch ends the search (a
        // switch runs in task context, so no expiry is open across it).
        const int wcpu = ev[*waking].cpu;
        std::optional<size_t> timer;
        std::vector<uint64_t> closed;
        for (size_t i = *waking; i-- > 0;) {
            const TraceEvent& e = ev[i];
            if (e.cpu != wcpu)
                continue;
            if (e.type == TraceEventType::SchedSwitch)
                break;
            if (e.type == TraceEventType::HrtimerExpireExit) {
                closed.push_back(e.hrtimer.timer);
            } else if (e.type == TraceEventType::HrtimerExpireEntry) {
                const auto c = std::find(closed.begin(), closed.end(), e.hrtimer.timer);
                if (c == closed.end()) {
                    timer = i;
                    break;
                }
                closed.erase(c);
            }
        }
        if (timer) {
            const TraceEvent& t = ev[*timer];
            a.timerNs = t.ts;
            a.timerCpu = t.cpu;
            a.timerFunction = t.hrtimer.function;
            a.idleAtTimer = t.pid == 0;
        } else {
            anatomyAddNote(a, "it was woken on CPU " + std::to_string(wcpu) + " by pid " +
                                  std::to_string(ev[*waking].pid) + " outside a timer callback, not by its own timer");
        }
    } else if (in && outBefore && anatomyPreempted(ev[*outBefore]) && ev[*outBefore].ts < deadline) {
        a.runnableAtDeadline = true;
        anatomyAddNote(a, "it was runnable (preempted), not asleep, at its deadline: there was no timer to wait for");
    } else if (in) {
        anatomyAddNote(a, "no sched_waking of the thread between its deadline and its switch-in in the events");
    }

    if (a.timerNs && *a.timerNs < lo) {
        a.consistent = false;
        anatomyAddNote(a, "its timer fired " + formatDuration(deadline - *a.timerNs) +
                              " before the deadline: the events do not belong to this wake-up");
    }

    // The scheduling window [s, e]: from the timer (or the waking, or the deadline when it was runnable) to the
    // switch-in, both clipped to [deadline, wake] (the tolerance: kAnatomyToleranceNs).
    std::optional<int64_t> start;
    if (a.timerNs)
        start = a.timerNs;
    else if (a.runnableAtDeadline)
        start = deadline;
    else if (a.wakingNs)
        start = a.wakingNs;
    if (a.consistent && start && a.switchInNs && *start > *a.switchInNs) {
        a.consistent = false;
        anatomyAddNote(a, "the switch-in comes before the wake-up in the events");
    }
    for (const AnatomyGap& g : gaps)
        if ((g.cpu == a.runCpu || g.cpu == a.timerCpu || (waking && g.cpu == ev[*waking].cpu)) && g.from < hi &&
            g.to > lo)
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
    if (a.switchInNs && anatomyGapOverlaps(gaps, a.runCpu, std::min(*a.switchInNs, wake), wake)) {
        a.returnToUserNs.reset();
        anatomyAddNote(a, "the kernel lost events on CPU " + std::to_string(a.runCpu) +
                              " between the switch-in and the wake time");
    }

    if (start && a.switchInNs) {
        const int64_t s = std::max(*start, deadline);
        const int64_t e = std::min(*a.switchInNs, wake);
        const int cpu = a.runCpu;
        std::vector<AnatomyContext> stack;
        std::map<AnatomyKey, AnatomyInterrupt> irqs;
        AnatomySlice current; // the task holding the CPU as the sweep goes
        bool windowOpen = false;
        int64_t prev = s;
        auto openSlice = [&](int64_t at) {
            AnatomySlice slice = current;
            slice.fromNs = slice.toNs = at;
            slice.ns = 0;
            a.tasks.push_back(slice);
        };
        auto countOpenContexts = [&] {
            for (const AnatomyContext& c : stack)
                irqs[{c.kind, c.id, c.own}].count += 1;
        };
        auto account = [&](int64_t until) {
            const int64_t from = std::max(prev, s);
            const int64_t to = std::min(until, e);
            if (to > from) {
                if (!stack.empty()) {
                    const AnatomyContext& c = stack.back();
                    irqs[{c.kind, c.id, c.own}].ns += to - from;
                } else {
                    a.tasks.back().ns += to - from;
                }
            }
            prev = std::max(prev, until);
        };
        // The sweep starts at the last switch on the CPU before s: a switch runs in task context (no interrupt is
        // open across it) and names the task holding the CPU.
        size_t first = size_t(ev.size() - traceWindow(ev, s, INT64_MAX).size());
        while (first > 0 && !(ev[first - 1].cpu == cpu && ev[first - 1].type == TraceEventType::SchedSwitch))
            --first;
        if (first > 0)
            --first;
        // What the events call each task (a task the sweep meets only through common_pid gets its name here).
        std::map<int32_t, std::pair<std::string, int32_t>> names;
        for (size_t i = 0; i <= *in; ++i) {
            const TraceEvent& t = ev[i];
            if (t.type == TraceEventType::SchedSwitch) {
                names[t.sw.prev.pid] = {std::string(traceText(t.sw.prev.comm)), t.sw.prev.prio};
                names[t.sw.next.pid] = {std::string(traceText(t.sw.next.comm)), t.sw.next.prio};
            } else if (t.type == TraceEventType::SchedWaking || t.type == TraceEventType::SchedWakeup ||
                       t.type == TraceEventType::SchedMigrate) {
                names[t.wake.task.pid] = {std::string(traceText(t.wake.task.comm)), t.wake.task.prio};
            }
        }
        for (size_t i = first; i <= *in; ++i) {
            const TraceEvent& ev_i = ev[i];
            if (ev_i.cpu != cpu || ev_i.ts > e)
                continue;
            // Every event names the task holding the CPU (common_pid; a switch: the task leaving). Another task
            // than the sweep's means a switch the kernel did not record (seen on a 6.18 kernel: no switch out of
            // the idle task is ever recorded); the task it names is taken to hold the CPU from the CPU's previous
            // event on, and its slice says that its switch-in was not seen.
            const int32_t named = ev_i.type == TraceEventType::SchedSwitch ? ev_i.sw.prev.pid : ev_i.pid;
            if (ev_i.type != TraceEventType::Lost && named != current.pid) {
                const bool wasUnknown = current.pid < 0;
                current.pid = named;
                const auto n = names.find(named);
                current.comm = n != names.end() ? n->second.first : std::string();
                current.prio = n != names.end() ? n->second.second : -2;
                current.switchInSeen = false;
                if (windowOpen) {
                    if (wasUnknown && a.tasks.back().pid < 0) {
                        AnatomySlice& last = a.tasks.back();
                        last.pid = current.pid;
                        last.comm = current.comm;
                        last.prio = current.prio;
                    } else {
                        a.tasks.back().toNs = prev;
                        openSlice(prev);
                    }
                }
            }
            if (!windowOpen && ev_i.ts > s) {
                windowOpen = true;
                prev = s;
                openSlice(s);
                countOpenContexts();
            }
            if (windowOpen)
                account(ev_i.ts);
            if (ev_i.type == TraceEventType::SchedSwitch) {
                stack.clear();
                if (windowOpen) {
                    AnatomySlice& last = a.tasks.back();
                    last.toNs = ev_i.ts;
                    if (last.pid < 0 || last.pid == ev_i.sw.prev.pid) {
                        last.pid = ev_i.sw.prev.pid;
                        last.comm = std::string(traceText(ev_i.sw.prev.comm));
                        last.prio = ev_i.sw.prev.prio;
                    }
                }
                current.pid = ev_i.sw.next.pid;
                current.comm = std::string(traceText(ev_i.sw.next.comm));
                current.prio = ev_i.sw.next.prio;
                current.switchInSeen = true;
                if (windowOpen && i != *in)
                    openSlice(ev_i.ts);
            } else if (anatomyIsEntry(ev_i.type)) {
                AnatomyContext c = anatomyContextOf(ev_i);
                c.own = ev_i.type == TraceEventType::HrtimerExpireEntry && a.timerNs && ev_i.ts == *a.timerNs &&
                        ev_i.cpu == a.timerCpu;
                // The hard interrupt the own timer's callback runs inside (x86: local_timer) delivers that timer:
                // from here on its time is the own timer's too, not a culprit's. Its entry came before the timer,
                // so before the window: nothing of it was counted under its other name yet.
                if (c.own && !stack.empty() &&
                    (stack.back().kind == CulpritKind::Vector || stack.back().kind == CulpritKind::Irq) &&
                    !stack.back().own) {
                    AnatomyContext& carrier = stack.back();
                    const std::string base = irqs[{carrier.kind, carrier.id, false}].name;
                    carrier.own = true;
                    AnatomyInterrupt& d = irqs[{carrier.kind, carrier.id, true}];
                    if (d.name.empty()) {
                        d.kind = carrier.kind;
                        d.id = carrier.id;
                        d.ownTimer = true;
                        d.name = base + " (delivering its own timer)";
                    }
                }
                stack.push_back(c);
                AnatomyInterrupt& r = irqs[{c.kind, c.id, c.own}];
                if (r.name.empty()) {
                    r.kind = c.kind;
                    r.id = c.id;
                    r.ownTimer = c.own;
                    r.name = anatomyInterruptName(ev_i, c, options);
                }
                if (windowOpen)
                    r.count += 1; // one open when the window starts is counted as it opens
            } else if (anatomyIsExit(ev_i.type)) {
                const AnatomyContext c = anatomyContextOf(ev_i);
                for (size_t k = stack.size(); k-- > 0;)
                    if (anatomySameContext(stack[k], c)) {
                        stack.resize(k);
                        break;
                    }
            }
        }
        if (!windowOpen && e > s) {
            windowOpen = true;
            prev = s;
            openSlice(s);
            countOpenContexts();
        }
        if (windowOpen) {
            account(e);
            a.tasks.back().toNs = e;
        }
        std::erase_if(a.tasks, [](const AnatomySlice& t) { return t.toNs <= t.fromNs; });

        int64_t irqTotal = 0;
        for (auto& [key, r] : irqs) {
            if (r.ns == 0 && r.count == 0)
                continue;
            irqTotal += r.ns;
            a.interrupts.push_back(r);
        }
        std::stable_sort(a.interrupts.begin(), a.interrupts.end(),
                         [](const AnatomyInterrupt& x, const AnatomyInterrupt& y) { return x.ns > y.ns; });
        int64_t taskTotal = 0;
        for (const AnatomySlice& t : a.tasks)
            taskTotal += t.ns;
        a.irqNs = irqTotal;
        a.schedulingNs = taskTotal;
        if (anatomyGapOverlaps(gaps, cpu, s, e)) {
            a.irqNs.reset();
            a.schedulingNs.reset();
            anatomyAddNote(a, "the kernel lost events on CPU " + std::to_string(cpu) +
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
