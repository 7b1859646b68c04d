#pragma once
/// @file The system facts the doctor diagnoses with (docs/doctor.md, "Facts"): the probe's (preemption model, RT
/// throttling, isolated and nohz_full CPUs, virtual machine) and what the knobs act on — interrupts and their
/// affinities and counts on the measured CPU, the threads that may run there, idle states, THP, timer migration,
/// watchdogs, the workqueue mask, SMT siblings, the cpuset hierarchies. Read through a RootFs, so a test reads a fake
/// tree; plain data, so the diagnosis's tests build them by hand.
#include "engine/doctor/cpuset_partition.h"
#include "engine/doctor/root_fs.h"
#include "engine/rt/system_probe.h"
#include "engine/rt/system_threads.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rtscope::doctor {

/// @brief One line of /proc/interrupts with its affinity.
struct IrqFact {
    int irq = -1;                 ///< -1: an architecture's vector row ("LOC", "RES"), named by `name`
    std::string name;             ///< the device's action name ("virtio1-req.0"), or the row's description
    std::string chip;             ///< "PCI-MSIX-0000:00:02.0 1-edge"
    std::string affinity;         ///< smp_affinity_list ("0-1"); empty for a vector row
    std::string effective;        ///< effective_affinity_list: where it is delivered now
    std::vector<uint64_t> counts; ///< by CPU index as /proc/interrupts columns them
    uint64_t runCount = 0;        ///< on the measured CPU during the baseline (the doctor's loop fills it)
};

/// @brief An idle state of the measured CPU.
struct IdleStateFact {
    int index = 0;
    std::string name;
    int64_t exitLatencyUs = 0;
    bool disabled = false;
};

/// @brief One DAMON monitor (/sys/kernel/mm/damon/admin/kdamonds/N). Its kdamond samples memory by clearing accessed
/// bits in every page table that maps a sampled page; on a virtual machine a measuring thread stalls after each sample
/// in proportion to its process's resident memory (docs/BENCHMARKS.md, "The far tail").
struct DamonFact {
    int index = -1;
    std::string state;      ///< "on", "off"
    std::string operations; ///< of its first context: "paddr" (physical memory), "vaddr", "fvaddr"
    int64_t sampleUs = -1;  ///< its first context's sampling interval; -1 unreadable
    /// @brief "kdamond 0 on: paddr, a sample every 500 ms".
    std::string text() const;
};

struct MachineFacts {
    int cpu = -1; ///< the measured CPU these facts were read for
    SystemProbe probe;
    std::string preemptMode;     ///< debugfs sched/preempt's current word, "" when not readable
    std::string preemptModeNote; ///< why it is not readable
    std::string cmdline;         ///< /proc/cmdline
    std::vector<IrqFact> irqs;
    std::vector<SystemThread> threads; ///< every thread allowed on the measured CPU or last run there
    std::string idleDriver;            ///< cpuidle current_driver ("none" in most VMs)
    std::string idleGovernor;
    std::vector<IdleStateFact> idleStates;
    std::string cpufreqGovernor; ///< "" when there is no cpufreq
    std::string thpEnabled;      ///< "always", "madvise", "never"
    std::string thpDefrag;
    std::vector<DamonFact> damon; ///< every kdamond the DAMON sysfs interface lists (none without DAMON)
    int timerMigration = -1;      ///< kernel.timer_migration; -1 unreadable
    int nmiWatchdog = -1;
    int softWatchdog = -1;
    std::string watchdogCpumask;  ///< a CPU list
    std::string workqueueCpumask; ///< a CPU list
    std::vector<int> smtSiblings; ///< the measured CPU's thread siblings (itself included)
    CpusetHierarchies cpusets;
    bool cpuInPartition = false; ///< the measured CPU is already in a rtscope/isolated partition or isolcpus
};

/// @brief Reads the facts for @p cpu from @p fs (its /proc and /sys). The probe is this process's own (SystemProbe
/// reads the real machine); a fake root replaces everything else.
MachineFacts readMachineFacts(const RootFs& fs, int cpu);

/// @brief /proc/interrupts parsed (every row, vectors included).
std::vector<IrqFact> parseInterrupts(const std::string& text);

/// @brief For each row of @p after (same index), the interrupts counted on @p cpu since @p before.
std::vector<uint64_t> interruptsSince(const std::vector<IrqFact>& before, const std::vector<IrqFact>& after, int cpu);

} // namespace rtscope::doctor
