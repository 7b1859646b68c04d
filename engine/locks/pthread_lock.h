#pragma once
/// @file glibc's mutexes as lock-lab kinds: plain (futex), adaptive (PTHREAD_MUTEX_ADAPTIVE_NP), priority
/// inheritance (PTHREAD_PRIO_INHERIT) and priority ceiling (PTHREAD_PRIO_PROTECT).
#include "engine/locks/lock.h"

#include <memory>
#include <pthread.h>

namespace rtscope {

/// @brief A pthread mutex of one of the kinds Mutex, AdaptiveGlibc, Pi or Ceiling.
///
/// lock() first tries pthread_mutex_trylock (no syscall for any of these kinds except the ceiling, whose
/// every lock and unlock changes the thread's priority) to tell an uncontended acquisition from a contended
/// one. For the futex kinds (plain and adaptive) it then reads glibc's lock word right after winning: 1 means
/// the thread won with a trylock (glibc's adaptive spin), 2 means it went through the futex path, which
/// stores 2. A waiter announcing itself in the few nanoseconds between the acquisition and that read can make
/// one "spun" look "slept". PI and ceiling waiters always go to the kernel.
class PthreadLock final : public Lock {
public:
    /// @brief Null with @p error set when glibc refuses the attributes (e.g. a ceiling outside 1..99).
    static std::unique_ptr<PthreadLock> create(LockKind kind, int ceilingPriority, Error& error);
    ~PthreadLock() override;
    PthreadLock(const PthreadLock&) = delete;
    PthreadLock& operator=(const PthreadLock&) = delete;

    LockKind kind() const override { return m_kind; }
    Acquisition lock() override;
    [[nodiscard]] bool tryLock() override;
    void unlock() override;

private:
    explicit PthreadLock(LockKind kind);

    const LockKind m_kind;
    pthread_mutex_t m_mutex;
    bool m_initialised = false;
};

} // namespace rtscope
