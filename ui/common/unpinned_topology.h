#pragma once
// The CPUs a config may use, as every page asks for them.
#include "engine/rt/cpu_topology.h"

namespace rtscope {

/// The CPUs a config may use: the GUI thread's affinity from before the main window kept it off busy CPUs (which
/// must not shrink what a config may use). Every page passes it to its experiment's start() and validate().
CpuTopology unpinnedTopology();

} // namespace rtscope
