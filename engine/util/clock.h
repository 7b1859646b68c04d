#pragma once
/// @file Monotonic time helpers shared by every experiment.
#include <cstdint>
#include <ctime>

namespace rtscope {

inline constexpr int64_t kNsPerUs = 1000;
inline constexpr int64_t kNsPerMs = 1000 * 1000;
inline constexpr int64_t kNsPerSec = 1000 * 1000 * 1000;

/// @brief CLOCK_MONOTONIC now, in nanoseconds (vDSO: no syscall).
inline int64_t nowNs() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

inline timespec toTimespec(int64_t ns) noexcept
{
    timespec ts;
    ts.tv_sec = time_t(ns / kNsPerSec);
    ts.tv_nsec = long(ns % kNsPerSec);
    if (ts.tv_nsec < 0) {
        ts.tv_nsec += kNsPerSec;
        --ts.tv_sec;
    }
    return ts;
}

inline int64_t fromTimespec(const timespec& ts) noexcept
{
    return int64_t(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

/// @brief CPU time consumed by the calling thread, in nanoseconds.
inline int64_t threadCpuNs() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return fromTimespec(ts);
}

} // namespace rtscope
