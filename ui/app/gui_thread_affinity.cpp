#include "ui/app/gui_thread_affinity.h"

#include <algorithm>
#include <optional>
#include <sched.h>

namespace rtscope {

namespace {
// GUI-thread state only: every function here is called from the GUI thread.
std::optional<cpu_set_t> g_original;
std::vector<int> g_busy;

std::vector<int> toList(const cpu_set_t& set)
{
    std::vector<int> out;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set))
            out.push_back(cpu);
    return out;
}
} // namespace

std::vector<int> GuiThreadAffinity::current()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return {};
    return toList(set);
}

bool GuiThreadAffinity::pinned()
{
    return g_original.has_value();
}

void GuiThreadAffinity::restore()
{
    if (!g_original)
        return;
    sched_setaffinity(0, sizeof *g_original, &*g_original);
    g_original.reset();
    g_busy.clear();
}

std::vector<int> GuiThreadAffinity::keepOff(const std::vector<int>& busy)
{
    restore();
    if (busy.empty())
        return current();
    cpu_set_t original;
    CPU_ZERO(&original);
    if (sched_getaffinity(0, sizeof original, &original) != 0)
        return {};
    cpu_set_t set = original;
    for (int cpu : busy)
        if (cpu >= 0 && cpu < CPU_SETSIZE)
            CPU_CLR(cpu, &set);
    // Every usable CPU is busy (a one-CPU machine, or hogs on one CPU and the measurement on the other):
    // sharing is unavoidable, so leave the thread where the scheduler wants it.
    if (CPU_COUNT(&set) == 0 || sched_setaffinity(0, sizeof set, &set) != 0)
        return toList(original);
    g_original = original;
    g_busy = busy;
    return toList(set);
}

GuiThreadAffinity::Unpinned::Unpinned()
    : m_busy(g_busy)
    , m_wasPinned(g_original.has_value())
{
    restore();
}

GuiThreadAffinity::Unpinned::~Unpinned()
{
    if (m_wasPinned)
        keepOff(m_busy);
}

} // namespace rtscope
