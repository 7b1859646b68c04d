#pragma once
/// @file Why one wake-up was late, read from the kernel's own events (trace_event.h): the latency of a measuring
/// thread's wake-up (deadline → back in user space) split into the timer IRQ delay, the interrupts that ran between
/// the timer and the switch-in, the scheduling delay with every task that held the CPU meanwhile, and the return to
/// user space; a culprit table over many wake-ups; a one-paragraph verdict. Thread-free and library-free: the trace
/// session (engine/trace) records the events, this only reads them, so tests feed it sequences worked out by hand.
///
/// The parts of a wake-up, on the measuring thread's CPU (t_timer, t_switch: the events below):
///
///     deadline ──timer IRQ delay── t_timer ──interrupts + scheduling delay── t_switch ──return to user── wake
///
/// - t_timer is the hrtimer_expire_entry of the thread's own timer: the expiry inside which the sched_waking of the
///   thread runs (hrtimer_wakeup wakes the sleeper from the timer's callback), on the same CPU. Interrupts off, an
///   interrupt in progress and the exit from an idle state all land before it.
/// - between t_timer and t_switch (the last sched_switch to the thread before it read its clock), every instant is
///   either interrupt context (hard IRQs, softirqs, x86 vectors, hrtimer callbacks: by handler, innermost wins) or
///   task context of whichever task held the CPU: the scheduling delay is the task-context part, listed by task.
///   The task holding the CPU comes from sched_switch, checked against every event's common_pid: where they
///   disagree a switch was not recorded, and the task the events name is taken from the previous event on.
/// - the rest, t_switch → wake, is the return to user space (the end of clock_nanosleep, the clock read).
///
/// The known parts add up to the measured latency exactly (each boundary is clipped to [deadline, wake]); a
/// boundary event outside [deadline − kAnatomyToleranceNs, wake + kAnatomyToleranceNs] marks the anatomy
/// inconsistent and leaves the parts it bounds unknown. A part whose events are missing (not traced, outside the
/// window, or in a span where the kernel reported lost events) is std::nullopt, never estimated.
#include "engine/pipeline/trace_event.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rtscope {

/// @brief How far the trace clock ("mono": ktime_get_mono_fast_ns) and the thread's clock_gettime(CLOCK_MONOTONIC)
/// may disagree before an event is taken to contradict the measured times. Both read the same timekeeper, so they
/// agree to tens of nanoseconds; 2 µs leaves room for the reads' own cost in a virtual machine.
inline constexpr int64_t kAnatomyToleranceNs = 2'000;

/// @brief One measured wake-up of one thread.
struct WakeupQuery {
    int32_t tid = 0;        ///< the measuring thread
    int cpu = -1;           ///< its CPU (used when its switch-in is not among the events)
    int64_t deadlineNs = 0; ///< CLOCK_MONOTONIC deadline it slept until
    int64_t wakeNs = 0;     ///< the CLOCK_MONOTONIC time it read on waking: latency = wakeNs − deadlineNs
};

enum class CulpritKind : uint8_t { Task, Irq, Softirq, Vector, Hrtimer };
/// @brief "task", "irq", "softirq", "vector", "hrtimer".
const char* culpritKindName(CulpritKind kind);

/// @brief Interrupt-context time between the timer and the switch-in, by handler.
struct AnatomyInterrupt {
    CulpritKind kind = CulpritKind::Irq; ///< Irq, Softirq, Vector or Hrtimer
    int64_t id = 0;                      ///< IRQ number, softirq vector, TraceVector, or the hrtimer callback's address
    std::string name; ///< "irq 24 (virtio0-input.0)", "softirq TIMER", "local_timer", "hrtimer_wakeup (own)"
    /// The measuring thread's own timer: its hrtimer callback, and the interrupt that delivered it (on x86 the
    /// local_timer vector the callback ran inside; its time outside the callback is what taking that interrupt
    /// costs). Part of every wake-up, not a culprit (docs/experiments/anatomy.md).
    bool ownTimer = false;
    int64_t ns = 0; ///< innermost time: a hard IRQ inside a softirq counts for the IRQ only
    int count = 0;  ///< entries seen in the window
};

/// @brief A task that held the measuring CPU between the timer and the switch-in.
struct AnatomySlice {
    int32_t pid = -1;  ///< −1: not known (no sched_switch before the timer in the window)
    std::string comm;  ///< empty when not known
    int32_t prio = -2; ///< kernel prio (describeKernelPrio); −2 when not known
    int64_t fromNs = 0;
    int64_t toNs = 0;
    int64_t ns = 0; ///< task-context time in [fromNs, toNs] (interrupts excluded)
    /// false: no sched_switch to it is in the events (the kernel did not record it); it is known from the events
    /// that ran in its context (common_pid) and taken to hold the CPU from the CPU's previous event on
    bool switchInSeen = true;
    bool idle() const { return pid == 0; }
};

/// @brief The anatomy of one wake-up.
struct WakeupAnatomy {
    WakeupQuery query;
    int64_t latencyNs = 0;

