#include "engine/rt/sched_policy.h"

#include "engine/util/name_list.h"

#include <cctype>
#include <sched.h>

namespace rtscope {

namespace {

struct PolicyInfo {
    Policy policy;
    const char* name;
    const char* kernelName;
    int kernel;
};

constexpr PolicyInfo kPolicies[] = {
    {Policy::Other, "other", "SCHED_OTHER", SCHED_OTHER},
    {Policy::Batch, "batch", "SCHED_BATCH", SCHED_BATCH},
    {Policy::Idle, "idle", "SCHED_IDLE", SCHED_IDLE},
    {Policy::Fifo, "fifo", "SCHED_FIFO", SCHED_FIFO},
    {Policy::RR, "rr", "SCHED_RR", SCHED_RR},
    {Policy::Deadline, "deadline", "SCHED_DEADLINE", SCHED_DEADLINE},
};

const PolicyInfo& info(Policy p)
{
    for (const PolicyInfo& i : kPolicies)
        if (i.policy == p)
            return i;
    return kPolicies[0];
}

bool equalsIgnoreCase(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

} // namespace

const char* policyName(Policy p)
{
    return info(p).name;
}

const char* policyKernelName(Policy p)
{
    return info(p).kernelName;
}

std::optional<Policy> parsePolicy(std::string_view name)
{
    for (const PolicyInfo& i : kPolicies)
        if (i.policy != Policy::Deadline && (equalsIgnoreCase(name, i.name) || equalsIgnoreCase(name, i.kernelName)))
            return i.policy;
    // "normal" is the kernel's own name for SCHED_OTHER in chrt(1) output and sched(7).
    if (equalsIgnoreCase(name, "normal") || equalsIgnoreCase(name, "SCHED_NORMAL"))
        return Policy::Other;
    return std::nullopt;
}

std::optional<Policy> parseLatencyPolicy(std::string_view name)
{
    if (equalsIgnoreCase(name, "deadline") || equalsIgnoreCase(name, "SCHED_DEADLINE"))
        return Policy::Deadline;
    return parsePolicy(name);
}

std::string policyNameList(bool deadline, std::string_view lastJoin)
{
    return deadline ? nameList(kLatencyPolicies, policyName, lastJoin) : nameList(kAllPolicies, policyName, lastJoin);
}

int policyToKernel(Policy p)
{
    return info(p).kernel;
}

std::optional<Policy> policyFromKernel(int sched)
{
    // sched_getscheduler() ORs SCHED_RESET_ON_FORK into the result when that flag is set.
    sched &= ~SCHED_RESET_ON_FORK;
    for (const PolicyInfo& i : kPolicies)
        if (i.kernel == sched)
            return i.policy;
    return std::nullopt;
}

bool isRealtime(Policy p)
{
    return p == Policy::Fifo || p == Policy::RR;
}

bool isDeadline(Policy p)
{
    return p == Policy::Deadline;
}

int priorityMin(Policy p)
{
    const int v = sched_get_priority_min(policyToKernel(p));
    return v < 0 ? 0 : v;
}

int priorityMax(Policy p)
{
    const int v = sched_get_priority_max(policyToKernel(p));
    return v < 0 ? 0 : v;
}

std::string policyLabel(Policy p, int priority, int nice)
{
    std::string label;
    for (const char* c = policyName(p); *c; ++c)
        label += char(std::toupper(static_cast<unsigned char>(*c)));
    if (isRealtime(p))
        return label + ' ' + std::to_string(priority);
    if (nice != 0)
        label += " nice " + std::to_string(nice);
    return label;
}

std::string realtimeNiceProblem(Policy p, int nice)
{
    return std::string("nice applies to other, batch or idle, not to ") + policyName(p) +
           ": a real-time thread's precedence is its priority (got " + std::to_string(nice) + ")";
}

} // namespace rtscope
