#include "ui/common/unpinned_topology.h"

#include "ui/common/gui_thread_affinity.h"

namespace rtscope {

CpuTopology unpinnedTopology()
{
    return CpuTopology::forAllowed(GuiThreadAffinity::original());
}

} // namespace rtscope