    // The events it rests on (nullopt: not found).
    std::optional<int64_t> timerNs;    ///< hrtimer_expire_entry of the thread's own timer
    std::optional<int64_t> wakingNs;   ///< sched_waking of the thread
    std::optional<int64_t> wakeupNs;   ///< sched_wakeup of the thread
    std::optional<int64_t> switchInNs; ///< the last sched_switch to the thread at or before its wake time
    int runCpu = -1;                   ///< where it was switched in (query.cpu when not found)
    int timerCpu = -1;                 ///< where its timer fired
    uint64_t timerFunction = 0;        ///< the callback of its timer (hrtimer_wakeup)
    bool idleAtTimer = false;          ///< the timer interrupted the idle task: the exit from idle is in the delay
    bool runnableAtDeadline = false;   ///< preempted (not asleep) at its deadline: there was no timer to wait for

    // The parts (nullopt: unknown) and what they do not cover.
    std::optional<int64_t> timerIrqDelayNs; ///< deadline → t_timer
    std::optional<int64_t> irqNs;           ///< interrupt context in t_timer → t_switch
    std::optional<int64_t> schedulingNs;    ///< task context in t_timer → t_switch
    std::optional<int64_t> returnToUserNs;  ///< t_switch → wake
    int64_t unaccountedNs = 0;              ///< latency − the known parts

    std::vector<AnatomyInterrupt> interrupts; ///< by handler, most time first
    std::vector<AnatomySlice> tasks;          ///< in time order; their ns add up to schedulingNs
    bool eventsLost = false; ///< the kernel reported lost events on a CPU that matters, inside [deadline, wake]
    bool consistent = true;  ///< false: a boundary event contradicts the measured times beyond the tolerance
    std::string note;        ///< why parts are unknown, in plain words; empty when every part is known

    bool complete() const { return timerIrqDelayNs && irqNs && schedulingNs && returnToUserNs; }
};

/// @brief A task's share of a wake-up: its slices merged.
struct AnatomyTaskShare {
    int32_t pid = -1;
    std::string comm;
    int32_t prio = -2;
    int64_t ns = 0;
    int slices = 0;
};
/// @brief The tasks that held the CPU (not the idle task, not the measuring thread itself), most time first.
std::vector<AnatomyTaskShare> taskShares(const WakeupAnatomy& anatomy);

struct AnatomyOptions {
    /// Names an hrtimer callback address ("tick_nohz_handler"); unset or empty: "hrtimer 0x…". The trace session
    /// can provide one from /proc/kallsyms (TraceSession::functionName).
    std::function<std::string(uint64_t)> functionName;
};

/// @brief The anatomy of wake-up @p query from @p events: every CPU's events of a window that starts before the
/// thread went to sleep (a few periods before the deadline is plenty) and ends after its wake time. Events in time
/// order are used as they are; others are sorted first (a copy).
WakeupAnatomy analyzeWakeup(const WakeupQuery& query, std::span<const TraceEvent> events,
                            const AnatomyOptions& options = {});

/// @brief The events of @p sorted that analyzeWakeup() needs for @p query: from @p lookbackNs before the deadline
/// (a few periods: the thread's sleep and the last switch before its timer are in it) to the wake time, and on to the
/// first event of the thread's CPU after it: when the kernel lost events around the wake-up, that event is the Lost
/// marker that says so (a marker comes after its gap).
std::span<const TraceEvent> wakeupWindow(std::span<const TraceEvent> sorted, const WakeupQuery& query,
                                         int64_t lookbackNs);

/// @brief How a text writes microseconds: "us" (the CLI and JSON, ASCII like cyclictest) or "µs" (the desktop app).
enum class MicroUnit : uint8_t { Ascii, Sign };

/// @brief One paragraph on @p anatomy, its largest part first: "1.21 ms late on CPU 1: 1.18 ms waiting for
/// stress-ng-cpu (pid 4242, nice 0 (OTHER/BATCH)) to leave the CPU; timer IRQ 4.0 us after the deadline; …".
/// Durations (and those in the note) are written with @p unit; task and handler names are left as they are.
std::string anatomyVerdict(const WakeupAnatomy& anatomy, MicroUnit unit = MicroUnit::Ascii);

/// @brief Who delayed the measuring thread over many wake-ups.
struct CulpritRow {
    CulpritKind kind = CulpritKind::Task;
    int64_t id = 0;       ///< pid, IRQ number, softirq vector, TraceVector, hrtimer callback
    std::string name;     ///< comm for a task (the last seen), the handler's name otherwise
    int32_t prio = -2;    ///< tasks: the kernel prio last seen
    uint64_t wakeups = 0; ///< wake-ups it delayed (had time in)
    int64_t totalNs = 0;
    int64_t worstNs = 0; ///< its largest share of one wake-up
};

/// @brief Sums anatomies into culprits: the tasks of each scheduling delay (not idle, not the measuring thread)
/// and the interrupts between timer and switch-in (not the thread's own timer callback). A wake-up whose
/// scheduling (interrupt) part is unknown adds no task (interrupt) rows: what was seen of it would undercount.
class CulpritTable {
public:
    void add(const WakeupAnatomy& anatomy);
    /// @brief Most total time first.
    std::vector<CulpritRow> rows() const;
    uint64_t wakeups() const { return m_wakeups; }
    void clear();

private:
    std::map<std::pair<CulpritKind, int64_t>, CulpritRow> m_rows;
    uint64_t m_wakeups = 0;
};

} // namespace rtscope
