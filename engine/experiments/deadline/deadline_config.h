#pragma once
/// @file Configuration of the deadline lab (docs/experiments/deadline.md): three lessons about SCHED_DEADLINE —
/// admission control, isolation of a runaway, EDF against inverted fixed priorities — and its one validation path,
/// shared by the CLI and the JSON reader.
#include "engine/rt/sched_deadline.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

struct CpuTopology;

enum class DeadlineLesson { Admission, Isolation, Edf };
const char* deadlineLessonName(DeadlineLesson l);
std::optional<DeadlineLesson> parseDeadlineLesson(std::string_view name);

/// @brief The isolation lesson's runaway: a deadline task that overruns its reservation (throttled by the kernel),
/// or the starvation lab's trap, a SCHED_FIFO thread pinned to the counter's CPU that spins for the whole run.
enum class DeadlineRunawayPolicy { Deadline, Fifo };
const char* deadlineRunawayPolicyName(DeadlineRunawayPolicy p);
std::optional<DeadlineRunawayPolicy> parseDeadlineRunawayPolicy(std::string_view name);

struct DeadlineConfig {
    // Limits, in one place: the CLI help and validate() read them.
    static constexpr int64_t kMinDurationNs = 100'000'000;     ///< 100 ms
    static constexpr int64_t kMaxDurationNs = 600'000'000'000; ///< 10 min
    static constexpr int kMaxTasks = 16;
    static constexpr int64_t kMaxPeriodNs = 1'000'000'000;  ///< 1 s: a throttled runaway is back within a period
    static constexpr int64_t kMinRunawayIdleNs = 1'000'000; ///< period - runtime: throttled time must be visible
    static constexpr int64_t kRunawayGapNs = 200'000;       ///< off the CPU at least this long ends a runaway job
    static constexpr int kMinPriority = 1;
    static constexpr int kMaxPriority = 97; ///< the long EDF task runs at priority + 1, the watchdog at 99
    static constexpr int kWatchdogPriority = 99;
    static constexpr int64_t kWatchdogMarginNs = 50'000'000;
    static constexpr int64_t kWatchdogPollNs = 5'000'000;
    static constexpr int kEdfRuntimeMarginPct = 25;    ///< a DL task declares its work + 25 % (the loop's own cost)
    static constexpr int64_t kPhaseGapNs = 50'000'000; ///< between the FIFO and the DEADLINE phase

    DeadlineLesson lesson = DeadlineLesson::Admission;
    /// @brief Admission: the tasks to add one by one (deadline = period); empty = enough 50 % tasks to overfill
    /// the machine (defaultAdmissionTasks()).
    std::vector<DeadlineParams> tasks;
    int64_t durationNs = 5'000'000'000; ///< isolation: the run; edf: each phase; admission: not used

    // Isolation.
    DeadlineParams runaway{10'000'000, 50'000'000, 50'000'000}; ///< asks for 10 ms per 50 ms, then spins
    DeadlineParams good{2'000'000, 20'000'000, 20'000'000};     ///< the well-behaved task's reservation
    int64_t goodWorkNs = 500'000;                               ///< … and the CPU time its job needs
    int counterCpu = -1;                                        ///< the OTHER counter's CPU; -1 = last usable
    /// @brief Deadline: unpinned, throttled to `runaway` every period. Fifo: SCHED_FIFO `runawayPriority`, pinned to
    /// the counter's CPU, spinning until the run's end (`runaway` is then not used).
    DeadlineRunawayPolicy runawayPolicy = DeadlineRunawayPolicy::Deadline;
    int runawayPriority = 50; ///< the FIFO runaway's priority, kMinPriority..kMaxPriority (below the watchdog)

    // EDF against inverted rate-monotonic priorities.
    int64_t shortWorkNs = 1'500'000; ///< the short-period task: 1.5 ms of CPU every 4 ms
    int64_t shortPeriodNs = 4'000'000;
    int64_t longWorkNs = 8'000'000; ///< the long-period task: 8 ms every 20 ms, and (inverted) the higher priority
    int64_t longPeriodNs = 20'000'000;
    int priority = 50; ///< FIFO phase: short task at this priority, long task one above
    int cpu = -1;      ///< FIFO phase: both tasks' CPU; -1 = last usable

    /// @brief Every problem as a sentence naming the field and its rule; empty when valid.
    std::vector<std::string> validate(const CpuTopology& cpus) const;
    /// @brief The admission tasks as run: tasks, or the default list for @p limits.
    std::vector<DeadlineParams> admissionTasks(const DeadlineLimits& limits) const;
    /// @brief 50 % tasks (5 ms per 10 ms), one more than perCpuLimit × CPUs holds (2 × CPUs + 1 when unknown).
    static std::vector<DeadlineParams> defaultAdmissionTasks(const DeadlineLimits& limits);
    /// @brief The reservation of the EDF task with @p workNs per @p periodNs: work + 25 %, deadline = period.
    static DeadlineParams edfReservation(int64_t workNs, int64_t periodNs);
    int resolvedCpu(const CpuTopology& cpus) const;
    int resolvedCounterCpu(const CpuTopology& cpus) const;
    /// @brief "admission · 4 tasks", "isolation · runaway 10 ms/50 ms · …", "edf · …".
    std::string label() const;

    bool operator==(const DeadlineConfig&) const = default;
};

nlohmann::json toJson(const DeadlineConfig& c);
/// @brief Reads a config; unknown keys and wrong types are reported (field named), missing keys keep their
/// defaults. Range checks are validate()'s job.
DeadlineConfig deadlineConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

} // namespace rtscope
