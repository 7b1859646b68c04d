#include "engine/experiments/noise/noise_config.h"

#include "engine/experiments/config_json.h"
#include "engine/experiments/noise/noise_snapshot.h"
#include "engine/experiments/timers/timer_config_util.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/json_fields.h"
#include "engine/util/name_list.h"
#include "engine/util/units.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

namespace rtscope {

namespace {

constexpr NamedValue<NoiseKind> kNoiseKindNames[] = {
    {NoiseKind::Irq, "irq", "IRQ"},
    {NoiseKind::Softirq, "softirq", "softirq"},
    {NoiseKind::Nmi, "nmi", "NMI"},
    {NoiseKind::Thread, "thread", "thread"},
    {NoiseKind::Unexplained, "unexplained", "unexplained (HW/VM)"},
    {NoiseKind::Untraced, "untraced", "untraced"},
};

} // namespace

const char* noiseKindName(NoiseKind kind)
{
    return nameOf(kNoiseKindNames, kind);
}

const char* noiseKindLabel(NoiseKind kind)
{
    return labelOf(kNoiseKindNames, kind);
}

namespace {

// Sorted, each CPU once: one sentence names all the bad CPUs of a list ("0-1000" on two CPUs is one mistake).
std::vector<int> noiseSortedUnique(std::vector<int> v)
{
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

void checkNoiseCpus(std::vector<std::string>& out, const NoiseConfig& c, const CpuTopology& topology)
{
    if (topology.lastUsable() < 0) {
        out.push_back("cpus: this process may not run on any online CPU");
        return;
    }
    if (c.cpus.size() > size_t(NoiseConfig::kMaxCpus)) {
        out.push_back("cpus must list at most " + std::to_string(NoiseConfig::kMaxCpus) + " CPUs (got " +
                      std::to_string(c.cpus.size()) + ")");
        return;
    }
    if (!checkCpuList(out, "cpus", c.cpus, topology) || !isRealtime(c.policy))
        return;
    const std::vector<int> measured = noiseSortedUnique(c.resolvedCpus(topology));
    if (topology.otherThan(measured) < 0)
        out.push_back("cpus: a " + std::string(policyName(c.policy)) + " run needs a usable CPU besides CPU " +
                      formatCpuList(measured) + " (usable: " + topology.usableText() +
                      "), because a real-time poller takes its whole CPU and must never hold every one; measure "
                      "fewer CPUs or choose policy other");
}

} // namespace

std::vector<std::string> NoiseConfig::validate(const CpuTopology& topology) const
{
    std::vector<std::string> out;
    checkNoiseCpus(out, *this, topology);
    if (isDeadline(policy))
        out.push_back("policy must be one of " + policyNameList() +
                      " (got deadline): a SCHED_DEADLINE thread is not pinned and gets only its runtime, so it cannot "
                      "poll one CPU");
    else
        checkSchedulingFields(out, policy, priority);
    if (thresholdNs < kMinThresholdNs || thresholdNs > kMaxThresholdNs)
        out.push_back("threshold must be between " + formatDurationRange(kMinThresholdNs, kMaxThresholdNs) + " (got " +
                      formatDuration(thresholdNs) + ")");
    if (durationNs != 0 && (durationNs < kMinDurationNs || durationNs > kMaxDurationNs))
        out.push_back("duration must be between " + formatDurationRange(kMinDurationNs, kMaxDurationNs) +
                      ", or 0 for until stopped (got " + formatDuration(durationNs) + ")");
    return out;
}

std::vector<int> NoiseConfig::resolvedCpus(const CpuTopology& topology) const
{
    if (!cpus.empty())
        return cpus;
    return {topology.lastUsable()};
}

std::string NoiseConfig::label() const
{
    std::ostringstream s;
    s << policyLabel(policy, priority) << " · "
      << (cpus.empty()       ? std::string("CPU auto")
          : cpus.size() == 1 ? "CPU " + std::to_string(cpus.front())
                             : "CPUs " + formatCpuList(noiseSortedUnique(cpus)))
      << " · threshold " << formatDuration(thresholdNs) << " · "
      << (durationNs > 0 ? formatDuration(durationNs) : std::string("until stopped")) << " · "
      << (trace ? "traced" : "untraced");
    return s.str();
}

namespace {

// The keys of toJson(NoiseConfig), in the order noiseConfigFromJson reads them.
constexpr auto kNoiseFields = std::tuple{
    jsonIntegerList<int>("cpus", &NoiseConfig::cpus, "must be an array of CPU numbers", 0),
    jsonPolicy("policy", &NoiseConfig::policy),
    jsonValue("priority", &NoiseConfig::priority),
    jsonValue("threshold_ns", &NoiseConfig::thresholdNs),
    jsonValue("duration_ns", &NoiseConfig::durationNs),
    jsonValue("trace", &NoiseConfig::trace),
};

} // namespace

RTSCOPE_CONFIG_JSON(NoiseConfig, noiseConfigFromJson, "noise config", kNoiseFields)

} // namespace rtscope
