#pragma once
/// @file Busy work measured in the calling thread's own running time, from its own clock reads: the critical
/// sections and bursts of the lock lab. No syscall (the clock is read through the vDSO).
#include "engine/util/clock.h"

#include <atomic>
#include <cstdint>

namespace rtscope {

/// @brief Two consecutive clock reads of a spinning thread further apart than this mean it was not running in
/// between (preempted, or its vCPU descheduled). A read costs tens of nanoseconds and an interrupt a few
/// microseconds, so 20 µs separates "ran" from "did not run" with a wide margin on both sides.
inline constexpr int64_t kOffCpuGapNs = 20'000;

/// @brief Spins until the thread has run for @p workNs since @p startNs (a clock read the caller just made).
/// Gaps longer than kOffCpuGapNs do not count as work, so a preempted critical section really lasts its
/// length of CPU work, as a real one would; each gap is reported to @p onGap(fromNs, toNs). Returns early when
/// @p stop becomes true. Returns the last clock read.
template <class OnGap>
inline int64_t busyWork(int64_t startNs, int64_t workNs, const std::atomic<bool>* stop, OnGap&& onGap)
{
    int64_t last = startNs;
    int64_t done = 0;
    while (done < workNs) {
        const int64_t now = nowNs();
        const int64_t step = now - last;
        if (step > kOffCpuGapNs)
            onGap(last, now);
        else
            done += step;
        last = now;
        if (stop && stop->load(std::memory_order_relaxed))
            break;
    }
    return last;
}

inline int64_t busyWork(int64_t startNs, int64_t workNs, const std::atomic<bool>* stop = nullptr)
{
    return busyWork(startNs, workNs, stop, [](int64_t, int64_t) {});
}

} // namespace rtscope
