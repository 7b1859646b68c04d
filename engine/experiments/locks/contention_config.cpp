#include "engine/experiments/locks/contention_config.h"

#include "engine/experiments/config_json.h"
#include "engine/experiments/locks/lock_lab_config_util.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/json_fields.h"
#include "engine/util/units.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

namespace rtscope {

namespace {

std::string kindList()
{
    std::string out;
    const auto& kinds = ContentionConfig::contentionKinds();
    for (size_t i = 0; i < kinds.size(); ++i)
        out += std::string(i == 0 ? "" : (i + 1 == kinds.size() ? " or " : ", ")) + lockKindName(kinds[i]);
    return out;
}

} // namespace

const char* placementName(Placement p)
{
    return p == Placement::OneCpu ? "one-cpu" : "spread";
}

std::optional<Placement> parsePlacement(std::string_view name)
{
    if (name == "spread" || name == "round-robin" || name == "rr")
        return Placement::Spread;
    if (name == "one-cpu" || name == "one" || name == "single")
        return Placement::OneCpu;
    return std::nullopt;
}

const std::vector<LockKind>& ContentionConfig::contentionKinds()
{
    static const std::vector<LockKind> kinds = {LockKind::Spin, LockKind::Mutex, LockKind::AdaptiveGlibc,
                                                LockKind::Adaptive, LockKind::Pi};
    return kinds;
}

std::vector<std::string> ContentionConfig::validate(const CpuTopology& cpus) const
{
    std::vector<std::string> out;
    const auto& allowedKinds = contentionKinds();
    if (kinds.empty())
        out.push_back("kinds must name 1 to " + std::to_string(allowedKinds.size()) + " of " + kindList() +
                      " (got none)");
    for (size_t i = 0; i < kinds.size(); ++i) {
        if (std::find(allowedKinds.begin(), allowedKinds.end(), kinds[i]) == allowedKinds.end())
            out.push_back(std::string("kinds: ") + lockKindName(kinds[i]) +
                          " is not a contention kind (it needs real-time threads below its ceiling; the inversion "
                          "lab runs it); choose among " +
                          kindList());
        else if (std::find(kinds.begin(), kinds.begin() + long(i), kinds[i]) != kinds.begin() + long(i))
            out.push_back(std::string("kinds must name each kind once (") + lockKindName(kinds[i]) +
                          " is given twice)");
    }
    if (threads < kMinThreads || threads > kMaxThreads)
        out.push_back("threads must be between " + std::to_string(kMinThreads) + " and " + std::to_string(kMaxThreads) +
                      " (got " + std::to_string(threads) + ")");
    if (holdNs < 0 || holdNs > kMaxHoldNs)
        out.push_back("hold must be between " + formatDurationRange(0, kMaxHoldNs) + " (got " + formatDuration(holdNs) +
                      ")");
    if (workNs < 0 || workNs > kMaxWorkNs)
        out.push_back("work must be between " + formatDurationRange(0, kMaxWorkNs) + " (got " + formatDuration(workNs) +
                      ")");

    const bool rt = isRealtime(policy);
    const int64_t maxDuration = rt ? kMaxRealtimeDurationNs : kMaxDurationNs;
    if (durationNs < kMinDurationNs || durationNs > maxDuration)
        out.push_back("duration must be between " + formatDurationRange(kMinDurationNs, maxDuration) + " per kind" +
                      (rt ? std::string(" with policy ") + policyName(policy) : std::string()) + " (got " +
                      formatDuration(durationNs) + ")");

    if (rt) {
        if (priority < priorityMin(policy) || priority > priorityMax(policy))
            out.push_back("priority must be between " + std::to_string(priorityMin(policy)) + " and " +
                          std::to_string(priorityMax(policy)) + " for " + policyName(policy) + " (got " +
                          std::to_string(priority) + ")");
    } else if (priority != 0) {
        out.push_back(std::string("priority must be 0 for ") + policyName(policy) + " (got " +
                      std::to_string(priority) + "); choose policy fifo or rr for a real-time priority");
    }
    if (nice < -20 || nice > 19)
        out.push_back("nice must be between -20 and 19 (got " + std::to_string(nice) + ")");
    else if (rt && nice != 0)
        out.push_back(realtimeNiceProblem(policy, nice));
    if (spinLimit < 0 || spinLimit > kMaxSpinLimit)
        out.push_back("spin-limit must be between 0 and " + std::to_string(kMaxSpinLimit) + " (got " +
                      std::to_string(spinLimit) + ")");

    if (cpus.lastUsable() < 0) {
        out.push_back("cpu: this process may not run on any online CPU");
        return out;
    }
    if (cpu != -1 && !cpus.usable(cpu))
        out.push_back("cpu must be one of the online CPUs this process may use (" + cpus.usableText() + "); got " +
                      std::to_string(cpu));
    if (cpu != -1 && placement == Placement::Spread)
        out.push_back("cpu applies to placement one-cpu only (got cpu " + std::to_string(cpu) +
                      " with placement spread)");
    if (rt) {
        // Busy real-time workers own their CPU: keep them off every CPU but one, and off the one the UI, the
        // collector and the control thread use.
        const int reserved = locklab::reservedCpu(cpus);
        if (placement != Placement::OneCpu)
            out.push_back(std::string("placement must be one-cpu with policy ") + policyName(policy) +
                          ": busy real-time workers on every CPU would starve the UI and the collector");
        else if (locklab::usableCpus(cpus).size() < 2)
            out.push_back(std::string("policy ") + policyName(policy) +
                          " needs two usable CPUs (one for the workers, one for the UI and the collector); this "
                          "process may use only " +
                          cpus.usableText());
        else if (resolvedCpu(cpus) == reserved)
            out.push_back("cpu must not be " + std::to_string(reserved) + " with policy " + policyName(policy) +
                          ": that CPU stays free for the UI and the collector (got " + std::to_string(reserved) + ")");
        if (std::find(kinds.begin(), kinds.end(), LockKind::Spin) != kinds.end())
            out.push_back(std::string("kinds: spin cannot run with policy ") + policyName(policy) +
                          ": the workers share one CPU, and a real-time waiter spinning there never lets the holder "
                          "run");
    }
    return out;
}

int ContentionConfig::resolvedCpu(const CpuTopology& cpus) const
{
    return cpu >= 0 ? cpu : cpus.lastUsable();
}

std::vector<int> ContentionConfig::workerCpus(const CpuTopology& cpus) const
{
    std::vector<int> out;
    const std::vector<int> usable = locklab::usableCpus(cpus);
    for (int i = 0; i < threads; ++i) {
        if (placement == Placement::OneCpu || usable.empty())
            out.push_back(resolvedCpu(cpus));
        else
            out.push_back(usable[size_t(i) % usable.size()]);
    }
    return out;
}

LockOptions ContentionConfig::lockOptions() const
{
    LockOptions o;
    o.spinLimit = spinLimit;
    o.stealing = stealing;
    return o;
}

std::string ContentionConfig::label() const
{
    std::ostringstream s;
    s << threads << " threads " << (placement == Placement::OneCpu ? "on one CPU" : "spread") << " · hold "
      << formatDuration(holdNs) << " · work " << formatDuration(workNs) << " · " << policyLabel(policy, priority, nice)
      << " · " << formatDuration(durationNs) << " per kind";
    return s.str();
}

namespace {

// Every entry of "kinds" is read: one sentence per name that is not a lock kind.
void readLockKinds(JsonFields& f, ContentionConfig& c)
{
    std::vector<LockKind> kinds;
    const auto kind = [&](const nlohmann::json& item, size_t) {
        const std::optional<LockKind> k = item.is_string() ? parseLockKind(item.get<std::string>()) : std::nullopt;
        if (!k)
            f.report("kinds", "entries must be lock kind names (spin, mutex, adaptive-glibc, adaptive, pi)");
        else
            kinds.push_back(*k);
        return true;
    };
    if (f.list({"kinds", Presence::Optional, "must be an array of lock kind names"}, kind))
        c.kinds = std::move(kinds);
}

void writeLockKinds(nlohmann::json& j, const ContentionConfig& c)
{
    nlohmann::json kinds = nlohmann::json::array();
    for (LockKind k : c.kinds)
        kinds.push_back(lockKindName(k));
    j["kinds"] = kinds;
}

// The keys of toJson(ContentionConfig), in the order contentionConfigFromJson reads them.
constexpr auto kContentionFields = std::tuple{
    jsonCustom("kinds", readLockKinds, writeLockKinds),
    jsonValue("threads", &ContentionConfig::threads),
    jsonName("placement", &ContentionConfig::placement, placementName, parsePlacement, "spread, one-cpu"),
    jsonValue("cpu", &ContentionConfig::cpu),
    jsonPolicy("policy", &ContentionConfig::policy),
    jsonValue("priority", &ContentionConfig::priority),
    jsonValue("nice", &ContentionConfig::nice),
    jsonValue("hold_ns", &ContentionConfig::holdNs),
    jsonValue("work_ns", &ContentionConfig::workNs),
    jsonValue("duration_ns", &ContentionConfig::durationNs),
    jsonValue("spin_limit", &ContentionConfig::spinLimit),
    jsonValue("stealing", &ContentionConfig::stealing),
};

} // namespace

RTSCOPE_CONFIG_JSON(ContentionConfig, contentionConfigFromJson, "contention config", kContentionFields)

} // namespace rtscope
