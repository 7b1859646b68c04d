#include "engine/experiments/latency/latency_flags.h"

#include "engine/rt/sched_policy.h"
#include "engine/rt/waiter.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

namespace rtscope {

namespace {

// A policy given: it, when it parses. None given, but a priority: FIFO, as cyclictest -p does (unless the config is
// real-time already).
void applyPolicy(const LatencyFlagText& f, const LatencyFlagRules& rules, LatencyConfig& c,
                 std::vector<std::string>& problems)
{
    if (f.policy) {
        if (auto p = rules.deadline ? parseLatencyPolicy(*f.policy) : parsePolicy(*f.policy))
            c.policy = *p;
        else
            problems.push_back("policy must be one of " + policyNameList(rules.deadline) + " (got '" + *f.policy +
                               "')");
    } else if (f.priority && *f.priority > 0 && !isRealtime(c.policy)) {
        c.policy = Policy::Fifo;
    }
    if (f.priority)
        c.priority = *f.priority;
    else if (f.policy && isRealtime(c.policy) && c.priority == 0)
        c.priority = rules.defaultRtPriority;
    else if (f.policy && !isRealtime(c.policy))
        c.priority = 0;
}

} // namespace

void applyLatencyFlags(const LatencyFlagText& f, const LatencyFlagRules& rules, LatencyConfig& c,
                       std::vector<std::string>& problems)
{
    applyPolicy(f, rules, c, problems);
    if (f.period) {
        if (auto ns = parseDuration(*f.period, kNsPerUs))
            c.periodNs = *ns;
        else
            problems.push_back("period: '" + *f.period +
                               "' is not a duration; use a number with ns, us, ms or s (bare numbers are "
                               "microseconds)");
    }
    if (f.hogs)
        c.hogs = *f.hogs;
    if (f.cpu)
        c.cpu = *f.cpu;
    if (f.hogCpu)
        c.hogCpu = *f.hogCpu;
    if (f.waiter) {
        if (auto w = parseWaiter(*f.waiter))
            c.waiter = *w;
        else
            problems.push_back("waiter must be one of " + waiterNameList() + " (got '" + *f.waiter + "')");
    }
    if (f.trace)
        c.trace = true;
}

namespace latency_flag_help {

std::string policy(bool deadline)
{
    return policyNameList(deadline, " or ") + " (default: other; fifo if a priority is given)";
}

std::string priority()
{
    return "RT priority 1-99 for fifo/rr";
}

std::string period()
{
    static_assert(LatencyConfig::kMinPeriodNs == 10'000 && LatencyConfig::kMaxPeriodNs == 10'000'000'000,
                  "the help names the period's range");
    return "period 10us..10s; units ns, us, ms, s (bare number: us)";
}

std::string hogs()
{
    return "CPU-hog threads on each measuring CPU, 0.." + std::to_string(LatencyConfig::kMaxHogs);
}

std::string cpu()
{
    return "measuring CPU (default: the highest usable CPU)";
}

std::string hogCpu()
{
    return "CPU for the hogs (default: the measuring CPU)";
}

std::string waiter()
{
    return waiterNameList(" or ");
}

} // namespace latency_flag_help

} // namespace rtscope
