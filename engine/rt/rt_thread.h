#pragma once
/// @file Launching measurement and hog threads with explicit scheduling attributes, pinned, with a
/// pre-faulted stack, blocked signals, and a stop path that interrupts any wait within milliseconds.
#include "engine/rt/sched_deadline.h"
#include "engine/rt/sched_policy.h"
#include "engine/util/error.h"

#include <atomic>
#include <csignal>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace rtscope {

/// @brief How and where a worker thread runs.
struct ThreadSpec {
    Policy policy = Policy::Other;
    int priority = 0; ///< 1..99 for FIFO/RR, 0 otherwise
    int nice = 0;     ///< -20..19, applied to non-RT policies
    int cpu = -1;     ///< pin to this CPU; -1 = leave the inherited affinity. Not for Policy::Deadline, see below.
    /// @brief For Policy::Deadline: runtime/deadline/period, applied by the thread itself with sched_setattr before
    /// the body runs. A SCHED_DEADLINE thread is never pinned: the kernel refuses the policy to a thread whose
    /// affinity is narrower than its root domain (EPERM), and a narrower affinity to a deadline thread (EBUSY),
    /// so the thread first widens its affinity to every online CPU and `cpu` only names the CPU it is measured
    /// for (docs/rt-privileges.md, "SCHED_DEADLINE").
    DeadlineParams deadline;
    /// @brief For Policy::Deadline: when set, the thread asks for SCHED_FLAG_DL_OVERRUN and counts the kernel's
    /// SIGXCPUs here (or says there why it cannot). The counter must outlive the thread.
    DeadlineOverrunCounter* overruns = nullptr;
    std::string name; ///< thread name (15 chars max, as the kernel keeps it)
    size_t stackBytes = 256 * 1024;
    size_t prefaultBytes = 64 * 1024; ///< stack touched before the body runs, so the RT path never page-faults
    bool lockStack = true;            ///< mlock() the pre-faulted stack region when mlockall is not in force
    /// @brief May ask the process's RealtimeGrant (below) for its FIFO/RR priority when the kernel refuses it with
    /// EPERM. Only for a thread that blocks every period: a grant comes with RLIMIT_RTTIME, and the kernel kills
    /// a process whose real-time thread runs that long without blocking (docs/rt-privileges.md, "rtkit").
    bool grantable = false;
};

/// @brief A second way to real-time priority for a process the kernel refuses it to (no CAP_SYS_NICE, RLIMIT_RTPRIO
/// too low): on a desktop, a service such as rtkit that sets a thread's policy on the process's behalf. The engine
/// knows nothing of how; the UI installs one (ui/common/rtkit_client.*). RtThread::start asks it, from the new thread
/// before the body runs, for a grantable spec whose SCHED_FIFO/RR the kernel refused with EPERM.
class RealtimeGrant {
public:
    virtual ~RealtimeGrant() = default;
    /// @brief Makes thread @p tid of this process real-time at @p priority, or says in one sentence why not. The
    /// policy is the granter's (rtkit gives the one it was started with): the thread reads back what it got.
    virtual Error makeRealtime(pid_t tid, int priority) = 0;
    /// @brief What it is, for messages: "rtkit (priority ≤ 20)".
    virtual std::string describe() const = 0;
};
/// @brief Installs the process-wide grant (null removes it). Set before any run starts.
void setRealtimeGrant(std::shared_ptr<RealtimeGrant> grant);
std::shared_ptr<RealtimeGrant> realtimeGrant();

/// @brief The private signal used to interrupt a worker's wait on stop. Every signal except this one is
/// blocked in workers; its handler does nothing, so a blocking wait returns EINTR and the body re-checks
/// its stop flag. Installed once per process by installWakeSignalHandler().
int wakeSignal();
void installWakeSignalHandler();
/// @brief Sets @p handler for @p sig, process-wide, with nothing else blocked while it runs and @p flags
/// (sigaction(2): SA_RESTART or 0).
void setSignalHandler(int sig, void (*handler)(int), int flags);
/// @brief How many wake signals the calling thread has taken. The handler counts them, so a wait that makes
/// no syscall (the busy waiter) can notice a stop request by watching this number change.
unsigned wakeSignalCount();

/// @brief Blocks in the calling thread every signal a worker must not take (all but wakeSignal()).
/// Call it in main() before starting any thread, so signals aimed at the process land on a thread
/// that waits for them (sigwait) instead of on a measuring thread.
void blockProcessSignals(bool alsoBlockWake);

/// @brief The signals that ask rtscope to stop, in every command and in the desktop app alike: SIGINT (Ctrl-C),
/// SIGTERM, SIGHUP, SIGQUIT (Ctrl-\), SIGUSR1 and SIGUSR2 — every signal whose default action ends a process and
/// that a person or a supervisor sends to end one. Each is blocked and taken by the thread that waits for it, so a
/// run stops the clean way (threads joined, partial results) instead of dying mid-write. SIGALRM, SIGXCPU and the
/// real-time signals are rtscope's own; SIGPIPE makes a write fail with EPIPE instead. docs/cli.md, Exit codes.
inline constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
/// @brief kStopSignals as a set (sigtimedwait, signalfd).
sigset_t stopSignalSet();
/// @brief Blocks until a stop signal (kStopSignals) arrives or @p timeoutMs passes; returns the signal or 0. The
/// signals must be blocked in the calling thread (blockProcessSignals()), so that this takes them.
int waitForStopSignal(int timeoutMs);
/// @brief True when a stop signal (kStopSignals) is pending, without taking it: an experiment's start asks it between
/// its steps (ExperimentHost::setStartInterrupt), and waitForStopSignal() then takes and names the signal.
bool stopSignalPending();

