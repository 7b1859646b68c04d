#include "ui/common/gui_thread_affinity.h"

#include "engine/rt/caller_affinity.h"

#include <optional>
#include <sched.h>

namespace rtscope {

namespace {
// GUI-thread state only: every function here is called from the GUI thread.
std::optional<cpu_set_t> g_original;
} // namespace

std::vector<int> GuiThreadAffinity::current()
{
    return callerCpus();
}

std::vector<int> GuiThreadAffinity::original()
{
    if (!g_original)
        return current();
    std::vector<int> cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &*g_original))
            cpus.push_back(cpu);
    return cpus;
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
}

std::vector<int> GuiThreadAffinity::keepOff(const std::vector<int>& busy)
{
    restore();
    if (busy.empty())
        return current();
    // Every usable CPU is busy (a one-CPU machine, or hogs on one CPU and the measurement on the other):
    // sharing is unavoidable, so keepCallerOff leaves the thread where the scheduler wants it.
    cpu_set_t original;
    if (!keepCallerOff(busy, original))
        return current();
    g_original = original;
    return current();
}

} // namespace rtscope
