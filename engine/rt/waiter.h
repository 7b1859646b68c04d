#pragma once
/// @file One interface for every way a thread can wait for its next period (docs/science.md, Latency under load and
/// Timer drift).
#include "engine/util/error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

enum class WaiterKind {
    Absolute, ///< clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) to t0 + k·P (cyclictest's default)
    Relative, ///< clock_nanosleep(CLOCK_MONOTONIC, 0, P) from "now": drifts (cyclictest -r)
    Timerfd,  ///< timerfd_create(CLOCK_MONOTONIC) periodic; read() returns the expirations
    Itimer,   ///< setitimer(ITIMER_REAL) + SIGALRM taken with sigwaitinfo in the waiting thread
    Posix,    ///< timer_create(CLOCK_MONOTONIC, SIGEV_THREAD_ID) absolute + sigwaitinfo, overruns counted
    Busy,     ///< spin on clock_gettime until the deadline (exact, costs a whole CPU)
};

const char* waiterName(WaiterKind k);                         ///< "abs", "rel", "timerfd", "itimer", "posix", "busy"
const char* waiterLabel(WaiterKind k);                        ///< "absolute clock_nanosleep", ... (for the UI)
std::optional<WaiterKind> parseWaiter(std::string_view name); ///< accepts the short names and a few aliases
/// @brief Every short name, in the order of the enum: "abs, rel, timerfd, itimer, posix, busy", or with
/// @p lastJoin " or " "abs, rel, timerfd, itimer, posix or busy" (help texts and sentences, from the one table).
std::string waiterNameList(std::string_view lastJoin = ", ");
/// @brief Every kind, in the same table's order: what a choice of waiter offers (the Latency page's combo).
std::vector<WaiterKind> waiterKinds();

/// @brief What one wait produced.
struct WaitResult {
    int64_t deadlineNs = 0;   ///< CLOCK_MONOTONIC ns the wake-up was aimed at (see each kind)
    int64_t wakeNs = 0;       ///< clock read right after the wait returned
    uint32_t skipped = 0;     ///< whole periods missed before this wake-up (deadline advanced past them)
    bool interrupted = false; ///< the wait was interrupted (stop requested): no sample
    int error = 0;            ///< errno of a failed wait; 0 if fine
};

/// @brief A periodic waiter. Used from one thread only (the waiting thread), except where noted.
///
/// Deadlines: tick k is due at t0 + k·P for the absolute kinds (Absolute, Timerfd, Itimer, Posix, Busy);
/// a late wake-up does not move later deadlines, and ticks missed entirely are counted in `skipped`
/// (for Timerfd and Posix from the kernel's expiration/overrun count). For Relative the deadline is
/// "time the sleep started + P", as cyclictest -r computes it.
class Waiter {
public:
    virtual ~Waiter() = default;
    virtual WaiterKind kind() const = 0;

    /// @brief Arms the waiter in the calling (waiting) thread: the first deadline is @p firstDeadlineNs.
    /// Creates the kernel timer where there is one (so call it before the first measured cycle).
    virtual Error start(int64_t firstDeadlineNs, int64_t periodNs) = 0;
    /// @brief Blocks until the next deadline (or until interrupted by the wake signal), reads the clock.
    virtual WaitResult waitNext() = 0;
    /// @brief Changes the period from the next tick on (re-arms kernel timers, keeping phase at "now").
    virtual void setPeriod(int64_t periodNs) = 0;
    /// @brief Disarms and releases the kernel timer. Called in the waiting thread; idempotent.
    virtual void stop() = 0;
};

/// @brief Creates a waiter of the given kind. Timer slack is the thread's own (see setTimerSlack()).
std::unique_ptr<Waiter> makeWaiter(WaiterKind kind);
/// @brief As above, with a stop flag that every kind checks before it blocks and that the busy waiter polls
/// while it spins (it has no syscall for the wake signal to interrupt), so waitNext() returns `interrupted`
/// once the flag is set. Pass the flag an RtThread body receives; the waiter only reads it.
std::unique_ptr<Waiter> makeWaiter(WaiterKind kind, const std::atomic<bool>* interruptFlag);

/// @brief The signal the POSIX-timer waiter is notified with (thread-directed to the waiting thread). A GUI main
/// thread that does not go through blockProcessSignals() blocks it (and SIGALRM) itself.
int waiterTimerSignal();

/// @brief prctl(PR_SET_TIMERSLACK) for the calling thread (1 ns minimum; 0 restores the default).
bool setTimerSlack(int64_t ns);
/// @brief The calling thread's timer slack in ns (prctl(PR_GET_TIMERSLACK)).
int64_t timerSlack();

} // namespace rtscope
