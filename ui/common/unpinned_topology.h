#pragma once
// The CPUs a config may use, as every page asks for them.
#include "engine/rt/cpu_topology.h"

namespace rtscope {

/// The CPUs a config may use. The engine reads the calling thread's affinity, and the main window may have parked
/// the GUI thread off a busy CPU, which must not shrink what a config may use.
CpuTopology unpinnedTopology();

} // namespace rtscope
