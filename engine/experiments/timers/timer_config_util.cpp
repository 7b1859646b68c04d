#include "engine/experiments/timers/timer_config_util.h"

#include "engine/rt/cpu_topology.h"
#include "engine/util/units.h"

namespace rtscope {

std::string slackText(int64_t slackNs)
{
    return slackNs == 0 ? std::string("default") : formatDuration(slackNs);
}

void checkSchedulingFields(std::vector<std::string>& out, Policy policy, int priority)
{
    if (isRealtime(policy)) {
        if (priority < priorityMin(policy) || priority > priorityMax(policy))
            out.push_back("priority must be between " + std::to_string(priorityMin(policy)) + " and " +
                          std::to_string(priorityMax(policy)) + " for " + policyName(policy) + " (got " +
                          std::to_string(priority) + ")");
    } else if (priority != 0) {
        out.push_back("priority must be 0 for " + std::string(policyName(policy)) + " (got " +
                      std::to_string(priority) + "); choose policy fifo or rr for a real-time priority");
    }
}

void checkTimerSlack(std::vector<std::string>& out, int64_t slackNs, int64_t maxNs)
{
    if (slackNs < 0 || slackNs > maxNs)
        out.push_back("slack must be between 0 (the default) and " + formatDuration(maxNs) + " (got " +
                      formatDuration(slackNs) + ")");
}

void checkMeasuringCpu(std::vector<std::string>& out, int cpu, const CpuTopology& cpus, Policy policy)
{
    if (cpus.lastUsable() < 0) {
        out.push_back("cpu: this process may not run on any online CPU");
        return;
    }
    if (cpu != -1 && !cpus.usable(cpu)) {
        out.push_back("cpu must be one of the online CPUs this process may use (" + cpus.usableText() + "); got " +
                      std::to_string(cpu));
        return;
    }
    const int resolved = cpu >= 0 ? cpu : cpus.lastUsable();
    if (isRealtime(policy) && cpus.otherThan({resolved}) < 0)
        out.push_back("cpu: a " + std::string(policyName(policy)) + " run needs a usable CPU besides CPU " +
                      std::to_string(resolved) + " (usable: " + cpus.usableText() +
                      "), so real-time threads never hold every CPU; choose policy other");
}

} // namespace rtscope
