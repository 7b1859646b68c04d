#pragma once
/// @file The lock lab's kinds of lock (docs/experiments/locks.md) behind one small interface, so the contention and
/// priority-inversion experiments, the tests and the benchmark drive every kind the same way.
#include "engine/util/error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace rtscope {

enum class LockKind {
    Spin,          ///< test-and-test-and-set spinlock with pause and backoff (SpinLock)
    Mutex,         ///< plain pthread mutex: futex-based, sleeps on every contended acquisition
    AdaptiveGlibc, ///< PTHREAD_MUTEX_ADAPTIVE_NP: a few trylock spins, then the futex
    Adaptive,      ///< rtscope's own adaptive lock with the RT patch's rules (AdaptiveLock)
    Pi,            ///< PTHREAD_PRIO_INHERIT mutex: the holder inherits the top waiter's priority
    Ceiling,       ///< PTHREAD_PRIO_PROTECT mutex: the holder runs at the ceiling priority
};

/// @brief "spin", "mutex", "adaptive-glibc", "adaptive", "pi", "ceiling".
const char* lockKindName(LockKind k);
/// @brief "TTAS spinlock", "pthread mutex", ... (for tables and the UI).
const char* lockKindLabel(LockKind k);
/// @brief Accepts the names above, case-insensitively, plus "spinlock", "glibc-adaptive", "prio-inherit",
/// "inherit", "protect".
std::optional<LockKind> parseLockKind(std::string_view name);
/// @brief The kinds that spin for a while before they sleep and report how often each happened.
bool isAdaptive(LockKind k);
/// @brief Every kind, in the order above.
const std::vector<LockKind>& allLockKinds();

/// @brief How an acquisition went.
enum class AcquirePath : uint8_t {
    Uncontended, ///< the first attempt took it
    Spun,        ///< the first attempt failed; won without entering the sleep (futex) path
    Slept,       ///< entered the sleep path (for the pthread kinds: the futex/kernel path)
};

/// @brief Why an adaptive waiter stopped spinning and went to sleep (rtscope's adaptive lock only).
enum class SleepReason : uint8_t {
    None,
    OwnerNotRunning, ///< the owner announced it was blocked
    OwnerOnThisCpu,  ///< the owner last ran on the waiter's CPU, so it cannot be running now
    SpinLimit,       ///< spun the configured number of iterations without winning
};

const char* acquirePathName(AcquirePath p); ///< "uncontended", "spun", "slept"
const char* sleepReasonName(SleepReason r); ///< "none", "owner-not-running", "owner-on-this-cpu", "spin-limit"

/// @brief What lock() reports. Small enough to be returned in registers.
struct Acquisition {
    AcquirePath path = AcquirePath::Uncontended;
    SleepReason reason = SleepReason::None;
    uint32_t spins = 0;  ///< spin iterations before winning or sleeping (spin and adaptive kinds)
    uint32_t sleeps = 0; ///< futex waits that really blocked (adaptive kind)
    int error = 0;       ///< errno of a refused pthread_mutex_lock (e.g. EINVAL above the ceiling): NOT held
};

/// @brief A mutual-exclusion lock. lock()/unlock() are called from the measured path: no allocation, no
/// logging, no syscall beyond the lock's own futex or scheduler calls.
class Lock {
public:
    virtual ~Lock() = default;
    virtual LockKind kind() const = 0;
    virtual Acquisition lock() = 0;
    [[nodiscard]] virtual bool tryLock() = 0;
    virtual void unlock() = 0;
};

/// @brief Tunables of the kinds that have any.
struct LockOptions {
    static constexpr int kDefaultSpinLimit = 10'000; ///< the RT patch's adaptive spin limit
    int spinLimit = kDefaultSpinLimit;               ///< rtscope adaptive: spin iterations before sleeping
    bool stealing = true;    ///< rtscope adaptive: a running waiter may take the lock ahead of sleeping ones
    int ceilingPriority = 0; ///< ceiling: the SCHED_FIFO priority a holder is raised to (1..99)
};

/// @brief Creates a lock of @p kind. Fails (null, with @p error set) when the kernel or glibc refuses the
/// attributes, e.g. a ceiling priority outside the SCHED_FIFO range.
std::unique_ptr<Lock> makeLock(LockKind kind, const LockOptions& options, Error* error = nullptr);

} // namespace rtscope
