#pragma once
// Helpers shared by the lock lab's two configs (contention and inversion): the CPU rules of real-time threads.
// Internal to engine/experiments.
#include "engine/locks/lock.h"
#include "engine/rt/cpu_topology.h"

#include <vector>

namespace rtscope::locklab {

/// The CPU kept free of real-time lock-lab threads: the first usable CPU (CPU 0 on most machines), where the
/// UI, the collector and the watchdog run. -1 when nothing is usable.
inline int reservedCpu(const CpuTopology& cpus)
{
    for (int c : cpus.allowed)
        if (cpus.usable(c))
            return c;
    return -1;
}

/// Usable CPUs in ascending order.
inline std::vector<int> usableCpus(const CpuTopology& cpus)
{
    std::vector<int> out;
    for (int c : cpus.allowed)
        if (cpus.usable(c))
            out.push_back(c);
    return out;
}

} // namespace rtscope::locklab
