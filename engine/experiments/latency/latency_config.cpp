#include "engine/experiments/latency/latency_config.h"

#include "engine/experiments/config_json.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/json_fields.h"
#include "engine/util/units.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

namespace rtscope {

namespace {

void checkPriority(std::vector<std::string>& out, const char* field, Policy p, int prio)
{
    if (isRealtime(p)) {
        if (prio < priorityMin(p) || prio > priorityMax(p))
            out.push_back(std::string(field) + " must be between " + std::to_string(priorityMin(p)) + " and " +
                          std::to_string(priorityMax(p)) + " for " + policyName(p) + " (got " + std::to_string(prio) +
                          ")");
    } else if (prio != 0) {
        out.push_back(std::string(field) + " must be 0 for " + policyName(p) + " (got " + std::to_string(prio) +
                      "); choose policy fifo or rr for a real-time priority");
    }
}

void checkNice(std::vector<std::string>& out, const char* field, int nice)
{
    if (nice < -20 || nice > 19)
        out.push_back(std::string(field) + " must be between -20 and 19 (got " + std::to_string(nice) + ")");
}

void checkCpu(std::vector<std::string>& out, const char* field, int cpu, const CpuTopology& cpus)
{
    if (cpu == -1)
        return;
    if (!cpus.usable(cpu))
        out.push_back(std::string(field) + " must be one of the online CPUs this process may use (" +
                      cpus.usableText() + "); got " + std::to_string(cpu));
}

} // namespace

std::vector<std::string> LatencyConfig::validate(const CpuTopology& cpus) const
{
    std::vector<std::string> out;
    checkPriority(out, "priority", policy, priority);
    checkNice(out, "nice", nice);
    if (isRealtime(policy) && nice != 0 && nice >= -20 && nice <= 19) // one sentence per field
        out.push_back(realtimeNiceProblem(policy, nice));
    if (isDeadline(policy)) {
        if (nice != 0)
            out.push_back("nice must be 0 with policy deadline (got " + std::to_string(nice) +
                          "): a deadline thread's share is its runtime per period, not a nice weight");
        if (runtimeNs == 0)
            out.push_back("runtime must be given with policy deadline: the CPU time the measuring thread may use in "
                          "each period, e.g. 100us (at least 1.0 us, at most the deadline)");
        else if (periodNs >= kMinPeriodNs && periodNs <= kMaxPeriodNs)
            for (std::string& p : deadlineProblems(deadlineParams(), DeadlineLimits::read()))
                out.push_back(std::move(p));
        if (trace)
            out.push_back("trace cannot follow policy deadline: a SCHED_DEADLINE thread is not pinned to the "
                          "measured CPU (the kernel's root-domain rule), and the anatomy reads that CPU's events");
    } else {
        if (runtimeNs != 0)
            out.push_back(std::string("runtime applies only to policy deadline, not to ") + policyName(policy) +
                          " (got " + formatDuration(runtimeNs) + ")");
        if (deadlineNs != 0)
            out.push_back(std::string("deadline applies only to policy deadline, not to ") + policyName(policy) +
                          " (got " + formatDuration(deadlineNs) + ")");
    }
    if (periodNs < kMinPeriodNs || periodNs > kMaxPeriodNs)
        out.push_back("period must be between " + formatDurationRange(kMinPeriodNs, kMaxPeriodNs) + " (got " +
                      formatDuration(periodNs) + ")");
    checkCpu(out, "cpu", cpu, cpus);
    checkCpuList(out, "cpus", this->cpus, cpus);
    if (hogs < 0 || hogs > kMaxHogs)
        out.push_back("hogs must be between 0 and " + std::to_string(kMaxHogs) + " per CPU (got " +
                      std::to_string(hogs) +
                      "): the most spinners on one CPU that start and stop within the run's "
                      "budgets");
    if (isRealtime(hogPolicy) || isDeadline(hogPolicy))
        out.push_back(std::string("hog-policy must be other, batch or idle (got ") + policyName(hogPolicy) +
                      "): real-time spinners can starve a CPU; the starvation lab runs them under a watchdog");
    checkNice(out, "hog-nice", hogNice);
    const size_t hogCpuCount = hogCpu >= 0 ? 1 : std::max<size_t>(1, this->cpus.size());
    if (hogs > 0 && size_t(hogs) * hogCpuCount > size_t(kMaxHogThreads))
        out.push_back("hogs × measured CPUs must not exceed " + std::to_string(kMaxHogThreads) + " threads (got " +
                      std::to_string(hogs) + " × " + std::to_string(hogCpuCount) + ")");
    checkCpu(out, "hog-cpu", hogCpu, cpus);
    // 0 is "until stopped" for both (a preset's phase, the GUI); the command line refuses a given 0 itself.
    if (durationNs != 0)
        if (std::string p = durationProblem(durationNs); !p.empty())
            out.push_back(std::move(p));
    if (maxSamples != 0)
        if (std::string p = samplesProblem(maxSamples); !p.empty())
            out.push_back(std::move(p));
    if (durationNs != 0 && maxSamples != 0)
        out.push_back("duration and samples are exclusive: give one of them");
    if (histogramUs < 0 || histogramUs > kMaxHistogramUs)
        out.push_back("histogram must be between 0 and " + std::to_string(kMaxHistogramUs) + " us (got " +
                      std::to_string(histogramUs) + ")");
    if (traceThresholdNs < 0 || traceThresholdNs > kMaxTraceThresholdNs)
        out.push_back("trace-threshold must be between 0 (none) and " + formatDuration(kMaxTraceThresholdNs) +
                      " (got " + formatDuration(traceThresholdNs) + ")");
    if (traceTop < 1 || traceTop > kMaxTraceTop)
        out.push_back("trace-top must be between 1 and " + std::to_string(kMaxTraceTop) + " (got " +
                      std::to_string(traceTop) + ")");
    if (cpus.lastUsable() < 0)
        out.push_back("cpu: this process may not run on any online CPU");
    return out;
}

std::string LatencyConfig::durationProblem(int64_t ns)
{
    if (ns >= kMinDurationNs && ns <= kMaxDurationNs)
        return {};
    return "duration must be between " + formatDurationRange(kMinDurationNs, kMaxDurationNs) + " (got " +
           formatDuration(ns) + ")";
}

std::string LatencyConfig::samplesProblem(uint64_t samples)
{
    if (samples >= 1 && samples <= kMaxSamples)
        return {};
    return "samples must be between 1 and " + std::to_string(kMaxSamples) + " (got " + std::to_string(samples) + ")";
}

DeadlineParams LatencyConfig::deadlineParams() const
{
    return {runtimeNs, deadlineNs != 0 ? deadlineNs : periodNs, periodNs};
}

int LatencyConfig::resolvedCpu(const CpuTopology& cpus) const
{
    return cpu >= 0 ? cpu : cpus.lastUsable();
}

int LatencyConfig::resolvedHogCpu(const CpuTopology& cpus) const
{
    return hogCpu >= 0 ? hogCpu : resolvedCpus(cpus).front();
}

std::vector<int> LatencyConfig::resolvedCpus(const CpuTopology& topo) const
{
    if (!cpus.empty())
        return cpus;
    return {resolvedCpu(topo)};
}

std::vector<int> LatencyConfig::resolvedHogCpus(const CpuTopology& topo) const
{
    if (hogCpu >= 0)
        return {hogCpu};
    return resolvedCpus(topo);
}

std::string LatencyConfig::label() const
{
    std::ostringstream s;
    s << policyLabel(policy, priority, nice);
    if (isDeadline(policy))
        s << ' ' << formatDuration(runtimeNs) << '/' << formatDuration(deadlineParams().deadlineNs);
    s << " · " << formatDuration(periodNs) << " · " << hogs << (hogs == 1 ? " hog" : " hogs") << " · "
      << (cpus.size() > 1    ? "CPUs " + formatCpuList(cpus)
          : cpus.size() == 1 ? "CPU " + std::to_string(cpus.front())
          : cpu >= 0         ? "CPU " + std::to_string(cpu)
                             : std::string("CPU auto"))
      << " · " << waiterName(waiter);
    if (trace)
        s << " · trace";
    return s.str();
}

namespace {

// The keys of toJson(LatencyConfig), in the order latencyConfigFromJson reads them.
constexpr auto kLatencyFields = std::tuple{
    jsonName("policy", &LatencyConfig::policy, policyName, parseLatencyPolicy, [] { return policyNameList(true); }),
    jsonValue("priority", &LatencyConfig::priority),
    jsonValue("nice", &LatencyConfig::nice),
    jsonValue("period_ns", &LatencyConfig::periodNs),
    jsonValue("runtime_ns", &LatencyConfig::runtimeNs),
    jsonValue("deadline_ns", &LatencyConfig::deadlineNs),
    jsonValue("cpu", &LatencyConfig::cpu),
    jsonIntegerList<int>("cpus", &LatencyConfig::cpus, "must be an array of CPU numbers", 0, 65535),
    jsonName("waiter", &LatencyConfig::waiter, waiterName, parseWaiter, [] { return waiterNameList(); }),
    jsonValue("hogs", &LatencyConfig::hogs),
    jsonPolicy("hog_policy", &LatencyConfig::hogPolicy),
    jsonValue("hog_nice", &LatencyConfig::hogNice),
    jsonValue("hog_cpu", &LatencyConfig::hogCpu),
    jsonValue("duration_ns", &LatencyConfig::durationNs),
    jsonValue("samples", &LatencyConfig::maxSamples),
    jsonValue("histogram_us", &LatencyConfig::histogramUs),
    jsonValue("dma_latency", &LatencyConfig::dmaLatency),
    jsonValue("trace", &LatencyConfig::trace),
    jsonValue("trace_threshold_ns", &LatencyConfig::traceThresholdNs),
    jsonValue("trace_top", &LatencyConfig::traceTop),
};

} // namespace

nlohmann::json toJson(const LatencyConfig& c)
{
    nlohmann::json j = tableToJson(c, kLatencyFields);
    // The deadline fields only for that policy or when set: a config of another policy writes what it wrote before
    // the fields existed (presets, recordings and --json stay as they were), and reads back the same.
    if (!isDeadline(c.policy) && c.runtimeNs == 0 && c.deadlineNs == 0) {
        j.erase("runtime_ns");
        j.erase("deadline_ns");
    }
    // The latency anatomy's fields likewise, only when one of them is not its default.
    const LatencyConfig defaults;
    if (c.trace == defaults.trace && c.traceThresholdNs == defaults.traceThresholdNs &&
        c.traceTop == defaults.traceTop) {
        j.erase("trace");
        j.erase("trace_threshold_ns");
        j.erase("trace_top");
    }
    return j;
}

LatencyConfig latencyConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    return configFromJson<LatencyConfig>(j, errors, "latency config", kLatencyFields);
}

} // namespace rtscope
