#include "engine/pipeline/trace_event.h"

#include "engine/util/name_list.h"

#include <algorithm>
#include <iterator>

namespace rtscope {

static_assert(sizeof(TraceEvent) == 72, "TraceEvent is copied by the hundred thousand per second: keep it compact");

const char* traceEventTypeName(TraceEventType type)
{
    return enumName<TraceEventType::Nmi>(
        type, {"sched_switch", "sched_waking", "sched_wakeup", "sched_migrate_task", "irq_handler_entry",
               "irq_handler_exit", "softirq_entry", "softirq_exit", "hrtimer_expire_entry", "hrtimer_expire_exit",
               "vector_entry", "vector_exit", "print", "timerlat", "lost", "nmi_handler"});
}

TracePayload tracePayload(TraceEventType type)
{
    using P = TracePayload;
    // In TraceEventType's order, as its comments name them.
    static constexpr TracePayload kPayloads[] = {P::Sw,     P::Wake,     P::Wake,    P::Wake,    P::Irq, P::Irq,
                                                 P::Irq,    P::Irq,      P::Hrtimer, P::Hrtimer, P::Irq, P::Irq,
                                                 P::Marker, P::Timerlat, P::Lost,    P::Nmi};
    static_assert(std::size(kPayloads) == size_t(TraceEventType::Nmi) + 1, "one payload for every event type");
    return kPayloads[size_t(type)];
}

const char* traceVectorName(TraceVector vector)
{
    return enumName<TraceVector::CallFunctionSingle>(
        vector, {"local_timer", "reschedule", "call_function", "call_function_single"});
}

const char* softirqName(int vector)
{
    // include/linux/interrupt.h, the order of the softirq vectors (the softirq_entry event prints the same names).
    static const char* const kNames[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                         "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
    return vector >= 0 && vector < int(std::size(kNames)) ? kNames[vector] : "?";
}

std::string describeKernelPrio(int prio)
{
    // The kernel's prio scale (include/linux/sched/prio.h): MAX_RT_PRIO is 100, a normal task's prio is
    // 120 + nice, a real-time task's 99 − its rt_priority, a deadline task's −1.
    if (prio < 0)
        return "DEADLINE";
    if (prio < 100)
        return "RT " + std::to_string(99 - prio) + " (FIFO/RR)";
    return "nice " + std::to_string(prio - 120) + " (OTHER/BATCH)";
}

void sortTraceEvents(std::vector<TraceEvent>& events)
{
    std::stable_sort(events.begin(), events.end(),
                     [](const TraceEvent& a, const TraceEvent& b) { return a.ts < b.ts; });
}

std::span<const TraceEvent> traceWindow(std::span<const TraceEvent> sorted, int64_t fromNs, int64_t toNs)
{
    const auto first =
        std::lower_bound(sorted.begin(), sorted.end(), fromNs, [](const TraceEvent& e, int64_t t) { return e.ts < t; });
    const auto last =
        std::upper_bound(first, sorted.end(), toNs, [](int64_t t, const TraceEvent& e) { return t < e.ts; });
    return sorted.subspan(size_t(first - sorted.begin()), size_t(last - first));
}

} // namespace rtscope
