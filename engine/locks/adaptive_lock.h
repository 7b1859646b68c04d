#pragma once
/// @file rtscope's adaptive lock, after the PREEMPT_RT patch's adaptive spinning (docs/experiments/locks.md): spin only
/// while the owner is running on another CPU, give up after a spin limit, otherwise sleep on a futex.
#include "engine/locks/lock.h"
#include "engine/pipeline/spsc_ring.h"

#include <atomic>
#include <cstdint>

namespace rtscope {

/// @brief A futex lock whose waiters spin while spinning can pay off.
///
/// The kernel version looks at the owner's task (`on_cpu`); user space cannot, so every thread that takes an
/// AdaptiveLock publishes what it knows in a per-thread record: the CPU it acquired on (the cpu_id the kernel
/// keeps in the thread's rseq area: a plain load, no syscall) and whether it is blocked. A thread is "blocked" while it
/// sleeps in an AdaptiveLock's futex wait and inside a BlockingScope (wrap any sleep taken while holding the lock). A
/// waiter spins only while the owner is not blocked and last ran on a different CPU than the waiter's own: an owner on
/// the waiter's CPU cannot be running, because the waiter is. An owner that was preempted on another CPU is invisible
/// from user space; the spin limit bounds that case.
///
/// Lock word (after Drepper, "Futexes are tricky", mutex 3): flags locked, waiters (a sleeper may be queued:
/// unlock must wake one) and handed-off; 0 is free.
///
/// Stealing (default on, as in the RT patch's lateral steal and in Drepper's mutex): unlock frees the word
/// and wakes one sleeper, and any running thread may take the lock first. Without stealing, unlock hands the
/// lock to the woken sleeper (it stays locked, flagged handed-off, until that sleeper claims it), so a thread
/// that releases and immediately re-locks waits its turn: fairer, slower.
class AdaptiveLock final : public Lock {
public:
    explicit AdaptiveLock(int spinLimit = LockOptions::kDefaultSpinLimit, bool stealing = true);
    AdaptiveLock(const AdaptiveLock&) = delete;
    AdaptiveLock& operator=(const AdaptiveLock&) = delete;

    LockKind kind() const override { return LockKind::Adaptive; }
    Acquisition lock() override;
    [[nodiscard]] bool tryLock() override;
    void unlock() override;

    int spinLimit() const { return m_spinLimit; }
    bool stealing() const { return m_stealing; }

    /// @brief Marks the calling thread as not running for waiters of every AdaptiveLock it holds, for as long
    /// as the scope lives: wrap a sleep, a blocking read or a condition wait taken inside a critical section.
    class BlockingScope {
    public:
        BlockingScope() noexcept;
        ~BlockingScope();
        BlockingScope(const BlockingScope&) = delete;
        BlockingScope& operator=(const BlockingScope&) = delete;
    };

    /// @brief How many threads may have published an owner record at once; later ones are "unknown
    /// owners", which waiters treat as running (they spin up to the limit).
    static constexpr int kMaxOwnerRecords = 1024;

private:
    void publishOwner() noexcept;
    Acquisition sleepPath(Acquisition a) noexcept;

    alignas(kCacheLine) std::atomic<uint32_t> m_state{0};
    std::atomic<int32_t> m_owner{-1}; ///< owner record index, -1 while free or being handed over
    const int m_spinLimit;
    const bool m_stealing;
};

} // namespace rtscope
