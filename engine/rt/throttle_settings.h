#pragma once
/// @file The kernel's safety nets against a real-time task that never blocks, as far as this process can read
/// them: RT throttling (/proc/sys/kernel/sched_rt_{runtime,period}_us) and, on kernels >= 6.12, the fair
/// server (/sys/kernel/debug/sched/fair_server/cpuN/{runtime,period}). Nothing here is guessed: a value that
/// cannot be read stays empty and the note says why.
#include <cstdint>
#include <optional>
#include <string>

namespace rtscope {

struct ThrottleSettings {
    std::optional<int64_t> rtRuntimeUs; ///< sched_rt_runtime_us; -1 = RT throttling disabled
    std::optional<int64_t> rtPeriodUs;  ///< sched_rt_period_us
    std::string kernelRelease;
    bool fairServerKernel = false; ///< the release is >= 6.12, where the fair server exists
    int cpu = -1;                  ///< the CPU whose fair server was read
    std::optional<int64_t> fairServerRuntimeNs;
    std::optional<int64_t> fairServerPeriodNs;
    std::string fairServerNote; ///< where the values came from, or why they could not be read

    /// @brief "950000 us of every 1000000 us (non-RT tasks keep 50.00 ms per 1.000 s)", "disabled (-1)",
    /// or "not readable".
    std::string rtThrottlingText() const;
    /// @brief "50.00 ms of every 1.000 s on CPU 1", or the note when it could not be read.
    std::string fairServerText() const;
};

/// @brief Reads both settings for @p cpu. Never mounts anything: debugfs is often not mounted (or not
/// readable), and the note then names the command that would make it readable.
ThrottleSettings readThrottleSettings(int cpu);

} // namespace rtscope
