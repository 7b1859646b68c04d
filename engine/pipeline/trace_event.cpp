#include "engine/pipeline/trace_event.h"

#include <algorithm>
#include <iterator>

namespace rtscope {

static_assert(sizeof(TraceEvent) == 72, "TraceEvent is copied by the hundred thousand per second: keep it compact");

const char* traceEventTypeName(TraceEventType type)
{
    switch (type) {
    case TraceEventType::SchedSwitch:
        return "sched_switch";
    case TraceEventType::SchedWaking:
        return "sched_waking";
    case TraceEventType::SchedWakeup:
        return "sched_wakeup";
    case TraceEventType::SchedMigrate:
        return "sched_migrate_task";
    case TraceEventType::IrqEntry:
        return "irq_handler_entry";
    case TraceEventType::IrqExit:
        return "irq_handler_exit";
    case TraceEventType::SoftirqEntry:
        return "softirq_entry";
    case TraceEventType::SoftirqExit:
        return "softirq_exit";
    case TraceEventType::HrtimerExpireEntry:
        return "hrtimer_expire_entry";
    case TraceEventType::HrtimerExpireExit:
        return "hrtimer_expire_exit";
    case TraceEventType::VectorEntry:
        return "vector_entry";
    case TraceEventType::VectorExit:
        return "vector_exit";
    case TraceEventType::Marker:
        return "print";
    case TraceEventType::Timerlat:
        return "timerlat";
    case TraceEventType::Lost:
        return "lost";
    case TraceEventType::Nmi:
        return "nmi_handler";
    }
    return "?";
}

const char* traceVectorName(TraceVector vector)
{
    switch (vector) {
    case TraceVector::LocalTimer:
        return "local_timer";
    case TraceVector::Reschedule:
        return "reschedule";
    case TraceVector::CallFunction:
        return "call_function";
    case TraceVector::CallFunctionSingle:
        return "call_function_single";
    }
    return "?";
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
