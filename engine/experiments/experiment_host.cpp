#include "engine/experiments/experiment_host.h"

#include <cstring>

namespace rtscope {

MemoryLockStatus rangeLockStatus(const RunEnvironment& env, bool locked, int err, std::string_view what)
{
    if (env.allLocked())
        return env.memoryLock;
    // mlockall was not asked for, or refused: say which ranges were locked instead, and why mlockall was not used.
    const std::string why = env.memoryLock.detail.empty() ? "" : " (" + env.memoryLock.detail + ")";
    if (locked)
        return {MemoryLockMode::Ranges, "mlock of " + std::string(what) + why};
    return {MemoryLockMode::None, std::string("memory not locked: mlock failed: ") + std::strerror(err) + why};
}

} // namespace rtscope
