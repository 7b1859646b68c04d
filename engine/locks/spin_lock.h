#pragma once
/// @file A test-and-test-and-set spinlock with pause and bounded exponential backoff: the spinning end of
/// the lock lab (docs/experiments/locks.md). Waiters never sleep; they burn their CPU while the holder works.
#include "engine/locks/lock.h"
#include "engine/pipeline/spsc_ring.h"

#include <atomic>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace rtscope {

/// @brief One spin-wait hint: tells the core this is a busy-wait loop (x86 PAUSE, Arm YIELD), which saves
/// power, frees the sibling hyper-thread and avoids the memory-order mis-speculation flush on exit.
inline void cpuRelax() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__) || defined(__arm__)
    asm volatile("yield" ::: "memory");
#else
    asm volatile("" ::: "memory");
#endif
}

/// @brief TTAS spinlock. Waiters read the flag (a shared cache line, no traffic while it is held) and only
/// try the atomic exchange when it looks free; after losing such a race they back off exponentially
/// (1, 2, 4 … kMaxBackoff pauses), so a crowd of waiters does not hammer the line the moment it is released.
class SpinLock final : public Lock {
public:
    static constexpr uint32_t kMaxBackoff = 64;

    SpinLock() = default;
    SpinLock(const SpinLock&) = delete;
    SpinLock& operator=(const SpinLock&) = delete;

    LockKind kind() const override { return LockKind::Spin; }

    Acquisition lock() override
    {
        if (!m_locked.exchange(true, std::memory_order_acquire))
            return {};
        Acquisition a;
        a.path = AcquirePath::Spun;
        uint32_t backoff = 1;
        for (;;) {
            while (m_locked.load(std::memory_order_relaxed)) {
                cpuRelax();
                ++a.spins;
            }
            if (!m_locked.exchange(true, std::memory_order_acquire))
                return a;
            for (uint32_t i = 0; i < backoff; ++i)
                cpuRelax();
            a.spins += backoff;
            if (backoff < kMaxBackoff)
                backoff *= 2;
        }
    }

    [[nodiscard]] bool tryLock() override
    {
        return !m_locked.load(std::memory_order_relaxed) && !m_locked.exchange(true, std::memory_order_acquire);
    }

    void unlock() override { m_locked.store(false, std::memory_order_release); }

private:
    // On its own cache line: the lock word is the hottest line of a contention run and must not share it with
    // whatever the owner of this object keeps next to it.
    alignas(kCacheLine) std::atomic<bool> m_locked{false};
};

} // namespace rtscope
