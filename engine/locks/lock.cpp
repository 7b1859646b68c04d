#include "engine/locks/lock.h"

#include "engine/locks/adaptive_lock.h"
#include "engine/locks/pthread_lock.h"
#include "engine/locks/spin_lock.h"
#include "engine/util/name_list.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace rtscope {

namespace {

constexpr NamedValue<LockKind> kLockKindNames[] = {
    {LockKind::Spin, "spin", "TTAS spinlock"},
    {LockKind::Mutex, "mutex", "pthread mutex"},
    {LockKind::AdaptiveGlibc, "adaptive-glibc", "glibc adaptive mutex"},
    {LockKind::Adaptive, "adaptive", "rtscope adaptive lock"},
    {LockKind::Pi, "pi", "priority-inheritance mutex"},
    {LockKind::Ceiling, "ceiling", "priority-ceiling mutex"},
};

} // namespace

const char* lockKindName(LockKind k)
{
    return nameOf(kLockKindNames, k);
}

const char* lockKindLabel(LockKind k)
{
    return labelOf(kLockKindNames, k);
}

std::optional<LockKind> parseLockKind(std::string_view name)
{
    std::string n(name);
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    for (LockKind k : allLockKinds())
        if (n == lockKindName(k))
            return k;
    if (n == "spinlock")
        return LockKind::Spin;
    if (n == "glibc-adaptive" || n == "adaptive_glibc")
        return LockKind::AdaptiveGlibc;
    if (n == "prio-inherit" || n == "inherit")
        return LockKind::Pi;
    if (n == "protect" || n == "prio-protect")
        return LockKind::Ceiling;
    return std::nullopt;
}

bool isAdaptive(LockKind k)
{
    return k == LockKind::Adaptive || k == LockKind::AdaptiveGlibc;
}

const std::vector<LockKind>& allLockKinds()
{
    static const std::vector<LockKind> kinds = {LockKind::Spin,     LockKind::Mutex, LockKind::AdaptiveGlibc,
                                                LockKind::Adaptive, LockKind::Pi,    LockKind::Ceiling};
    return kinds;
}

const char* acquirePathName(AcquirePath p)
{
    return enumName<AcquirePath::Slept>(p, {"uncontended", "spun", "slept"});
}

const char* sleepReasonName(SleepReason r)
{
    return enumName<SleepReason::SpinLimit>(r, {"none", "owner-not-running", "owner-on-this-cpu", "spin-limit"});
}

std::unique_ptr<Lock> makeLock(LockKind kind, const LockOptions& options, Error* error)
{
    switch (kind) {
    case LockKind::Spin:
        return std::make_unique<SpinLock>();
    case LockKind::Adaptive:
        return std::make_unique<AdaptiveLock>(options.spinLimit, options.stealing);
    case LockKind::Mutex:
    case LockKind::AdaptiveGlibc:
    case LockKind::Pi:
    case LockKind::Ceiling: {
        Error e;
        auto lock = PthreadLock::create(kind, options.ceilingPriority, e);
        if (!lock && error)
            *error = e;
        return lock;
    }
    }
    if (error)
        *error = {ErrorKind::InvalidConfig, "unknown lock kind"};
    return nullptr;
}

} // namespace rtscope
