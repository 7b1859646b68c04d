#include "engine/rt/cpu_topology.h"

#include "engine/rt/rt_environment.h"
#include "engine/rt/system_probe.h"

#include <algorithm>
#include <sched.h>

namespace rtscope {

CpuTopology CpuTopology::current()
{
    std::vector<int> mask;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &set))
                mask.push_back(cpu);
    return forAllowed(mask);
}

CpuTopology CpuTopology::forAllowed(const std::vector<int>& allowed)
{
    CpuTopology t;
    t.online = parseSysfsCpuList(readFirstLine("/sys/devices/system/cpu/online"));
    t.isolated = parseSysfsCpuList(readFirstLine("/sys/devices/system/cpu/isolated"));
    for (int cpu : allowed)
        if (t.online.empty() || std::binary_search(t.online.begin(), t.online.end(), cpu))
            t.allowed.push_back(cpu);
    std::sort(t.allowed.begin(), t.allowed.end());
    t.allowed.erase(std::unique(t.allowed.begin(), t.allowed.end()), t.allowed.end());
    if (t.online.empty())
        t.online = t.allowed;
    return t;
}

bool CpuTopology::usable(int cpu) const
{
    return std::binary_search(online.begin(), online.end(), cpu) &&
           std::binary_search(allowed.begin(), allowed.end(), cpu);
}

int CpuTopology::lastUsable() const
{
    for (auto it = allowed.rbegin(); it != allowed.rend(); ++it)
        if (usable(*it))
            return *it;
    return -1;
}

int CpuTopology::otherThan(const std::vector<int>& avoid) const
{
    for (int cpu : allowed)
        if (usable(cpu) && std::find(avoid.begin(), avoid.end(), cpu) == avoid.end())
            return cpu;
    return -1;
}

std::string CpuTopology::usableText() const
{
    std::vector<int> u;
    for (int cpu : allowed)
        if (usable(cpu))
            u.push_back(cpu);
    return formatCpuList(u);
}

bool checkCpuList(std::vector<std::string>& out, const char* field, const std::vector<int>& cpus,
                  const CpuTopology& topology)
{
    std::vector<int> unusable, repeated;
    for (size_t i = 0; i < cpus.size(); ++i) {
        if (!topology.usable(cpus[i]))
            unusable.push_back(cpus[i]);
        if (std::find(cpus.begin(), cpus.begin() + long(i), cpus[i]) != cpus.begin() + long(i))
            repeated.push_back(cpus[i]);
    }
    for (std::vector<int>* v : {&unusable, &repeated}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    if (!unusable.empty())
        out.push_back(std::string(field) + " must list online CPUs this process may use (" + topology.usableText() +
                      "); got " + formatCpuList(unusable));
    if (!repeated.empty())
        out.push_back(std::string(field) + " lists CPU " + formatCpuList(repeated) + " more than once");
    return unusable.empty() && repeated.empty();
}

std::string formatCpuList(const std::vector<int>& cpus)
{
    std::ostringstream out;
    for (size_t i = 0; i < cpus.size();) {
        size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
            ++j;
        if (i)
            out << ',';
        out << cpus[i];
        if (j > i)
            out << '-' << cpus[j];
        i = j + 1;
    }
    return out.str();
}

std::string formatCpuListOrNone(const std::vector<int>& cpus)
{
    return cpus.empty() ? "none" : formatCpuList(cpus);
}

} // namespace rtscope
