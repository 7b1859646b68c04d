#pragma once
// Keeps the GUI (main) thread off the CPUs an experiment loads, so 64 hogs or a SCHED_FIFO thread on the
// measured CPU cannot freeze the window; restores the original affinity when the experiments stop.
//
// The engine never reads the calling thread's affinity: every start() takes the CPUs explicitly. The GUI gives it
// unpinnedTopology() (ui/common/unpinned_topology.h), built from original(): the mask the thread had before it was
// kept off anything, so a parked window never narrows what a config may use.
#include <vector>

namespace rtscope {

/// The GUI thread's affinity. There is one GUI thread, so this is one piece of state (GUI thread only).
class GuiThreadAffinity {
public:
    /// Pins the calling (GUI) thread to the usable CPUs not in @p busy; with none left, or @p busy empty,
    /// restores the original affinity. Returns the CPUs the thread may now run on.
    static std::vector<int> keepOff(const std::vector<int>& busy);
    static void restore();
    /// The calling thread's current affinity.
    static std::vector<int> current();
    /// The affinity the GUI thread had before keepOff() narrowed it: current() when it is not kept off anything.
    static std::vector<int> original();
    static bool pinned();
};

} // namespace rtscope
