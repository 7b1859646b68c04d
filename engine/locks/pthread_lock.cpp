#include "engine/locks/pthread_lock.h"

#include "engine/rt/rt_environment.h"

#include <cerrno>
#include <cstring>
#include <string>

namespace rtscope {

namespace {

Error attrError(LockKind kind, const char* call, int rc)
{
    return {rc == EINVAL ? ErrorKind::InvalidConfig : ErrorKind::System,
            std::string("Cannot create a ") + lockKindLabel(kind) + ": " + call + " failed with " + errnoName(rc) +
                " (" + std::strerror(rc) + ")."};
}

} // namespace

PthreadLock::PthreadLock(LockKind kind)
    : m_kind(kind)
    , m_mutex{}
{}

PthreadLock::~PthreadLock()
{
    if (m_initialised)
        pthread_mutex_destroy(&m_mutex);
}

std::unique_ptr<PthreadLock> PthreadLock::create(LockKind kind, int ceilingPriority, Error& error)
{
    if (kind != LockKind::Mutex && kind != LockKind::AdaptiveGlibc && kind != LockKind::Pi &&
        kind != LockKind::Ceiling) {
        error = {ErrorKind::InvalidConfig, std::string("a ") + lockKindLabel(kind) + " is not a pthread mutex"};
        return nullptr;
    }
    std::unique_ptr<PthreadLock> lock(new PthreadLock(kind));
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    int rc = 0;
    const char* call = "";
    if (kind == LockKind::AdaptiveGlibc) {
        call = "pthread_mutexattr_settype(PTHREAD_MUTEX_ADAPTIVE_NP)";
        rc = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    } else if (kind == LockKind::Pi) {
        call = "pthread_mutexattr_setprotocol(PTHREAD_PRIO_INHERIT)";
        rc = pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
    } else if (kind == LockKind::Ceiling) {
        call = "pthread_mutexattr_setprotocol(PTHREAD_PRIO_PROTECT)";
        rc = pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_PROTECT);
        if (rc == 0) {
            call = "pthread_mutexattr_setprioceiling";
            rc = pthread_mutexattr_setprioceiling(&attr, ceilingPriority);
        }
    }
    if (rc == 0) {
        call = "pthread_mutex_init";
        rc = pthread_mutex_init(&lock->m_mutex, &attr);
    }
    pthread_mutexattr_destroy(&attr);
    if (rc != 0) {
        error = attrError(kind, call, rc);
        if (kind == LockKind::Ceiling && rc == EINVAL)
            error.message += " The ceiling must be a SCHED_FIFO priority between 1 and 99 (got " +
                             std::to_string(ceilingPriority) + ").";
        return nullptr;
    }
    lock->m_initialised = true;
    return lock;
}

Acquisition PthreadLock::lock()
{
    Acquisition a;
    // The ceiling's trylock changes the priority twice when it fails: go straight to the real call.
    if (m_kind != LockKind::Ceiling && pthread_mutex_trylock(&m_mutex) == 0)
        return a;
    a.path = AcquirePath::Slept;
    if (const int rc = pthread_mutex_lock(&m_mutex); rc != 0) {
        a.error = rc;
        return a;
    }
    if (m_kind == LockKind::Ceiling) {
        a.path = AcquirePath::Uncontended; // not observable: the wait happens as a priority change
        return a;
    }
#ifdef __GLIBC__
    if (m_kind == LockKind::Mutex || m_kind == LockKind::AdaptiveGlibc) {
        // glibc's own lock word (struct __pthread_mutex_s, public for the static initialisers): 1 = taken by a
        // compare-and-swap, 2 = taken in __lll_lock_wait. Atomic load: other waiters may be setting it to 2.
        if (__atomic_load_n(&m_mutex.__data.__lock, __ATOMIC_RELAXED) == 1)
            a.path = AcquirePath::Spun;
    }
#endif
    return a;
}

bool PthreadLock::tryLock()
{
    return pthread_mutex_trylock(&m_mutex) == 0;
}

void PthreadLock::unlock()
{
    pthread_mutex_unlock(&m_mutex);
}

} // namespace rtscope
