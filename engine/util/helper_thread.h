#pragma once
/// @file Naming and placing rtscope's non-real-time helper threads (collector, recorder, experiment control threads).
#include <pthread.h>
#include <sched.h>
#include <thread>

namespace rtscope {

/// @brief Names @p thread (as `top -H` and the anatomy view show it) and, when @p cpu >= 0, pins it to @p cpu.
///
/// Why the pinning matters: a helper created by a caller whose affinity still includes a CPU that real-time workers
/// are about to own can be started there, and a SCHED_OTHER thread queued behind SCHED_FIFO spinners runs only when
/// the fair server or a load balance lets it, which can take longer than the 100 ms stop budget. Pinning is best
/// effort: a CPU outside the process's affinity leaves the thread where it was (returns false).
inline bool nameAndPlaceHelper(std::thread& thread, const char* name, int cpu)
{
    pthread_setname_np(thread.native_handle(), name);
    if (cpu < 0)
        return true;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(thread.native_handle(), sizeof set, &set) == 0;
}

} // namespace rtscope
