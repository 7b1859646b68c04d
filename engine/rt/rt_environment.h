#pragma once
/// @file Small readers of /proc and /sys shared by the RT thread launcher and the system probe: privileges,
/// limits, RT budgets and the CPUs a new thread may be pinned to.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rtscope {

/// @brief First line of a text file without its trailing newline; empty when unreadable.
std::string readFirstLine(const std::string& path);
/// @brief A file holding one integer (sysctl, cgroup knob); nullopt when unreadable or not a number.
std::optional<int64_t> readIntegerFile(const std::string& path);

/// @brief Whether capability number @p cap (e.g. 23 = CAP_SYS_NICE) is in this process's effective set.
bool hasEffectiveCapability(int cap);
inline constexpr int kCapSysNice = 23; ///< linux/capability.h
inline constexpr int kCapIpcLock = 14;

/// @brief getrlimit() with RLIM_INFINITY reported as -1.
struct Limit {
    int64_t soft = 0;
    int64_t hard = 0;
};
Limit resourceLimit(int resource);

/// @brief The cpu.rt_runtime_us knob of this process's cpu cgroup, when RT group scheduling exposes one.
struct RtGroupBudget {
    std::string file;
    int64_t runtimeUs = 0;
};
std::optional<RtGroupBudget> cgroupRtBudget();

/// @brief Online CPUs (/sys/devices/system/cpu/online).
std::vector<int> onlineCpuList();
/// @brief CPUs a new thread of this process may be pinned to: the cpuset's effective CPUs (what the kernel
/// checks in sched_setaffinity), falling back to the process's affinity; always within the online CPUs.
std::vector<int> cpusForNewThreads();

/// @brief "EPERM" for EPERM; the number when the name is unknown.
std::string errnoName(int err);

} // namespace rtscope
