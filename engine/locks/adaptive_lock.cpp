#include "engine/locks/adaptive_lock.h"

#include "engine/locks/spin_lock.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35)) &&                              \
    (defined(__x86_64__) || defined(__aarch64__))
#include <sys/rseq.h>
#define RTSCOPE_HAVE_RSEQ 1
#endif

namespace rtscope {

namespace {

// The lock word is a set of flags; 0 is free.
constexpr uint32_t kFree = 0;
constexpr uint32_t kLocked = 1;  // held
constexpr uint32_t kWaiters = 2; // a sleeper may be queued on the futex: unlock must wake one
constexpr uint32_t kHandOff = 4; // no-steal mode: released to a woken sleeper, which has not claimed it yet

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) && std::atomic<uint32_t>::is_always_lock_free,
              "the futex syscall operates on the atomic's storage");

// FUTEX_*_PRIVATE: the lock never lives in shared memory, and private futexes skip the mm-wide hash lookup.
long futexWait(std::atomic<uint32_t>* word, uint32_t expected) noexcept
{
    return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

long futexWake(std::atomic<uint32_t>* word, int count) noexcept
{
    return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
}

// The CPU the calling thread runs on. glibc >= 2.35 registers an rseq area per thread in which the kernel keeps
// cpu_id current; reading it is a plain load, where sched_getcpu() (the vDSO) costs ~15 ns in a VM, on every
// acquisition. Falls back when rseq is not registered (e.g. GLIBC_TUNABLES=glibc.pthread.rseq=0).
int currentCpu() noexcept
{
#ifdef RTSCOPE_HAVE_RSEQ
    if (__rseq_size > 0) {
        const auto* area =
            reinterpret_cast<const struct rseq*>(static_cast<const char*>(__builtin_thread_pointer()) + __rseq_offset);
        const auto cpu = int(__atomic_load_n(&area->cpu_id, __ATOMIC_RELAXED));
        if (cpu >= 0)
            return cpu;
    }
#endif
    return sched_getcpu();
}

// What an owner publishes for the waiters of the locks it holds. The records live in static storage and are
// never freed, so a waiter that read a stale owner index reads a stale hint, never freed memory.
struct alignas(kCacheLine) OwnerRecord {
    std::atomic<int32_t> cpu{-1};
    std::atomic<uint32_t> blocked{0}; // nesting count: futex waits and BlockingScopes
    std::atomic<bool> inUse{false};
};

OwnerRecord g_records[AdaptiveLock::kMaxOwnerRecords];
std::atomic<uint32_t> g_nextRecord{0};

class RecordClaim {
public:
    RecordClaim()
    {
        const uint32_t start = g_nextRecord.fetch_add(1, std::memory_order_relaxed);
        for (int i = 0; i < AdaptiveLock::kMaxOwnerRecords; ++i) {
            const int idx = int((start + uint32_t(i)) % uint32_t(AdaptiveLock::kMaxOwnerRecords));
            bool expected = false;
            if (g_records[idx].inUse.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
                g_records[idx].blocked.store(0, std::memory_order_relaxed);
                g_records[idx].cpu.store(-1, std::memory_order_relaxed);
                m_index = idx;
                return;
            }
        }
    }
    ~RecordClaim()
    {
        if (m_index < 0)
            return;
        g_records[m_index].cpu.store(-1, std::memory_order_relaxed);
        g_records[m_index].blocked.store(0, std::memory_order_relaxed);
        g_records[m_index].inUse.store(false, std::memory_order_release);
    }
    RecordClaim(const RecordClaim&) = delete;
    RecordClaim& operator=(const RecordClaim&) = delete;
    int index() const { return m_index; }

private:
    int m_index = -1;
};

int myRecordIndex() noexcept
{
    // Claimed on a thread's first acquisition, released when the thread exits.
    thread_local RecordClaim claim;
    return claim.index();
}

OwnerRecord* myRecord() noexcept
{
    const int idx = myRecordIndex();
    return idx >= 0 ? &g_records[idx] : nullptr;
}

} // namespace

AdaptiveLock::AdaptiveLock(int spinLimit, bool stealing)
    : m_spinLimit(spinLimit < 0 ? 0 : spinLimit)
    , m_stealing(stealing)
{}

void AdaptiveLock::publishOwner() noexcept
{
    const int idx = myRecordIndex();
    if (idx >= 0)
        g_records[idx].cpu.store(currentCpu(), std::memory_order_relaxed);
    // Relaxed: the owner fields are hints for the spin decision; the lock word alone carries the ordering of
    // the critical sections.
    m_owner.store(idx, std::memory_order_relaxed);
}

bool AdaptiveLock::tryLock()
{
    uint32_t expected = kFree;
    if (!m_state.compare_exchange_strong(expected, kLocked, std::memory_order_acquire, std::memory_order_relaxed))
        return false;
    publishOwner();
    return true;
}

