#pragma once
// Keeps the GUI (main) thread off the CPUs an experiment loads, so 64 hogs or a SCHED_FIFO thread on the
// measured CPU cannot freeze the window; restores the original affinity when the experiments stop.
//
// The engine reads the calling thread's affinity to know which CPUs a config may use (CpuTopology::current()),
// so calls into it from the GUI thread go through Unpinned, which lends the original mask back for the call.
#include <vector>

namespace rtscope {

class GuiThreadAffinity {
public:
    /// Pins the calling (GUI) thread to the usable CPUs not in @p busy; with none left, or @p busy empty,
    /// restores the original affinity. Returns the CPUs the thread may now run on.
    static std::vector<int> keepOff(const std::vector<int>& busy);
    static void restore();
    /// The calling thread's current affinity.
    static std::vector<int> current();
    static bool pinned();

    /// For the lifetime of this object the calling thread has its original affinity back.
    class Unpinned {
    public:
        Unpinned();
        ~Unpinned();
        Unpinned(const Unpinned&) = delete;
        Unpinned& operator=(const Unpinned&) = delete;

    private:
        std::vector<int> m_busy;
        bool m_wasPinned;
    };
};

} // namespace rtscope
