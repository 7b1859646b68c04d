#pragma once
/// @file Which CPUs exist and which this process may use: the limits every config is validated against.
#include <string>
#include <vector>

namespace rtscope {

struct CpuTopology {
    std::vector<int> online;   ///< /sys/devices/system/cpu/online
    std::vector<int> allowed;  ///< sched_getaffinity(0): online CPUs this process may run on
    std::vector<int> isolated; ///< /sys/devices/system/cpu/isolated

    /// @brief The calling thread's view: CPUs it may run on now. A caller that narrows its own affinity (the GUI
    /// thread, kept off busy CPUs) must not validate against this: see forAllowed().
    static CpuTopology current();
    /// @brief The online and isolated CPUs as now, with @p allowed (intersected with the online CPUs) as the CPUs
    /// the process may use: a mask the caller saved before it narrowed its own affinity.
    static CpuTopology forAllowed(const std::vector<int>& allowed);
    bool usable(int cpu) const; ///< online and allowed
    int lastUsable() const;     ///< highest usable CPU (the default measuring CPU), -1 if none
    /// @brief A usable CPU other than those in @p avoid, preferring the lowest; -1 when there is none.
    int otherThan(const std::vector<int>& avoid) const;
    /// @brief "0-1" style description of the usable CPUs, for error messages.
    std::string usableText() const;
};

/// @brief "0-3,5" from a sorted list.
std::string formatCpuList(const std::vector<int>& cpus);
/// @brief As formatCpuList(), "none" for an empty list.
std::string formatCpuListOrNone(const std::vector<int>& cpus);
/// @brief The problems of a list of CPUs a config names (@p field: "cpus"), one sentence for all the CPUs that are
/// not usable ("0-1000" on a 2-CPU machine is one mistake, not 999) and one for those listed twice; appended to
/// @p out. True when the list had neither.
bool checkCpuList(std::vector<std::string>& out, const char* field, const std::vector<int>& cpus,
                  const CpuTopology& topology);

} // namespace rtscope
