#pragma once
/// @file One kernel trace event, decoded: the plain record the trace session's reader (engine/trace) hands on and
/// the wake-up anatomy (wakeup_anatomy.h) reads. It lives in the pipeline so that the analysis needs no tracing
/// library: tests build sequences of these by hand. Trivially copyable (72 bytes), so it can go through an SpscRing.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace rtscope {

/// @brief What an event records. Each maps to one kernel tracepoint (the x86 irq_vectors share VectorEntry/Exit,
/// told apart by TraceVector), except Lost, which the reader inserts where the kernel dropped events.
enum class TraceEventType : uint8_t {
    SchedSwitch,        ///< sched:sched_switch: payload sw
    SchedWaking,        ///< sched:sched_waking (on the waker's CPU, before the task is queued): payload wake
    SchedWakeup,        ///< sched:sched_wakeup (the task is on a run queue now): payload wake
    SchedMigrate,       ///< sched:sched_migrate_task: payload wake (targetCpu = dest_cpu, origCpu = orig_cpu)
    IrqEntry,           ///< irq:irq_handler_entry: payload irq (number, name)
    IrqExit,            ///< irq:irq_handler_exit: payload irq (number, ret)
    SoftirqEntry,       ///< irq:softirq_entry: payload irq (number = vector, 0 HI … 9 RCU)
    SoftirqExit,        ///< irq:softirq_exit
    HrtimerExpireEntry, ///< timer:hrtimer_expire_entry: payload hrtimer (the timer's callback runs from here)
    HrtimerExpireExit,  ///< timer:hrtimer_expire_exit: payload hrtimer (timer only)
    VectorEntry,        ///< irq_vectors:*_entry (x86): payload irq (vector kind, number = vector)
    VectorExit,         ///< irq_vectors:*_exit (x86)
    Marker,             ///< ftrace:print, a write to the instance's trace_marker: payload marker
    Timerlat,           ///< ftrace:timerlat, a sample of the timerlat tracer where the kernel has it: payload timerlat
    Lost,               ///< the kernel's ring buffer dropped events on this CPU between lost.sinceNs and ts
    Nmi,                ///< nmi:nmi_handler, when an NMI handler ends: payload nmi (it ran nmi.deltaNs before ts)
};

/// @brief The member of TraceEvent's payload union that an event type fills (the "payload" named above): the types
/// that share one are written, read and kept alike.
enum class TracePayload : uint8_t { Sw, Wake, Irq, Hrtimer, Marker, Timerlat, Lost, Nmi };
/// @brief @p type's payload.
TracePayload tracePayload(TraceEventType type);

/// @brief The x86 interrupt vectors traced by irq_vectors.
enum class TraceVector : uint8_t { LocalTimer, Reschedule, CallFunction, CallFunctionSingle };

/// @brief A task as the sched events name it. prio is the kernel's: 0..98 real-time (99 − rt_priority, the
/// policy FIFO or RR is not in the event), 100..139 normal (120 + nice), −1 deadline.
struct TraceTask {
    char comm[16]; ///< NUL-terminated (the kernel's TASK_COMM_LEN)
    int32_t pid;
    int32_t prio;
};

struct TraceSwitch {
    TraceTask prev;    ///< the task leaving the CPU
    TraceTask next;    ///< the task taking it
    int64_t prevState; ///< 0: preempted while runnable; else the sleep state bits (1 S, 2 D, …)
};

struct TraceWake {
    TraceTask task;    ///< the task woken (or migrated)
    int32_t targetCpu; ///< the CPU it will run on (migrate: dest_cpu)
    int32_t origCpu;   ///< migrate: orig_cpu; −1 otherwise
};

struct TraceIrq {
    int32_t number;     ///< IRQ number, softirq vector, or x86 vector number
    int32_t ret;        ///< irq_handler_exit: the handler's return (1 handled); 0 otherwise
    TraceVector vector; ///< VectorEntry/Exit only
    char name[40];      ///< irq_handler_entry: the handler's name (truncated); empty otherwise
};

struct TraceHrtimer {
    uint64_t timer;    ///< the struct hrtimer's address: pairs an expire_entry with its expire_exit
    uint64_t function; ///< the callback's address (expire_entry only; hrtimer_wakeup for a sleeping thread)
    int64_t nowNs;     ///< expire_entry: the timer base's clock when it ran
};

struct TraceLost {
    uint64_t count;  ///< events the kernel dropped; 0 when it did not say how many
    int64_t sinceNs; ///< the previous event the reader saw on this CPU (0: none): the gap is (sinceNs, ts)
};

struct TraceMarker {
    char text[56]; ///< the start of what was written, NUL-terminated
};

struct TraceNmi {
    uint64_t handler; ///< the handler's address
    int64_t deltaNs;  ///< how long it ran, ending at the event's timestamp
    int32_t handled;  ///< the handler's return (how many events it handled)
};

struct TraceTimerlat {
    uint64_t seq;
    int64_t latencyNs;
    int32_t context; ///< 0 IRQ, 1 thread (the tracer's own meaning)
};

/// @brief One decoded event. ts is CLOCK_MONOTONIC nanoseconds when the session's trace clock is "mono" (it sets
/// it). Only the payload member named by type is meaningful; the others read as zeros only by accident.
struct TraceEvent {
    int64_t ts = 0;
    TraceEventType type = TraceEventType::Lost;
    uint8_t flags = 0; ///< the kernel's common_flags (TRACE_FLAG_*: 0x01 irqs off, 0x08 hardirq, 0x10 softirq, …)
    uint16_t cpu = 0;
    int32_t pid = 0; ///< common_pid: the task that was current when the event was recorded (0: idle)
    union {
        TraceSwitch sw{};
        TraceWake wake;
        TraceIrq irq;
        TraceHrtimer hrtimer;
        TraceLost lost;
        TraceMarker marker;
        TraceTimerlat timerlat;
        TraceNmi nmi;
    };
};
static_assert(std::is_trivially_copyable_v<TraceEvent>);

/// @brief Copies @p text into a fixed char array, truncated, always NUL-terminated.
template <size_t N> inline void setTraceText(char (&dst)[N], std::string_view text)
{
    const size_t n = text.size() < N - 1 ? text.size() : N - 1;
    std::memcpy(dst, text.data(), n);
    std::memset(dst + n, 0, N - n);
}

/// @brief The text of a fixed char array, up to its first NUL.
template <size_t N> inline std::string_view traceText(const char (&src)[N])
{
    return std::string_view(src, strnlen(src, N));
}

/// @brief "sched_switch", "irq_handler_entry", … (the tracepoint; "lost" for Lost).
const char* traceEventTypeName(TraceEventType type);
/// @brief "local_timer", "reschedule", "call_function", "call_function_single".
const char* traceVectorName(TraceVector vector);
/// @brief "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"; "?" else.
const char* softirqName(int vector);
/// @brief The scheduling class a kernel prio stands for, as far as the events tell: "RT 50 (FIFO/RR)" for prio 49,
/// "nice 0 (OTHER/BATCH)" for 120, "DEADLINE" for −1.
std::string describeKernelPrio(int prio);

/// @brief Sorts by timestamp, keeping the order of equal timestamps (the order each CPU recorded them in).
void sortTraceEvents(std::vector<TraceEvent>& events);
/// @brief The events of @p sorted with fromNs <= ts <= toNs (binary search).
std::span<const TraceEvent> traceWindow(std::span<const TraceEvent> sorted, int64_t fromNs, int64_t toNs);

} // namespace rtscope
