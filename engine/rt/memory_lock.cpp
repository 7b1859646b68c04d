#include "engine/rt/memory_lock.h"

#include "engine/rt/rt_environment.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace rtscope {

namespace {

struct LockBook {
    std::mutex mutex;
    bool allLocked = false;
    std::string allDetail; // why mlockall was not used, when it was tried or skipped
    size_t rangesLocked = 0;
    size_t bytesLocked = 0;
    size_t rangesFailed = 0;
    int lastRangeErrno = 0;
};

LockBook& book()
{
    static LockBook b;
    return b;
}

MemoryLockStatus statusLocked([[maybe_unused]] const LockBook& b)
{
    MemoryLockStatus s;
#ifdef RTSCOPE_SANITIZED
    s.detail = "skipped: sanitizer build";
    return s;
#endif
    if (b.allLocked) {
        s.mode = MemoryLockMode::All;
        s.detail = "mlockall(MCL_CURRENT|MCL_FUTURE)";
        return s;
    }
    if (b.rangesLocked > 0) {
        s.mode = MemoryLockMode::Ranges;
        s.detail = "mlock of stacks and rings (" + std::to_string(b.rangesLocked) + " ranges, " +
                   std::to_string(b.bytesLocked / 1024) + " KiB)";
    } else {
        s.detail = "not locked";
    }
    if (!b.allDetail.empty())
        s.detail += " (" + b.allDetail + ")";
    if (b.rangesFailed > 0)
        s.detail += "; " + std::to_string(b.rangesFailed) + " mlock failed: " + errnoName(b.lastRangeErrno);
    return s;
}

// Touch every page (read and write back the same byte) so the range is resident even if mlock() is refused; a
// read alone would map the shared zero page and fault again on the first write.
void touchPages(void* ptr, size_t bytes)
{
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    auto* p = static_cast<volatile unsigned char*>(ptr);
    for (size_t off = 0; off < bytes; off += page)
        p[off] = p[off];
    p[bytes - 1] = p[bytes - 1];
}

} // namespace

MemoryLockStatus lockAllMemory()
{
    LockBook& b = book();
    std::lock_guard lock(b.mutex);
#ifdef RTSCOPE_SANITIZED
    // ASan/TSan reserve terabytes of shadow address space: MCL_CURRENT would try to fault it all in (their
    // runtimes turn mlockall and mlock into no-ops for that reason, so nothing is locked in these builds).
    return statusLocked(b);
#else
    if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
        b.allLocked = true;
        b.allDetail.clear();
    } else {
        const int err = errno;
        b.allLocked = false;
        b.allDetail = "mlockall: " + errnoName(err);
        if (err == ENOMEM || err == EPERM)
            b.allDetail += " (RLIMIT_MEMLOCK too low; raise 'memlock' in /etc/security/limits.d or run as root)";
    }
    return statusLocked(b);
#endif
}

bool lockRange(void* ptr, size_t bytes)
{
    return lockRange(ptr, bytes, true);
}

bool lockRange(void* ptr, size_t bytes, bool prefault)
{
    if (ptr == nullptr || bytes == 0)
        return true;
    if (prefault)
        touchPages(ptr, bytes);
#ifdef RTSCOPE_SANITIZED
    return true; // the sanitizer's mlock interceptor would report success without locking anything
#endif
    const int rc = mlock(ptr, bytes);
    const int err = errno;
    LockBook& b = book();
    std::lock_guard lock(b.mutex);
    if (rc == 0) {
        ++b.rangesLocked;
        b.bytesLocked += bytes;
        return true;
    }
    ++b.rangesFailed;
    b.lastRangeErrno = err;
    errno = err;
    return false;
}

void unlockRange(void* ptr, size_t bytes)
{
    if (ptr == nullptr || bytes == 0 || munlock(ptr, bytes) != 0)
        return;
    LockBook& b = book();
    std::lock_guard lock(b.mutex);
    if (b.rangesLocked > 0) {
        --b.rangesLocked;
        b.bytesLocked -= std::min(b.bytesLocked, bytes);
    }
}

MemoryLockStatus memoryLockStatus()
{
    LockBook& b = book();
    std::lock_guard lock(b.mutex);
    return statusLocked(b);
}

void unlockAllMemory()
{
    munlockall();
    LockBook& b = book();
    std::lock_guard lock(b.mutex);
    b.allLocked = false;
    b.allDetail.clear();
    b.rangesLocked = 0;
    b.bytesLocked = 0;
    b.rangesFailed = 0;
    b.lastRangeErrno = 0;
}

} // namespace rtscope
