#include "ui/common/unpinned_topology.h"

#include "ui/common/gui_thread_affinity.h"

namespace rtscope {

CpuTopology unpinnedTopology()
{
    const GuiThreadAffinity::Unpinned unpinned;
    return CpuTopology::current();
}

} // namespace rtscope
