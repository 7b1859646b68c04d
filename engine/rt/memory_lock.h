#pragma once
/// @file Locking the RT path's memory, with an honest report of what was locked.
#include <cstddef>
#include <string>

namespace rtscope {

enum class MemoryLockMode { None, All, Ranges };

struct MemoryLockStatus {
    MemoryLockMode mode = MemoryLockMode::None;
    std::string detail; ///< e.g. "mlockall(MCL_CURRENT|MCL_FUTURE)", "mlock of stacks and rings (mlockall: EPERM)"
};

/// @brief Tries mlockall(MCL_CURRENT|MCL_FUTURE). Skipped (and said so) in sanitizer builds, where it would
/// fault in the shadow memory. Returns the resulting process-wide status.
MemoryLockStatus lockAllMemory();
/// @brief mlock() of one range (a ring, a stack); pre-faults it first. Returns false with errno kept.
bool lockRange(void* ptr, size_t bytes);
/// @brief As above; with @p prefault false the range is not touched first (memory the caller has just
/// touched itself, such as a thread's pre-faulted stack, where a touch could hit a sanitizer redzone).
bool lockRange(void* ptr, size_t bytes, bool prefault);
/// @brief munlock() of a range locked with lockRange() (a thread stack that is about to be reused).
void unlockRange(void* ptr, size_t bytes);
/// @brief The status recorded by the last lockAllMemory()/lockRange() calls, for reports.
MemoryLockStatus memoryLockStatus();
void unlockAllMemory();

} // namespace rtscope
