#include "engine/pipeline/wakeup_anatomy_steps.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <tuple>

namespace rtscope::anatomy {

namespace {

std::string anatomyHex(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// An interrupt context open on the CPU during the sweep.
struct AnatomyContext {
    CulpritKind kind;
    int64_t id;
    bool own;
    uint64_t timer; // hrtimer address (hrtimer contexts), to pair the exit
};

using AnatomyKey = std::tuple<CulpritKind, int64_t, bool>;

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

// Where the sweep of @p cpu from @p s starts: at the last switch on the CPU before s, since a switch runs in task
// context (no interrupt is open across it) and names the task holding the CPU.
size_t sweepStart(std::span<const TraceEvent> ev, int64_t s, int cpu)
{
    size_t first = size_t(ev.size() - traceWindow(ev, s, INT64_MAX).size());
    while (first > 0 && !(ev[first - 1].cpu == cpu && ev[first - 1].type == TraceEventType::SchedSwitch))
        --first;
    if (first > 0)
        --first;
    return first;
}

} // namespace

bool isInterruptEntry(TraceEventType t)
{
    return t == TraceEventType::IrqEntry || t == TraceEventType::SoftirqEntry ||
           t == TraceEventType::HrtimerExpireEntry || t == TraceEventType::VectorEntry;
}

bool isInterruptExit(TraceEventType t)
{
    return t == TraceEventType::IrqExit || t == TraceEventType::SoftirqExit || t == TraceEventType::HrtimerExpireExit ||
           t == TraceEventType::VectorExit;
}

TaskNames taskNames(std::span<const TraceEvent> ev)
{
    TaskNames names;
    for (const TraceEvent& t : ev) {
        if (t.type == TraceEventType::SchedSwitch) {
            names[t.sw.prev.pid] = {std::string(traceText(t.sw.prev.comm)), t.sw.prev.prio};
            names[t.sw.next.pid] = {std::string(traceText(t.sw.next.comm)), t.sw.next.prio};
        } else if (t.type == TraceEventType::SchedWaking || t.type == TraceEventType::SchedWakeup ||
                   t.type == TraceEventType::SchedMigrate) {
            names[t.wake.task.pid] = {std::string(traceText(t.wake.task.comm)), t.wake.task.prio};
        }
    }
    return names;
}

std::vector<LostGap> lostGaps(std::span<const TraceEvent> events)
{
    std::vector<LostGap> gaps;
    for (const TraceEvent& e : events)
        if (e.type == TraceEventType::Lost)
            gaps.push_back({e.cpu, e.lost.sinceNs > 0 ? e.lost.sinceNs : INT64_MIN, e.ts});
    return gaps;
}

bool gapOverlaps(const std::vector<LostGap>& gaps, int cpu, int64_t fromNs, int64_t toNs)
{
    for (const LostGap& g : gaps)
        if (g.cpu == cpu && g.fromNs < toNs && g.toNs > fromNs)
            return true;
    return false;
}

SwitchIn findSwitchIn(std::span<const TraceEvent> ev, size_t end, int32_t tid, int64_t wake)
{
    // The last sched_switch to the thread up to its wake time, with no switch-out after it (a switch-out after the
    // last switch-in means the switch-in that let it read its clock is missing).
    SwitchIn found;
    bool outAfterIn = false;
    for (size_t i = end; i-- > 0;) {
        const TraceEvent& e = ev[i];
        if (e.type != TraceEventType::SchedSwitch)
            continue;
        if (e.sw.next.pid == tid) {
            found.in = i;
            break;
        }
        // A switch-out after the wake time (inside the tolerance) is the thread going back to sleep.
        if (e.sw.prev.pid == tid && e.ts <= wake)
            outAfterIn = true;
    }
    if (found.in && outAfterIn)
        found.in.reset();
    if (found.in)
        for (size_t i = *found.in; i-- > 0;)
            if (ev[i].type == TraceEventType::SchedSwitch && ev[i].sw.prev.pid == tid) {
                found.outBefore = i;
                break;
            }
    return found;
}

std::string missingSwitchInNote(std::span<const TraceEvent> ev, size_t end, int32_t tid, int cpu)
{
    std::string note = "no sched_switch to thread " + std::to_string(tid) + " before its wake time in the events";
    // Seen on a 6.18 kernel: switches into the idle task are recorded, switches out of it never are. Say so when the
    // window shows exactly that on the thread's CPU, rather than leave the gap unexplained.
    bool toIdle = false;
    bool fromIdle = false;
    for (size_t i = 0; i < end; ++i)
        if (ev[i].type == TraceEventType::SchedSwitch && ev[i].cpu == cpu) {
            toIdle = toIdle || ev[i].sw.next.pid == 0;
            fromIdle = fromIdle || ev[i].sw.prev.pid == 0;
        }
    if (toIdle && !fromIdle)
        note += " (the trace holds switches into the idle task of CPU " + std::to_string(cpu) +
                " but none out of it: this kernel did not record them)";
    return note;
}

Waking findWaking(std::span<const TraceEvent> ev, size_t from, size_t searchEnd, int32_t tid)
{
    Waking found;
    for (size_t i = from; i < searchEnd; ++i)
        if (ev[i].type == TraceEventType::SchedWaking && ev[i].wake.task.pid == tid) {
            found.waking = i;
            break;
        }
    if (found.waking)
        for (size_t i = *found.waking + 1; i < searchEnd; ++i)
            if (ev[i].type == TraceEventType::SchedWakeup && ev[i].wake.task.pid == tid) {
                found.wakeup = i;
                break;
            }
    return found;
}

std::optional<size_t> findOwnTimer(std::span<const TraceEvent> ev, size_t waking)
{
    const int wcpu = ev[waking].cpu;
    std::vector<uint64_t> closed;
    for (size_t i = waking; i-- > 0;) {
        const TraceEvent& e = ev[i];
        if (e.cpu != wcpu)
            continue;
        if (e.type == TraceEventType::SchedSwitch)
            break;
        if (e.type == TraceEventType::HrtimerExpireExit) {
            closed.push_back(e.hrtimer.timer);
        } else if (e.type == TraceEventType::HrtimerExpireEntry) {
            const auto c = std::find(closed.begin(), closed.end(), e.hrtimer.timer);
            if (c == closed.end())
                return i;
            closed.erase(c);
        }
    }
    return std::nullopt;
}

SchedulingSweep sweepSchedulingWindow(std::span<const TraceEvent> ev, size_t switchIn, int cpu, int64_t s, int64_t e,
                                      const OwnTimer& ownTimer, const AnatomyOptions& options)
{
    SchedulingSweep out;
    std::vector<AnatomyContext> stack;
    std::map<AnatomyKey, AnatomyInterrupt> irqs;
    AnatomySlice current; // the task holding the CPU as the sweep goes
    bool windowOpen = false;
    int64_t prev = s;
    auto openSlice = [&](int64_t at) {
        AnatomySlice slice = current;
        slice.fromNs = slice.toNs = at;
        slice.ns = 0;
        out.tasks.push_back(slice);
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
                out.tasks.back().ns += to - from;
            }
        }
        prev = std::max(prev, until);
    };
    const size_t first = sweepStart(ev, s, cpu);
    const TaskNames names = taskNames(ev.first(switchIn + 1));
    for (size_t i = first; i <= switchIn; ++i) {
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
                if (wasUnknown && out.tasks.back().pid < 0) {
                    AnatomySlice& last = out.tasks.back();
                    last.pid = current.pid;
                    last.comm = current.comm;
                    last.prio = current.prio;
                } else {
                    out.tasks.back().toNs = prev;
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
                AnatomySlice& last = out.tasks.back();
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
            if (windowOpen && i != switchIn)
                openSlice(ev_i.ts);
        } else if (isInterruptEntry(ev_i.type)) {
            AnatomyContext c = anatomyContextOf(ev_i);
            c.own = ev_i.type == TraceEventType::HrtimerExpireEntry && ownTimer.ns && ev_i.ts == *ownTimer.ns &&
                    ev_i.cpu == ownTimer.cpu;
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
        } else if (isInterruptExit(ev_i.type)) {
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
        out.tasks.back().toNs = e;
    }
    std::erase_if(out.tasks, [](const AnatomySlice& t) { return t.toNs <= t.fromNs; });

    int64_t irqTotal = 0;
    for (auto& [key, r] : irqs) {
        if (r.ns == 0 && r.count == 0)
            continue;
        irqTotal += r.ns;
        out.interrupts.push_back(r);
    }
    std::stable_sort(out.interrupts.begin(), out.interrupts.end(),
                     [](const AnatomyInterrupt& x, const AnatomyInterrupt& y) { return x.ns > y.ns; });
    int64_t taskTotal = 0;
    for (const AnatomySlice& t : out.tasks)
        taskTotal += t.ns;
    out.irqNs = irqTotal;
    out.taskNs = taskTotal;
    return out;
}

} // namespace rtscope::anatomy