Acquisition AdaptiveLock::lock()
{
    uint32_t expected = kFree;
    if (m_state.compare_exchange_strong(expected, kLocked, std::memory_order_acquire, std::memory_order_relaxed)) {
        publishOwner();
        return {};
    }

    Acquisition a;
    a.path = AcquirePath::Slept;
    a.reason = SleepReason::SpinLimit;
    int myCpu = currentCpu();
    const auto limit = uint32_t(m_spinLimit);
    while (a.spins < limit) {
        uint32_t s = m_state.load(std::memory_order_relaxed);
        if (s == kFree) {
            if (m_state.compare_exchange_weak(s, kLocked, std::memory_order_acquire, std::memory_order_relaxed)) {
                a.path = AcquirePath::Spun;
                a.reason = SleepReason::None;
                publishOwner();
                return a;
            }
            ++a.spins;
            continue;
        }
        // An owner of -1 is a lock between owners (just taken, or being handed over): keep spinning briefly.
        const int32_t owner = m_owner.load(std::memory_order_relaxed);
        if (owner >= 0) {
            const OwnerRecord& r = g_records[owner];
            if (r.blocked.load(std::memory_order_relaxed) != 0) {
                a.reason = SleepReason::OwnerNotRunning;
                break;
            }
            if (myCpu >= 0 && r.cpu.load(std::memory_order_relaxed) == myCpu) {
                a.reason = SleepReason::OwnerOnThisCpu;
                break;
            }
        }
        cpuRelax();
        ++a.spins;
        if ((a.spins & 255) == 0)
            myCpu = currentCpu(); // an unpinned waiter may have migrated
    }
    return sleepPath(a);
}

Acquisition AdaptiveLock::sleepPath(Acquisition a) noexcept
{
    // While this thread sleeps, waiters of locks it already holds must not spin on it.
    OwnerRecord* me = myRecord();
    if (me)
        me->blocked.fetch_add(1, std::memory_order_relaxed);
    bool woken = false;
    for (;;) {
        uint32_t s = m_state.load(std::memory_order_relaxed);
        // A hand-off belongs to the sleepers: only a thread that was woken may claim it, never one that just
        // arrived (such as the previous owner coming back for more).
        if (s == kFree || ((s & kHandOff) && woken)) {
            // Taken with the waiters flag: others may still be queued, and only the flag makes the next unlock
            // wake one of them.
            if (m_state.compare_exchange_weak(s, kLocked | kWaiters, std::memory_order_acquire,
                                              std::memory_order_relaxed))
                break;
            continue;
        }
        if (!(s & kWaiters)) {
            if (!m_state.compare_exchange_weak(s, s | kWaiters, std::memory_order_relaxed, std::memory_order_relaxed))
                continue;
            s |= kWaiters;
        }
        // Returns at once (EAGAIN) when the word is no longer s: an unlock raced us and we look again.
        if (futexWait(&m_state, s) == 0) {
            ++a.sleeps;
            woken = true;
        }
    }
    if (me)
        me->blocked.fetch_sub(1, std::memory_order_relaxed);
    publishOwner();
    return a;
}

void AdaptiveLock::unlock()
{
    m_owner.store(-1, std::memory_order_relaxed);
    if (m_stealing) {
        if (m_state.exchange(kFree, std::memory_order_release) & kWaiters)
            futexWake(&m_state, 1);
        return;
    }
    uint32_t s = kLocked;
    if (m_state.compare_exchange_strong(s, kFree, std::memory_order_release, std::memory_order_relaxed))
        return;
    // Sleepers announced themselves. While we hold the lock with that flag set nobody else may change the word,
    // so a plain store hands it over; the woken sleeper claims it (and sets the flag again for the others).
    m_state.store(kLocked | kHandOff, std::memory_order_release);
    if (futexWake(&m_state, 1) > 0)
        return;
    // Nobody was queued after all: free it, unless a thread woken earlier has claimed it meanwhile (then it is
    // no longer ours to touch).
    uint32_t h = kLocked | kHandOff;
    while (h & kHandOff) {
        if (m_state.compare_exchange_weak(h, kFree, std::memory_order_release, std::memory_order_relaxed)) {
            // Someone announced itself after our wake and may be queued by now: wake it to compete for the lock.
            if (h & kWaiters)
                futexWake(&m_state, 1);
            return;
        }
    }
}

AdaptiveLock::BlockingScope::BlockingScope() noexcept
{
    if (OwnerRecord* me = myRecord())
        me->blocked.fetch_add(1, std::memory_order_relaxed);
}

AdaptiveLock::BlockingScope::~BlockingScope()
{
    if (OwnerRecord* me = myRecord())
        me->blocked.fetch_sub(1, std::memory_order_relaxed);
}

} // namespace rtscope
