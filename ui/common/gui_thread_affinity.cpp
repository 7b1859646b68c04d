#include "ui/common/gui_thread_affinity.h"

#include "engine/rt/caller_affinity.h"

#include <optional>
#include <sched.h>

namespace rtscope {

namespace {
// GUI-thread state only: every function here is called from the GUI thread.
std::optional<cpu_set_t> g_original;
std::vector<int> g_busy;
} // namespace

std::vector<int> GuiThreadAffinity::current()
{
    return callerCpus();
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
    // Every usable CPU is busy (a one-CPU machine, or hogs on one CPU and the measurement on the other):
    // sharing is unavoidable, so keepCallerOff leaves the thread where the scheduler wants it.
    cpu_set_t original;
    if (!keepCallerOff(busy, original))
        return current();
    g_original = original;
    g_busy = busy;
    return current();
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
