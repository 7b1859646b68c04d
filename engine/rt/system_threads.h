#pragma once
/// @file The machine's real-time threads and interrupt threads, read from /proc (docs/workbench.md, RT threads:
/// where does my thread's priority fall among the kernel's?). rtscope only reads; it never changes another process.
#include "engine/rt/sched_policy.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace rtscope {

struct SystemThread {
    pid_t pid = 0;
    pid_t tid = 0;
    std::string name;     ///< comm
    int kernelPolicy = 0; ///< SCHED_* as the kernel reports it (SCHED_DEADLINE = 6 included)
    std::string policy;   ///< "FIFO", "RR", "OTHER", "BATCH", "IDLE", "DEADLINE"
    int rtPriority = 0;   ///< 1..99 for FIFO/RR, 0 otherwise
    int nice = 0;
    std::string allowedCpus; ///< Cpus_allowed_list, e.g. "0-1"
    int lastCpu = -1;        ///< the CPU it last ran on (stat field 39)
    /// When it started, in clock ticks since boot (stat field 22): a TID is reused once its thread has gone, and the
    /// start time tells the two apart.
    unsigned long long startTime = 0;
    char state = '?'; ///< R, S, D, I, …
    bool kernelThread = false;
    bool interruptRelated = false; ///< irq/…, ksoftirqd/…, rcu…, migration/…, watchdog/…

    bool realtime() const { return kernelPolicy == 1 || kernelPolicy == 2; }
    /// @brief The chrt command that sets this thread's current policy and priority (to reproduce or adapt).
    std::string chrtCommand() const;
    /// @brief The taskset command that sets this thread's current CPU affinity.
    std::string tasksetCommand() const;
};

/// @brief Reads every thread in /proc. With @p interestingOnly, keeps threads whose policy is not
/// SCHED_OTHER plus the interrupt-related kernel threads. Threads that vanish while being read are skipped.
std::vector<SystemThread> listSystemThreads(bool interestingOnly = true, const std::string& procRoot = "/proc");

/// @brief Where a thread of @p policy/@p priority would run among @p threads, in words: "FIFO 80: above 3
/// RT threads (highest below: irq/9-acpi at 50), below 2 (lowest above: migration/0 at 99)".
std::string describePlacement(const std::vector<SystemThread>& threads, Policy policy, int priority);

/// @brief The name of rtscope's measuring thread (latency and sweep), as /proc/<pid>/task/<tid>/comm shows it.
inline constexpr const char* kMeasuringThreadName = "rtscope-measure";

/// @brief The threads named @p name of processes other than @p excludePid that may run on one of @p cpus (by
/// Cpus_allowed_list) or last ran there: another rtscope measuring on a CPU this run measures. Reads only the comm
/// of the other threads, so it is cheap enough to call at every start.
std::vector<SystemThread> threadsNamedOnCpus(const std::string& name, const std::vector<int>& cpus, pid_t excludePid,
                                             const std::string& procRoot = "/proc");

/// @brief One sentence per other process whose measuring thread (kMeasuringThreadName) may run on, or last ran on,
/// one of @p cpus: "another rtscope (PID 1234) is measuring on CPU 1 as well; the two runs disturb each other …".
/// Two runs on one CPU each delay the other's wake-ups, and neither would know why it counts more latency and
/// skipped periods. Empty when there is none.
std::vector<std::string> otherMeasurementWarnings(const std::vector<int>& cpus, pid_t self);

/// @brief Parses one /proc/<pid>/task/<tid>/stat line (the comm may contain spaces and parentheses).
bool parseProcStat(const std::string& line, SystemThread& out);

} // namespace rtscope
