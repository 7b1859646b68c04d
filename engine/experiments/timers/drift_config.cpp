#include "engine/experiments/timers/drift_config.h"

#include "engine/experiments/config_json.h"
#include "engine/experiments/timers/timer_config_util.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"
#include "engine/util/json_fields.h"
#include "engine/util/name_list.h"
#include "engine/util/units.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

namespace rtscope {

const char* driftMethodName(WaiterKind k)
{
    return k == WaiterKind::Relative ? "naive" : waiterName(k);
}

const char* driftMethodLabel(WaiterKind k)
{
    switch (k) {
    case WaiterKind::Relative:
        return "naive loop (work; sleep P)";
    case WaiterKind::Absolute:
        return "absolute clock_nanosleep";
    case WaiterKind::Timerfd:
        return "timerfd";
    case WaiterKind::Itimer:
        return "setitimer + SIGALRM";
    case WaiterKind::Posix:
        return "POSIX timer";
    case WaiterKind::Busy:
        break;
    }
    return waiterLabel(k);
}

std::optional<WaiterKind> parseDriftMethod(std::string_view name)
{
    const std::optional<WaiterKind> k = parseWaiter(name);
    if (!k || *k == WaiterKind::Busy)
        return std::nullopt;
    return k;
}

std::string driftMethodList()
{
    return nameList(kDriftMethods, driftMethodName);
}

std::string DriftConfig::durationProblem() const
{
    const bool periodOk = periodNs >= kMinPeriodNs && periodNs <= kMaxPeriodNs;
    const int64_t lo = periodOk ? kMinTicks * periodNs : kMinTicks * kMinPeriodNs;
    if (durationNs < lo || durationNs > kMaxRunNs)
        return "duration must be between " + formatDuration(lo) + " (two periods) and " + formatDuration(kMaxRunNs) +
               " (got " + formatDuration(durationNs) + ")";
    if (periodOk && durationNs / periodNs > kMaxTicks)
        return "duration must be at most " + std::to_string(kMaxTicks) + " periods (" +
               formatDuration(kMaxTicks * periodNs) + " at " + formatDuration(periodNs) + ") (got " +
               formatDuration(durationNs) + ")";
    return {};
}

std::vector<std::string> DriftConfig::validate(const CpuTopology& cpus) const
{
    std::vector<std::string> out;
    const bool periodOk = periodNs >= kMinPeriodNs && periodNs <= kMaxPeriodNs;
    if (!periodOk)
        out.push_back("period must be between " + formatDuration(kMinPeriodNs) + " and " +
                      formatDuration(kMaxPeriodNs) + " (got " + formatDuration(periodNs) + ")");
    if (periodOk) {
        const int64_t maxWork = periodNs / 100 * kMaxWorkPercent;
        if (workNs < 0 || workNs > maxWork)
            out.push_back("work must be between 0 ns and " + std::to_string(kMaxWorkPercent) + " % of the period (" +
                          formatDuration(maxWork) + ") (got " + formatDuration(workNs) + ")");
    } else if (workNs < 0) {
        out.push_back("work must be between 0 ns and " + std::to_string(kMaxWorkPercent) + " % of the period (got " +
                      formatDuration(workNs) + ")");
    }

    if (durationNs != 0) {
        if (std::string p = durationProblem(); !p.empty())
            out.push_back(std::move(p));
    } else if (ticks < kMinTicks || ticks > kMaxTicks) {
        out.push_back("ticks must be between " + std::to_string(kMinTicks) + " and " + std::to_string(kMaxTicks) +
                      " (got " + std::to_string(ticks) + ")");
    } else if (periodOk && ticks > kMaxRunNs / periodNs) {
        out.push_back("ticks × period must be at most " + formatDuration(kMaxRunNs) + " (got " + std::to_string(ticks) +
                      " × " + formatDuration(periodNs) + ")");
    }

    checkMethodList(
        out, methods, [](WaiterKind k) { return parseDriftMethod(waiterName(k)).has_value(); },
        [](WaiterKind k) { return std::string(driftMethodName(k)); }, driftMethodList());
    if (periodOk && periodNs % kNsPerUs != 0 && std::ranges::find(methods, WaiterKind::Itimer) != methods.end())
        out.push_back("period must be a whole number of microseconds when methods include itimer (setitimer "
                      "counts in us) (got " +
                      std::to_string(periodNs) + " ns)");

    checkSchedulingFields(out, policy, priority);
    checkTimerSlack(out, timerSlackNs, kMaxSlackNs);
    checkMeasuringCpu(out, cpu, cpus, policy);

    if (isRealtime(policy) && periodOk && workNs > 0 && !methods.empty()) {
        const int64_t combined = workNs * int64_t(methods.size());
        if (combined > periodNs / 100 * kMaxWorkPercent)
            out.push_back("work × methods must be at most " + std::to_string(kMaxWorkPercent) +
                          " % of the period under " + policyName(policy) + " (got " + std::to_string(methods.size()) +
                          " × " + formatDuration(workNs) + " = " + formatDuration(combined) + " of " +
                          formatDuration(periodNs) + "): real-time threads that never block starve their CPU");
    }

    if (stallNs < 0 || stallNs > kMaxStallNs)
        out.push_back("stall must be between 0 ns and " + formatDuration(kMaxStallNs) + " (got " +
                      formatDuration(stallNs) + ")");
    const int64_t n = periodOk ? tickCount() : ticks;
    if (stallTick < 0 || (stallTick > 0 && stallTick >= n))
        out.push_back("stall-at must be between 1 and " + std::to_string(std::max<int64_t>(n - 1, 1)) +
                      " (the tick after which to stall), or 0 for no stall (got " + std::to_string(stallTick) + ")");
    else if (stallNs > 0 && stallTick == 0)
        out.push_back("stall-at must be between 1 and " + std::to_string(std::max<int64_t>(n - 1, 1)) +
                      " when stall is set (got 0)");
    return out;
}

int DriftConfig::resolvedCpu(const CpuTopology& cpus) const
{
    return cpu >= 0 ? cpu : cpus.lastUsable();
}

int64_t DriftConfig::tickCount() const
{
    if (durationNs > 0 && periodNs > 0)
        return durationNs / periodNs;
    return ticks;
}

std::string DriftConfig::label() const
{
    std::ostringstream s;
    s << policyLabel(policy, priority) << " · " << formatDuration(periodNs) << " · " << tickCount() << " ticks";
    if (workNs > 0)
        s << " · work " << formatDuration(workNs);
    s << " · slack " << slackText(timerSlackNs) << " · "
      << (cpu >= 0 ? "CPU " + std::to_string(cpu) : std::string("CPU auto"));
    return s.str();
}

namespace {

// The keys of toJson(DriftConfig), in the order driftConfigFromJson reads them. "ticks" is written as the run's
// tick count (the duration's when one is set) and read as the ticks asked for.
constexpr auto kDriftFields = std::tuple{
    jsonValue("period_ns", &DriftConfig::periodNs),
    jsonValue("work_ns", &DriftConfig::workNs),
    jsonCustom(
        "ticks", [](JsonFields& f, DriftConfig& c) { f.integer("ticks", c.ticks); },
        [](nlohmann::json& j, const DriftConfig& c) { j["ticks"] = c.tickCount(); }),
    jsonValue("duration_ns", &DriftConfig::durationNs),
    jsonPolicy("policy", &DriftConfig::policy),
    jsonValue("priority", &DriftConfig::priority),
    jsonValue("timer_slack_ns", &DriftConfig::timerSlackNs),
    jsonValue("cpu", &DriftConfig::cpu),
    jsonValue("stall_tick", &DriftConfig::stallTick),
    jsonValue("stall_ns", &DriftConfig::stallNs),
    jsonMethodList("methods", &DriftConfig::methods, driftMethodName, parseDriftMethod, driftMethodList),
};

} // namespace

RTSCOPE_CONFIG_JSON(DriftConfig, driftConfigFromJson, "drift config", kDriftFields)

} // namespace rtscope
