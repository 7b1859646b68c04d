#include "engine/experiments/starvation/starvation_config.h"

#include "engine/experiments/config_json.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_environment.h"
#include "engine/util/json_fields.h"
#include "engine/util/units.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sched.h>
#include <sstream>

namespace rtscope {

namespace {

bool contains(const std::vector<int>& v, int x)
{
    return std::find(v.begin(), v.end(), x) != v.end();
}

std::vector<int> usableCpus(const CpuTopology& cpus)
{
    std::vector<int> out;
    for (int c : cpus.allowed)
        if (cpus.usable(c))
            out.push_back(c);
    return out;
}

std::string listOrNone(const std::vector<int>& cpus)
{
    return cpus.empty() ? "none" : formatCpuList(cpus);
}

std::string durationRange(int64_t lo, int64_t hi)
{
    return formatDuration(lo) + " and " + formatDuration(hi);
}

} // namespace

CpuTopology StarvationConfig::placementTopology()
{
    CpuTopology t = CpuTopology::current();
    // The lab's threads are new threads pinned by attribute: the cpuset bounds them, not the affinity the
    // calling thread happens to have (a GUI thread pinned to CPU 0 must still be able to start a spinner on 1).
    t.allowed = cpusForNewThreads();
    std::sort(t.allowed.begin(), t.allowed.end());
    if (t.online.empty())
        t.online = t.allowed;
    return t;
}

std::vector<int> StarvationConfig::defaultReservedCpus()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return {0};
    std::vector<int> mine;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set))
            mine.push_back(c);
    return defaultReservedCpus(mine);
}

std::vector<int> StarvationConfig::defaultReservedCpus(const std::vector<int>& mine)
{
    std::vector<int> reserved{0};
    const std::vector<int> process = cpusForNewThreads();
    // A thread allowed everywhere the process is has no home CPU to protect; one narrowed down has chosen its
    // CPUs, and a spinner there would freeze it.
    const bool pinned = std::any_of(process.begin(), process.end(), [&](int c) { return !contains(mine, c); });
    if (pinned)
        for (int c : mine)
            if (!contains(reserved, c))
                reserved.push_back(c);
    std::sort(reserved.begin(), reserved.end());
    return reserved;
}

int StarvationConfig::resolvedCpu(const CpuTopology& cpus) const
{
    if (cpu >= 0)
        return cpu;
    const std::vector<int> usable = usableCpus(cpus);
    for (auto it = usable.rbegin(); it != usable.rend(); ++it)
        if (!contains(reservedCpus, *it))
            return *it;
    return -1;
}

int StarvationConfig::resolvedControllerCpu(const CpuTopology& cpus) const
{
    const int spinner = resolvedCpu(cpus);
    std::vector<int> reserved = reservedCpus;
    std::sort(reserved.begin(), reserved.end());
    for (int c : reserved)
        if (c != spinner && cpus.usable(c))
            return c;
    for (int c : usableCpus(cpus))
        if (c != spinner)
            return c;
    return -1;
}

int StarvationConfig::resolvedControlCpu(const CpuTopology& cpus) const
{
    return controlCpu >= 0 ? controlCpu : resolvedControllerCpu(cpus);
}

int64_t StarvationConfig::plannedDurationNs() const
{
    if (bursts <= 0)
        return 0;
    return gapNs + int64_t(bursts) * (burstNs + gapNs);
}

