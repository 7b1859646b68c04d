#pragma once
/// @file The steps of analyzeWakeup() (wakeup_anatomy.h), each a function of the events in time order and what the
/// steps before it found: the spans the kernel lost, the thread's switch-in, its waking, the timer that woke it, and
/// the sweep of its CPU between the timer and the switch-in that splits that time into interrupts and tasks. Indices
/// are into the events given; every step reads them and nothing else, so a test feeds it a hand-written sequence.
#include "engine/pipeline/trace_event.h"
#include "engine/pipeline/wakeup_anatomy.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace rtscope::anatomy {

/// @brief Whether @p type opens interrupt context: a hard IRQ, a softirq, an hrtimer callback, an x86 vector.
bool isInterruptEntry(TraceEventType type);
/// @brief Whether @p type closes interrupt context (the exits of isInterruptEntry()'s events).
bool isInterruptExit(TraceEventType type);

/// @brief What the events call each task: pid → (comm, kernel prio), the last a sched_switch, sched_waking,
/// sched_wakeup or sched_migrate_task gave (a task met only through common_pid gets its name here).
using TaskNames = std::map<int32_t, std::pair<std::string, int32_t>>;
/// @brief The names of the tasks in @p events.
TaskNames taskNames(std::span<const TraceEvent> events);

/// @brief A span of one CPU's time where the kernel dropped events (a Lost event: from its sinceNs, or INT64_MIN
/// when it did not say since when, to its time).
struct LostGap {
    int cpu = -1;
    int64_t fromNs = 0;
    int64_t toNs = 0;
};

/// @brief The lost spans of @p events, in their order.
std::vector<LostGap> lostGaps(std::span<const TraceEvent> events);
/// @brief Whether a lost span of @p cpu overlaps (@p fromNs, @p toNs).
bool gapOverlaps(const std::vector<LostGap>& gaps, int cpu, int64_t fromNs, int64_t toNs);

/// @brief The thread's last switch-in before it read its clock, and its switch-out before that.
struct SwitchIn {
    std::optional<size_t> in;        ///< the last sched_switch to the thread in [0, end); none when a switch-out of it
                                     ///< at or before its wake time follows (the switch-in that let it run is missing)
    std::optional<size_t> outBefore; ///< the last sched_switch away from the thread before @ref in
};
/// @brief Finds the switch-in of thread @p tid among @p events[0, @p end) (the events up to its wake time
/// @p wakeNs and the tolerance).
SwitchIn findSwitchIn(std::span<const TraceEvent> events, size_t end, int32_t tid, int64_t wakeNs);

/// @brief Why no switch-in of thread @p tid was found among @p events[0, @p end): the sentence for the note, with the
/// kernel quirk named when the events of @p cpu show it (switches into its idle task recorded, none out of it).
std::string missingSwitchInNote(std::span<const TraceEvent> events, size_t end, int32_t tid, int cpu);

/// @brief The thread's sched_waking and the sched_wakeup after it.
struct Waking {
    std::optional<size_t> waking; ///< the first sched_waking of the thread in [from, searchEnd)
    std::optional<size_t> wakeup; ///< the first sched_wakeup of the thread after it, before searchEnd
};
/// @brief Finds the waking of thread @p tid among @p events[@p from, @p searchEnd).
Waking findWaking(std::span<const TraceEvent> events, size_t from, size_t searchEnd, int32_t tid);

/// @brief The hrtimer expiry that woke the thread: the innermost hrtimer_expire_entry still open on the waker's CPU
/// at @p events[@p waking] (hrtimer_wakeup wakes a sleeper from inside its timer's callback). Walking back, an entry
/// whose exit came before the waking is closed; a sched_switch ends the search (no expiry is open across a switch).
/// None: the thread was woken outside a timer callback.
std::optional<size_t> findOwnTimer(std::span<const TraceEvent> events, size_t waking);

/// @brief What the CPU did between the timer and the switch-in.
struct SchedulingSweep {
    std::vector<AnatomySlice> tasks;          ///< task context, in time order (a slice per holder)
    std::vector<AnatomyInterrupt> interrupts; ///< interrupt context by handler, most time first
    int64_t irqNs = 0;                        ///< the interrupts' time (innermost wins)
    int64_t taskNs = 0;                       ///< the tasks' time; irqNs + taskNs = toNs − fromNs
};
/// @brief The thread's own timer, as found by findOwnTimer(): its interrupt and the one delivering it are not
/// culprits.
struct OwnTimer {
    std::optional<int64_t> ns; ///< its hrtimer_expire_entry
    int cpu = -1;
};
/// @brief Sweeps the events of @p cpu up to the thread's switch-in @p events[@p switchIn] and splits
/// [@p fromNs, @p toNs] (the timer to the switch-in, clipped to [deadline, wake]) into interrupt context by handler and
/// task context by the task holding the CPU. The task is named by each sched_switch and checked against every event's
/// common_pid: a switch the kernel did not record shows as a slice whose switch-in was not seen.
SchedulingSweep sweepSchedulingWindow(std::span<const TraceEvent> events, size_t switchIn, int cpu, int64_t fromNs,
                                      int64_t toNs, const OwnTimer& ownTimer, const AnatomyOptions& options);

} // namespace rtscope::anatomy
