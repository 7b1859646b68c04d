#include "engine/experiments/locks/inversion_config.h"

#include "engine/experiments/config_json.h"
#include "engine/experiments/locks/lock_lab_config_util.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/sched_policy.h"
#include "engine/util/json_fields.h"
#include "engine/util/units.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

namespace rtscope {

namespace {} // namespace

const std::vector<LockKind>& InversionConfig::inversionKinds()
{
    static const std::vector<LockKind> kinds = {LockKind::Mutex, LockKind::Pi, LockKind::Ceiling};
    return kinds;
}

int InversionConfig::reservedCpu(const CpuTopology& cpus)
{
    return locklab::reservedCpu(cpus);
}

int InversionConfig::resolvedCpu(const CpuTopology& cpus) const
{
    if (cpu >= 0)
        return cpu;
    const int reserved = reservedCpu(cpus);
    const std::vector<int> usable = locklab::usableCpus(cpus);
    for (auto it = usable.rbegin(); it != usable.rend(); ++it)
        if (*it != reserved)
            return *it;
    return -1;
}

std::vector<std::string> InversionConfig::validate(const CpuTopology& cpus) const
{
    std::vector<std::string> out;
    const auto& kinds = inversionKinds();
    if (std::find(kinds.begin(), kinds.end(), lock) == kinds.end())
        out.push_back(std::string("lock must be mutex, pi or ceiling (got ") + lockKindName(lock) + ")");
    if (mediumBurstNs < kMinBurstNs || mediumBurstNs > kMaxBurstNs)
        out.push_back("medium-burst must be between " + formatDurationRange(kMinBurstNs, kMaxBurstNs) + " (got " +
                      formatDuration(mediumBurstNs) + ")");
    if (holdNs < kMinHoldNs || holdNs > kMaxHoldNs)
        out.push_back("hold must be between " + formatDurationRange(kMinHoldNs, kMaxHoldNs) + " (got " +
                      formatDuration(holdNs) + ")");
    if (periodNs < kMinPeriodNs || periodNs > kMaxPeriodNs)
        out.push_back("period must be between " + formatDurationRange(kMinPeriodNs, kMaxPeriodNs) + " (got " +
                      formatDuration(periodNs) + ")");
    else if (holdNs >= kMinHoldNs && holdNs <= kMaxHoldNs && holdNs > periodNs / 2)
        out.push_back("hold must be at most half the period (got " + formatDuration(holdNs) + " with period " +
                      formatDuration(periodNs) + ")");
    if (durationNs < kMinDurationNs || durationNs > kMaxDurationNs)
        out.push_back("duration must be between " + formatDurationRange(kMinDurationNs, kMaxDurationNs) + " (got " +
                      formatDuration(durationNs) + ")");

    const int lo = priorityMin(Policy::Fifo);
    auto checkPriority = [&](const char* field, int p) {
        if (p < lo || p > kMaxPriority)
            out.push_back(std::string(field) + " must be between " + std::to_string(lo) + " and " +
                          std::to_string(kMaxPriority) + " (got " + std::to_string(p) +
                          "); 99 is kept for the watchdog");
    };
    checkPriority("low-priority", lowPriority);
    checkPriority("medium-priority", mediumPriority);
    checkPriority("high-priority", highPriority);
    if (!(lowPriority < mediumPriority && mediumPriority < highPriority))
        out.push_back("priorities must rise from low to medium to high (got low " + std::to_string(lowPriority) +
                      ", medium " + std::to_string(mediumPriority) + ", high " + std::to_string(highPriority) + ")");

    const std::vector<int> usable = locklab::usableCpus(cpus);
    const int reserved = reservedCpu(cpus);
    if (usable.size() < 2) {
        out.push_back("cpu: the inversion lab needs two usable CPUs (one for its three SCHED_FIFO threads, one for "
                      "the UI, the collector and the watchdog); this process may use only " +
                      cpus.usableText());
    } else if (cpu != -1 && !cpus.usable(cpu)) {
        out.push_back("cpu must be one of the online CPUs this process may use (" + cpus.usableText() + "); got " +
                      std::to_string(cpu));
    } else if (cpu == reserved) {
        out.push_back("cpu must not be " + std::to_string(reserved) +
                      ": that CPU stays free for the UI, the collector and the watchdog (got " + std::to_string(cpu) +
                      ")");
    }
    return out;
}

std::string InversionConfig::label() const
{
    std::ostringstream s;
    s << lockKindName(lock) << " · burst " << formatDuration(mediumBurstNs) << " · hold " << formatDuration(holdNs)
      << " · period " << formatDuration(periodNs) << " · "
      << (cpu >= 0 ? "CPU " + std::to_string(cpu) : std::string("CPU auto"));
    return s.str();
}

namespace {

// The keys of toJson(InversionConfig), in the order inversionConfigFromJson reads them.
constexpr auto kInversionFields = std::tuple{
    jsonName("lock", &InversionConfig::lock, lockKindName, parseLockKind, "mutex, pi, ceiling"),
    jsonValue("medium_burst_ns", &InversionConfig::mediumBurstNs),
    jsonValue("hold_ns", &InversionConfig::holdNs),
    jsonValue("period_ns", &InversionConfig::periodNs),
    jsonValue("duration_ns", &InversionConfig::durationNs),
    jsonValue("cpu", &InversionConfig::cpu),
    jsonValue("low_priority", &InversionConfig::lowPriority),
    jsonValue("medium_priority", &InversionConfig::mediumPriority),
    jsonValue("high_priority", &InversionConfig::highPriority),
};

} // namespace

RTSCOPE_CONFIG_JSON(InversionConfig, inversionConfigFromJson, "inversion config", kInversionFields)

} // namespace rtscope