/// @brief The join budget: a stop request reaches every thread an experiment started, and each is joined, within
/// this many milliseconds; one that overstays is demoted to SCHED_OTHER and still joined (docs/architecture.md §3).
inline constexpr int kJoinBudgetMs = 100;

/// @brief A joinable worker thread. Movable, not copyable; the destructor stops and joins.
class RtThread {
public:
    RtThread();
    ~RtThread();
    RtThread(RtThread&&) noexcept;
    RtThread& operator=(RtThread&&) noexcept;
    RtThread(const RtThread&) = delete;
    RtThread& operator=(const RtThread&) = delete;

    /// @brief Starts @p body on a new thread created with explicit scheduling attributes (not inherited).
    /// The body receives a stop flag it must poll. On failure nothing runs and the error names the cause:
    /// EPERM with the reason (no CAP_SYS_NICE, RLIMIT_RTPRIO and its value, RT group scheduling without
    /// runtime), EINVAL with the valid priority range, a CPU that is offline or outside the allowed set.
    Error start(const ThreadSpec& spec, std::function<void(const std::atomic<bool>& stop)> body);
    /// @brief start() without waiting for the thread to run: returns once it exists, named and pinned, with the
    /// policy glibc applied before its first instruction. For SCHED_OTHER, BATCH and IDLE threads only (anything
    /// else is refused): on a CPU crowded with spinners a new thread waits up to a slice per spinner for its first
    /// turn, so starting N of them one start() at a time grows with N² (128 hogs: 12 s), launching them is linear.
    /// The nice the thread sets itself is not checked here: a caller that lowers it checks with tryThreadSpec()
    /// first. A thread whose own set-up fails anyway ends before its body (running() is false).
    /// @p checked: the caller has checked @p spec with check() already (its CPU online and allowed, its nice in
    /// range): the sysfs and cgroup files that check reads are not read again for every thread of a set.
    Error launch(const ThreadSpec& spec, std::function<void(const std::atomic<bool>& stop)> body, bool checked = false);
    /// @brief What start() and launch() check before creating a thread: the priority or nice in range, the CPU online
    /// and in this process's cpuset. Reads sysfs and the cgroup files: once per set of threads, not per thread.
    static Error check(const ThreadSpec& spec);

    /// @brief Sets the stop flag and interrupts the thread's wait (re-sending the wake signal every few
    /// milliseconds until the body returns), then joins. Returns true when joined within @p timeoutMs.
    /// It never detaches: after a timeout it demotes the thread to SCHED_OTHER and keeps joining.
    bool stop(int timeoutMs = kJoinBudgetMs);

    /// @brief Sets the stop flag and sends one wake signal; returns at once. stop() still joins.
    void requestStop();

    /// @brief Stops many threads in parallel: asks them all first, waits for the slowest, then joins each.
    /// Sequential stop() calls would cost one wake-up of the caller per thread, which on a loaded machine
    /// adds a scheduling delay per thread (64 hogs: hundreds of milliseconds). Null entries are skipped.
    /// Returns true when every thread finished within @p timeoutMs; stragglers are demoted and still joined.
    static bool stopAll(const std::vector<RtThread*>& threads, int timeoutMs = kJoinBudgetMs);

    /// @brief Changes the running thread's policy/priority (sched_setscheduler) and nice; for Policy::Deadline,
    /// its runtime/deadline/period (sched_setattr; the thread's affinity must already span its root domain).
    Error setScheduling(Policy policy, int priority, int nice = 0, const DeadlineParams& deadline = {});
    /// @brief Drops the thread to SCHED_OTHER, nice 0 (sched_setattr, so it also leaves SCHED_DEADLINE). Safe to
    /// call from any thread while it runs.
    void demote();

    bool running() const; ///< started and body not yet returned
    pid_t tid() const;    ///< kernel thread id (valid once started)
    /// @brief The thread's spec, with the policy and priority it actually got: after a grant (ThreadSpec::grantable)
    /// those are the granter's (rtkit may give SCHED_RR for SCHED_FIFO, or its highest priority).
    const ThreadSpec& spec() const;
    /// @brief True when the real-time policy came from the RealtimeGrant rather than from the kernel directly.
    bool granted() const;

private:
    /// Everything start() and launch() share: checks, pthread_create; the thread may not have run yet.
    Error create(const ThreadSpec& spec, std::function<void(const std::atomic<bool>& stop)> body, bool checked);

    struct State;
    std::unique_ptr<State> m_state;
};

/// @brief Starts a thread with @p spec that returns at once, and joins it: whether a run could start its thread
/// (real-time privilege and limits, the priority, the CPU), asked before the run starts. The error is the one
/// RtThread::start() gives for that spec, word for word.
[[nodiscard]] Error tryThreadSpec(const ThreadSpec& spec);

/// @brief Explains a failed sched_setscheduler/pthread_create with EPERM or EINVAL for @p spec, in one
/// sentence with the exact fix (used by RtThread and by the CLI's exit-3 message).
Error explainSchedulingError(int err, const ThreadSpec& spec);

/// @brief Current policy and priority of a thread (tid 0 = calling thread).
struct SchedState {
    Policy policy = Policy::Other;
    int priority = 0;
    int nice = 0;
};
SchedState schedulingOf(pid_t tid);

} // namespace rtscope