std::vector<std::string> StarvationConfig::validate(const CpuTopology& cpus) const
{
    std::vector<std::string> out;
    const bool rt = isRealtime(policy);
    if (!rt)
        out.push_back(std::string("policy must be fifo or rr (got ") + policyName(policy) +
                      "): the spinner has to be real-time to starve its CPU");
    const int lo = rt ? priorityMin(policy) : 1;
    const int hi = kWatchdogPriority - 1;
    const bool priorityOk = priority >= lo && priority <= hi;
    if (!priorityOk)
        out.push_back("priority must be between " + std::to_string(lo) + " and " + std::to_string(hi) + " (got " +
                      std::to_string(priority) + "): the watchdog runs above it at " +
                      std::to_string(kWatchdogPriority));
    if (burstNs < kMinBurstNs || burstNs > kMaxBurstNs)
        out.push_back("burst must be between " + durationRange(kMinBurstNs, kMaxBurstNs) + " (got " +
                      formatDuration(burstNs) + ")");
    if (gapNs < kMinGapNs || gapNs > kMaxGapNs)
        out.push_back("gap must be between " + durationRange(kMinGapNs, kMaxGapNs) + " (got " + formatDuration(gapNs) +
                      ")");
    if (bursts < 0 || bursts > kMaxBursts)
        out.push_back("bursts must be between 1 and " + std::to_string(kMaxBursts) +
                      ", or 0 to repeat until stopped (got " + std::to_string(bursts) + ")");
    if (counters < 1 || counters > kMaxCounters)
        out.push_back("counters must be between 1 and " + std::to_string(kMaxCounters) + " (got " +
                      std::to_string(counters) + ")");
    if (counterNice < -20 || counterNice > 19)
        out.push_back("counter-nice must be between -20 and 19 (got " + std::to_string(counterNice) + ")");
    const int samplerMax = (priorityOk ? priority : hi) - 1;
    if (samplerPriority < 0 || samplerPriority > samplerMax)
        out.push_back("sampler-priority must be between 0 (SCHED_OTHER) and " + std::to_string(samplerMax) +
                      ", below the spinner's priority (got " + std::to_string(samplerPriority) + ")");
    std::vector<int> offline;
    for (int c : reservedCpus)
        if (c < 0 || c > kMaxCpuNumber) {
            out.push_back("reserved-cpus entries must be between 0 and " + std::to_string(kMaxCpuNumber) + " (got " +
                          std::to_string(c) + ")");
            break;
        } else if (!contains(cpus.online, c) && !contains(offline, c)) {
            offline.push_back(c);
        }
    // Reserving a CPU that is not there protects nothing; it is a typo for one that is.
    if (!offline.empty() && !cpus.online.empty()) {
        std::sort(offline.begin(), offline.end());
        out.push_back("reserved-cpus must list online CPUs (" + formatCpuList(cpus.online) + "); got " +
                      formatCpuList(offline));
    }

    // Placement: the refusals that keep a spinner from freezing the machine or its own controller.
    const std::vector<int> usable = usableCpus(cpus);
    if (cpus.online.size() < 2) {
        out.push_back("cpu: this machine has only one online CPU (" + listOrNone(cpus.online) +
                      "); a real-time spinner there would freeze it, so the starvation lab needs at least two");
        return out;
    }
    if (usable.size() < 2) {
        out.push_back("cpu: this process may only use CPU " + listOrNone(usable) +
                      "; a spinner there would take every CPU it is allowed and leave none for the watchdog and "
                      "the controller (widen the cpuset or affinity, e.g. taskset -c 0-1)");
        return out;
    }
    std::vector<int> candidates;
    for (int c : usable)
        if (!contains(reservedCpus, c))
            candidates.push_back(c);
    std::vector<int> reservedUsable;
    for (int c : usable)
        if (contains(reservedCpus, c))
            reservedUsable.push_back(c);
    if (cpu != -1) {
        if (!cpus.usable(cpu))
            out.push_back("cpu must be one of the online CPUs this process may use (" + cpus.usableText() + "); got " +
                          std::to_string(cpu));
        else if (contains(reservedCpus, cpu))
            out.push_back("cpu must not be a reserved CPU (" + listOrNone(reservedUsable) +
                          ": the controller, collector and UI run there); choose one of " + listOrNone(candidates) +
                          " (got " + std::to_string(cpu) + ")");
    } else if (candidates.empty()) {
        out.push_back("cpu: every CPU this process may use (" + listOrNone(usable) +
                      ") is reserved for the controller (reserved-cpus " + listOrNone(reservedUsable) +
                      "); leave one CPU free for the spinner");
    }
    if (controlCounter && controlCpu != -1) {
        const int spinner = resolvedCpu(cpus);
        if (!cpus.usable(controlCpu) || controlCpu == spinner) {
            std::vector<int> others;
            for (int c : usable)
                if (c != spinner)
                    others.push_back(c);
            out.push_back("control-cpu must be a usable CPU other than the spinner's (one of " + listOrNone(others) +
                          "); got " + std::to_string(controlCpu));
        }
    }
    return out;
}

std::string StarvationConfig::label() const
{
    std::ostringstream s;
    s << policyLabel(policy, priority) << " · burst " << formatDuration(burstNs) << " · gap " << formatDuration(gapNs)
      << " · "
      << (bursts == 0 ? std::string("repeating") : std::to_string(bursts) + (bursts == 1 ? " burst" : " bursts"))
      << " · " << counters << (counters == 1 ? " counter" : " counters")
      << (counterNice ? " nice " + std::to_string(counterNice) : std::string()) << " · "
      << (cpu >= 0 ? "CPU " + std::to_string(cpu) : std::string("CPU auto"));
    return s.str();
}

namespace {

// The keys of toJson(StarvationConfig), in the order starvationConfigFromJson reads them. parsePolicy() knows every
// policy; validate() says why other, batch and idle cannot starve a CPU.
constexpr auto kStarvationFields = std::tuple{
    jsonPolicy("policy", &StarvationConfig::policy, "fifo, rr"),
    jsonValue("priority", &StarvationConfig::priority),
    jsonValue("burst_ns", &StarvationConfig::burstNs),
    jsonValue("gap_ns", &StarvationConfig::gapNs),
    jsonValue("bursts", &StarvationConfig::bursts),
    jsonValue("counters", &StarvationConfig::counters),
    jsonValue("counter_nice", &StarvationConfig::counterNice),
    jsonValue("cpu", &StarvationConfig::cpu),
    jsonValue("control_counter", &StarvationConfig::controlCounter),
    jsonValue("control_cpu", &StarvationConfig::controlCpu),
    jsonValue("sampler_priority", &StarvationConfig::samplerPriority),
    jsonIntegerList<int>("reserved_cpus", &StarvationConfig::reservedCpus, "must be an array of CPU numbers"),
};

} // namespace

RTSCOPE_CONFIG_JSON(StarvationConfig, starvationConfigFromJson, "starvation config", kStarvationFields)

} // namespace rtscope
