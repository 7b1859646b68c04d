#pragma once
/// @file Keeping the calling (non-real-time) thread off the CPUs an experiment measures.
#include <sched.h>
#include <vector>

namespace rtscope {

/// @brief Restricts the calling thread to the CPUs of its current affinity that are not in @p avoid. Changes nothing
/// and returns false when none would be left (sharing is then unavoidable) or the kernel refuses; on success
/// @p previous holds the affinity the thread had before.
bool keepCallerOff(const std::vector<int>& avoid, cpu_set_t& previous);
/// @brief The calling thread's affinity as a sorted CPU list (empty if it cannot be read).
std::vector<int> callerCpus();
/// @brief The CPUs in @p set, sorted.
std::vector<int> cpuList(const cpu_set_t& set);

/// @brief keepCallerOff() for a scope: the previous affinity is restored on destruction. When every CPU the thread
/// may use is in @p avoid it changes nothing (applied() is false).
///
/// Why: a thread that wakes up on the measured CPU is one more entity in that CPU's run queue. Under SCHED_OTHER
/// with hogs that changes how often the measuring thread waits for a hog's slice (cyclictest's main thread, which
/// sits on the measured CPU unless --mainaffinity moves it, does exactly that), so rtscope keeps its own helpers
/// off the measured and hog CPUs: the collector by its own pinning, the CLI's main thread with this.
class ScopedCallerAffinity {
public:
    explicit ScopedCallerAffinity(const std::vector<int>& avoid);
    ~ScopedCallerAffinity();
    ScopedCallerAffinity(const ScopedCallerAffinity&) = delete;
    ScopedCallerAffinity& operator=(const ScopedCallerAffinity&) = delete;

    bool applied() const { return m_applied; }

private:
    cpu_set_t m_previous{};
    bool m_applied = false;
};

} // namespace rtscope
