#pragma once
/// @file What this machine and this process can do for real-time measurement.
#include <cstdint>
#include <string>
#include <vector>

namespace rtscope {

struct SystemProbe {
    std::string kernelRelease; ///< uname -r
    std::string kernelVersion; ///< uname -v
    std::string machine;       ///< uname -m
    std::string hostname;
    std::string preemptModel; ///< "PREEMPT_RT", "PREEMPT_DYNAMIC (full)", "PREEMPT", "voluntary", "none", "unknown"
    bool preemptRt = false;   ///< /sys/kernel/realtime == 1 or PREEMPT_RT in uname -v
    std::string scheduler;    ///< "EEVDF" (>= 6.6) or "CFS"
    bool fairServer = false;  ///< kernel >= 6.12: the deadline "fair server" guards SCHED_OTHER
    /// With fairServer: its runtime/period per online CPU, read from debugfs (readThrottleSettings), or one
    /// "not readable: <reason>" when no CPU's values can be read; empty without a fair server.
    std::vector<std::string> fairServerCpus;
    std::string clocksource;       ///< /sys/devices/system/clocksource/clocksource0/current_clocksource
    int64_t clockResolutionNs = 0; ///< clock_getres(CLOCK_MONOTONIC)
    int64_t timerSlackNs = 0;      ///< calling thread's timer slack
    int64_t rtRuntimeUs = 0;       ///< /proc/sys/kernel/sched_rt_runtime_us (-1 = no throttling)
    int64_t rtPeriodUs = 0;        ///< /proc/sys/kernel/sched_rt_period_us
    int64_t rlimitRtprioSoft = 0;  ///< RLIMIT_RTPRIO (-1 = unlimited)
    int64_t rlimitRtprioHard = 0;
    int64_t rlimitMemlockSoft = 0; ///< bytes, -1 = unlimited
    bool capSysNice = false;       ///< CAP_SYS_NICE in the effective set
    bool isRoot = false;
    bool rtAvailable = false;        ///< can this process create a SCHED_FIFO thread? (tried for real)
    std::string rtUnavailableReason; ///< one sentence with the fix, when !rtAvailable
    /// What gives this process real-time priority: "CAP_SYS_NICE", "rtprio limit" (RLIMIT_RTPRIO), empty when
    /// nothing does. The GUI sets "rtkit, priority ≤ N" when rtkit grants what the kernel refuses
    /// (ui/common/rtkit_client.h).
    std::string rtPath;
    std::vector<int> onlineCpus;      ///< /sys/devices/system/cpu/online
    std::vector<int> allowedCpus;     ///< sched_getaffinity of this process
    std::vector<int> isolatedCpus;    ///< /sys/devices/system/cpu/isolated
    std::vector<int> nohzFullCpus;    ///< /sys/devices/system/cpu/nohz_full
    bool virtualMachine = false;      ///< hypervisor flag in /proc/cpuinfo or DMI vendor
    std::string hypervisor;           ///< e.g. "KVM", "Firecracker", "" if unknown
    bool dmaLatencyAvailable = false; ///< /dev/cpu_dma_latency can be opened for writing
    std::string dmaLatencyReason;
    std::string cpuModel;

    /// @brief "yes: 50.00 ms of every 1.000 s on CPU 0; …" / "no (kernel < 6.12)", then the sentence that says what
    /// it is: the text of the "fair server" row of `rtscope probe` and of the System panel.
    std::string fairServerText() const;
    /// @brief fairServerText() without the explanation, and a reason it cannot read the values cut to "not
    /// readable": "yes: 50.00 ms of every 1.000 s on CPU 0; …" / "yes (values not readable)" / "no (kernel < 6.12)".
    /// For the System panel's one row, whose tooltip carries fairServerText().
    std::string fairServerSummary() const;
    /// @brief Multi-line "key: value" text, as printed by `rtscope probe` and the headers of exports.
    std::string toText() const;
};

/// @brief Reads everything above. Cheap enough (< 10 ms) to call at start and on demand.
SystemProbe probeSystem();

/// @brief Parses a sysfs CPU list ("0-3,5") into numbers; empty on an empty or malformed string.
std::vector<int> parseSysfsCpuList(const std::string& text);

} // namespace rtscope
