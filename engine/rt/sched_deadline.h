#pragma once
/// @file SCHED_DEADLINE: the sched_setattr/sched_getattr system calls (glibc 2.36 has no wrapper), the parameter
/// rules the kernel enforces, its admission-control arithmetic and the sentences that explain a refusal
/// (docs/rt-privileges.md, "SCHED_DEADLINE"). Reusable by any experiment that runs a deadline thread.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace rtscope {

/// @brief The three numbers a SCHED_DEADLINE task declares: it may run `runtimeNs` in every `periodNs`, and must
/// have had it within `deadlineNs` of the period's start. The kernel wants runtime ≤ deadline ≤ period.
struct DeadlineParams {
    int64_t runtimeNs = 0;
    int64_t deadlineNs = 0;
    int64_t periodNs = 0;
    bool operator==(const DeadlineParams&) const = default;
    /// @brief runtime / period: the share of one CPU the task reserves (0 when the period is 0).
    double bandwidth() const;
};

/// @brief SCHED_FLAG_DL_OVERRUN: the kernel sends SIGXCPU to a task that overruns its runtime.
inline constexpr uint64_t kDeadlineFlagOverrun = 0x04;
/// @brief The kernel's smallest runtime: 1 << DL_SCALE ns (kernel/sched/deadline.c, __checkparam_dl).
inline constexpr int64_t kMinDeadlineRuntimeNs = 1024;

/// @brief What the kernel allows, read from /proc/sys/kernel. A value that cannot be read is nullopt and
/// its rule is then left to the kernel.
struct DeadlineLimits {
    std::optional<int64_t> periodMinNs; ///< sched_deadline_period_min_us × 1000 (default 100 µs)
    std::optional<int64_t> periodMaxNs; ///< sched_deadline_period_max_us × 1000 (default ~4.19 s)
    std::optional<int64_t> rtRuntimeUs; ///< sched_rt_runtime_us: -1 = no admission control
    std::optional<int64_t> rtPeriodUs;  ///< sched_rt_period_us
    int cpus = 0;                       ///< CPUs of the root domain (online CPUs; no exclusive cpusets looked at)
    static DeadlineLimits read();
    /// @brief sched_rt_runtime_us / sched_rt_period_us, the share of each CPU deadline tasks may take; nullopt
    /// when unreadable or when admission control is off (runtime -1).
    std::optional<double> perCpuLimit() const;
};

/// @brief Every rule of @p p the kernel checks, as sentences naming the field ("runtime", "deadline", "period",
/// prefixed with @p prefix, e.g. "dl-") and the rule; empty when the kernel should accept it.
std::vector<std::string> deadlineProblems(const DeadlineParams& p, const DeadlineLimits& limits,
                                          const std::string& prefix = "");

/// @brief sched_setattr(@p tid, SCHED_DEADLINE, @p p, @p flags). Returns 0 or the errno.
int setDeadlineScheduling(pid_t tid, const DeadlineParams& p, uint64_t flags = 0);
/// @brief SCHED_FLAG_DL_OVERRUN's count for one deadline thread (docs/experiments/deadline.md, "Overruns"). The
/// thread registers it (ThreadSpec::overruns) before it takes SCHED_DEADLINE; the SIGXCPU handler adds one per
/// signal the kernel sends it, from any thread's point of view a lock-free atomic.
struct DeadlineOverrunCounter {
    std::atomic<uint64_t> overruns{0};
    /// @brief Set by the thread once the kernel accepted the flag; false = not counted (see notCounted).
    std::atomic<bool> counted{false};
    /// @brief Why not counted, as "not counted: …" (a string literal, so that any thread may read it while the
    /// thread sets it); null while nothing is known.
    std::atomic<const char*> notCounted{nullptr};
};
/// @brief A copy of a counter's figures: plain data for snapshots.
struct DeadlineOverrunFigure {
    bool counted = false;
    uint64_t overruns = 0;  ///< meaningful only when counted
    std::string notCounted; ///< "not counted: …" when !counted
};
DeadlineOverrunFigure figureOf(const DeadlineOverrunCounter& c);

/// @brief The process-wide SIGXCPU handler (installed once; any thread may call it). The default action of SIGXCPU
/// kills the process with a core dump, so it must be in place before any thread sets SCHED_FLAG_DL_OVERRUN.
void installDeadlineOverrunHandler();
/// @brief The calling thread counts every SIGXCPU it takes into @p slot (null: none) and unblocks SIGXCPU. Installs
/// the handler. The kernel sends SIGXCPU to the process, but delivers it to the overrunning thread when that thread
/// does not block it, so only the counting threads unblock it.
void countDeadlineOverrunsInto(std::atomic<uint64_t>* slot);
/// @brief SIGXCPUs taken by a thread with no slot registered (a signal left pending after its thread left).
uint64_t unattributedDeadlineOverruns();
/// @brief setDeadlineScheduling with SCHED_FLAG_DL_OVERRUN. When the kernel refuses the flag (EINVAL with it, OK
/// without) the task runs without it: 0 is returned and @p notCounted says why. Other errors: the errno.
int setDeadlineSchedulingCountingOverruns(pid_t tid, const DeadlineParams& p, const char*& notCounted);

/// @brief sched_setattr(@p tid, SCHED_OTHER, nice 0): leaves SCHED_DEADLINE (or any policy). Returns 0 or the errno.
int setOtherScheduling(pid_t tid);
/// @brief sched_getattr: the declared parameters of a SCHED_DEADLINE thread; nullopt for any other policy or error.
std::optional<DeadlineParams> deadlineOf(pid_t tid);

/// @brief A SCHED_DEADLINE thread found in /proc, with what it declared (sched_getattr).
struct DeadlineTask {
    pid_t pid = 0;
    pid_t tid = 0;
    std::string comm;
    DeadlineParams params;
};
/// @brief Every SCHED_DEADLINE thread of the system whose /proc entry this process may read.
std::vector<DeadlineTask> admittedDeadlineTasks();

/// @brief One sentence for a failed sched_setattr(SCHED_DEADLINE) of @p what ("thread 'rtscope-measure'"):
/// EBUSY = admission control refused it (the bandwidth asked, the limit, the fair servers and the deadline tasks
/// already admitted, by name); EPERM = the affinity rule when @p narrowAffinity, else privilege; EINVAL = the
/// parameter rule that failed; anything else by errno name.
std::string explainDeadlineError(int err, const DeadlineParams& p, const std::string& what, bool narrowAffinity);

/// @brief "200 µs/1 ms/1 ms (20 %)": runtime/deadline/period and the bandwidth.
std::string deadlineText(const DeadlineParams& p);

} // namespace rtscope
