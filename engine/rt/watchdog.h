#pragma once
/// @file A real-time watchdog: a SCHED_FIFO thread on a CPU of its own that demotes a watched thread to
/// SCHED_OTHER when it is still running past the deadline it announced by more than a margin, and records
/// that it had to. Used by the starvation lab's spinner and by the lock lab's priority-inversion threads.
#include "engine/rt/rt_thread.h"
#include "engine/util/error.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace rtscope {

struct CpuTopology;

/// @brief Where and how the watchdog runs. Not a user-facing experiment config: the experiments fill it.
struct WatchdogConfig {
    static constexpr int64_t kMinMarginNs = 1'000'000;      ///< 1 ms
    static constexpr int64_t kMaxMarginNs = 10'000'000'000; ///< 10 s
    static constexpr int64_t kMinPollNs = 100'000;          ///< 100 µs
    static constexpr int64_t kMaxPollNs = 100'000'000;      ///< 100 ms

    int cpu = -1;                  ///< a usable CPU that runs none of the watched threads
    int priority = 99;             ///< SCHED_FIFO, above every watched thread
    int64_t marginNs = 50'000'000; ///< a thread may overrun its deadline by this much before it is demoted
    int64_t pollNs = 5'000'000;    ///< how often the watchdog looks: demotion lands within margin + poll
    /// @brief Count only the time the thread actually ran past its deadline (its CPU clock), not the wall time.
    /// A spinner that the kernel kept off the CPU at its deadline (RT throttling, the fair server: windows of
    /// ~50 ms) resumes late through no fault of its own and leaves at once; it must not be demoted for that.
    bool cpuTimeOverrun = false;

    /// @brief Every problem as a sentence naming the field and its allowed range; empty when valid.
    std::vector<std::string> validate(const CpuTopology& cpus) const;
};

/// @brief The watchdog of an experiment whose spinners the kernel may throttle (starvation, deadline): on @p cpu at
/// @p priority, with @p Limits' kWatchdogMarginNs and kWatchdogPollNs, counting only the CPU time a thread ran past
/// its deadline (cpuTimeOverrun).
template <class Limits> WatchdogConfig throttledSpinnerWatchdog(int cpu, int priority)
{
    WatchdogConfig wd;
    wd.cpu = cpu;
    wd.priority = priority;
    wd.marginNs = Limits::kWatchdogMarginNs;
    wd.pollNs = Limits::kWatchdogPollNs;
    wd.cpuTimeOverrun = true;
    return wd;
}

/// @brief One demotion the watchdog made.
struct WatchdogTrip {
    int slot = -1;
    pid_t tid = 0;
    int64_t deadlineNs = 0;         ///< the deadline the thread announced (CLOCK_MONOTONIC)
    int64_t demotedNs = 0;          ///< when the watchdog demoted it
    bool demoted = false;           ///< sched_setscheduler succeeded (false: the thread was gone or never bound)
    bool atStop = false;            ///< made by stop() because the thread was still armed when the watchdog stopped
    int64_t ranPastDeadlineNs = -1; ///< with cpuTimeOverrun: CPU time it used after its deadline; else -1
    int64_t overrunNs() const { return demotedNs - deadlineNs; }
};

/// @brief The watchdog thread and its slots. Watched threads announce deadlines with arm()/disarm(), which
/// are single atomic stores: safe on a real-time path that must not lock, allocate or make syscalls.
class Watchdog {
public:
    static constexpr int kMaxSlots = 8;
    static constexpr int kMaxTrips = 64;

    Watchdog();
    ~Watchdog();
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

    /// @brief Validates, clears every slot and trip, and starts the watchdog thread (SCHED_FIFO, pinned).
    /// Errors: InvalidConfig with the sentences, Permission when SCHED_FIFO is refused.
    Error start(const WatchdogConfig& config);
    /// @brief Joins the thread (within 100 ms), then demotes every thread still armed and records it as a
    /// trip: stopping the watchdog must not leave a spinner unguarded. Idempotent.
    void stop();
    bool running() const { return m_thread.running(); }
    const WatchdogConfig& config() const { return m_config; }
    pid_t tid() const { return m_thread.tid(); }

    /// @brief Reserves a slot for one watched thread; -1 when all are taken. Control thread only.
    int addSlot();
    /// @brief Names the kernel thread a slot guards; call it from the watched thread itself (gettid()) before
    /// its first arm(), so a deadline is never armed for an unknown thread.
    void bindThread(int slot, pid_t tid) noexcept;
    /// @brief The bound thread promises to stop running real-time work by @p deadlineNs (CLOCK_MONOTONIC).
    void arm(int slot, int64_t deadlineNs) noexcept;
    /// @brief The bound thread kept its promise.
    void disarm(int slot) noexcept;
    /// @brief How many times the slot's thread was demoted since start(); the thread can compare this
    /// before and after a burst to learn that it overran.
    uint32_t tripCount(int slot) const noexcept;
    /// @brief Every demotion since start(), oldest first (the first kMaxTrips). Any thread.
    std::vector<WatchdogTrip> trips() const;

private:
    struct alignas(64) Slot {
        std::atomic<int64_t> deadlineNs{0}; ///< 0 = disarmed
        std::atomic<pid_t> tid{0};
        std::atomic<uint32_t> trips{0};
    };

    void loop(const std::atomic<bool>& stop);
    void check(int64_t now);
    void demote(int slot, int64_t deadlineNs, int64_t now, bool atStop, int64_t ranPastDeadlineNs);
    int64_t ranPastDeadline(int slot, int64_t deadlineNs, int64_t now);

    WatchdogConfig m_config;
    RtThread m_thread;
    std::array<Slot, kMaxSlots> m_slots;
    std::atomic<int> m_slotCount{0};
    // The watchdog thread's own bookkeeping for cpuTimeOverrun: which deadline it has seen pass, and the
    // thread's CPU clock and the wall clock when it first saw it.
    struct PastDeadline {
        int64_t deadlineNs = 0;
        int64_t cpuNs = 0;
        int64_t seenNs = 0;
    };
    std::array<PastDeadline, kMaxSlots> m_past{};
    // Written by one thread at a time (the watchdog while it runs, stop() after the join) and published
    // through m_tripsLogged, so readers need no lock.
    std::array<WatchdogTrip, kMaxTrips> m_trips;
    std::atomic<uint32_t> m_tripsLogged{0};
};

} // namespace rtscope
