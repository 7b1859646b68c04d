#include "engine/rt/caller_affinity.h"

namespace rtscope {

std::vector<int> cpuList(const cpu_set_t& set)
{
    std::vector<int> out;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set))
            out.push_back(cpu);
    return out;
}

std::vector<int> callerCpus()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return {};
    return cpuList(set);
}

bool keepCallerOff(const std::vector<int>& avoid, cpu_set_t& previous)
{
    cpu_set_t original;
    CPU_ZERO(&original);
    if (sched_getaffinity(0, sizeof original, &original) != 0)
        return false;
    cpu_set_t set = original;
    for (int cpu : avoid)
        if (cpu >= 0 && cpu < CPU_SETSIZE)
            CPU_CLR(cpu, &set);
    if (CPU_COUNT(&set) == 0 || sched_setaffinity(0, sizeof set, &set) != 0)
        return false;
    previous = original;
    return true;
}

ScopedCallerAffinity::ScopedCallerAffinity(const std::vector<int>& avoid)
    : m_applied(keepCallerOff(avoid, m_previous))
{}

ScopedCallerAffinity::~ScopedCallerAffinity()
{
    if (m_applied)
        sched_setaffinity(0, sizeof m_previous, &m_previous);
}

} // namespace rtscope
