#pragma once
// Trace events written by hand for the anatomy tests (engine and ui): the fields the decoder fills for an event and
// for a sched_switch, so each test builds its sequence without repeating them.
#include "engine/pipeline/trace_event.h"

#include <cstdint>

namespace rtscope::test {

/// An event of this type at ts on cpu, with current the task running there.
inline TraceEvent traceEvent(TraceEventType type, int64_t ts, int32_t current, int cpu)
{
    TraceEvent e{};
    e.type = type;
    e.ts = ts;
    e.cpu = uint16_t(cpu);
    e.pid = current;
    return e;
}

/// A task as a sched_switch (either side) or a wake-up names it: its id, name and kernel priority (120 = nice 0,
/// 49 = FIFO 50).
struct SwitchTask {
    int32_t pid = 0;
    const char* comm = "";
    int prio = 120;
};

/// A sched_switch at ts on cpu from prev (leaving in prevState) to next.
inline TraceEvent traceSwitch(int64_t ts, int cpu, SwitchTask prev, int64_t prevState, SwitchTask next)
{
    TraceEvent e = traceEvent(TraceEventType::SchedSwitch, ts, prev.pid, cpu);
    e.sw.prev.pid = prev.pid;
    setTraceText(e.sw.prev.comm, prev.comm);
    e.sw.prev.prio = prev.prio;
    e.sw.prevState = prevState;
    e.sw.next.pid = next.pid;
    setTraceText(e.sw.next.comm, next.comm);
    e.sw.next.prio = next.prio;
    return e;
}

/// A wake-up event (sched_waking, sched_wakeup) of this type at ts on cpu, with current the task running there: it
/// wakes task, to run on targetCpu (origCpu −1: no migration).
inline TraceEvent traceWake(TraceEventType type, int64_t ts, int32_t current, int cpu, SwitchTask task, int targetCpu)
{
    TraceEvent e = traceEvent(type, ts, current, cpu);
    e.wake.task.pid = task.pid;
    setTraceText(e.wake.task.comm, task.comm);
    e.wake.task.prio = task.prio;
    e.wake.targetCpu = targetCpu;
    e.wake.origCpu = -1;
    return e;
}

} // namespace rtscope::test
