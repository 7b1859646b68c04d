#include "engine/experiments/timers/sleep_floor_config.h"

#include "engine/experiments/config_json.h"
#include "engine/experiments/timers/timer_config_util.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/json_fields.h"
#include "engine/util/name_list.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <sstream>

namespace rtscope {

namespace {

constexpr NamedValue<SleepMethod> kSleepMethodNames[] = {
    {SleepMethod::Nanosleep, "nanosleep", "nanosleep"},
    {SleepMethod::Relative, "rel", "clock_nanosleep relative"},
    {SleepMethod::Absolute, "abs", "clock_nanosleep absolute"},
    {SleepMethod::Busy, "busy", "busy-wait"},
    {SleepMethod::Hybrid, "hybrid", "hybrid (sleep, then spin)"},
};

// Padding per sleeping wait in the run-length estimate: more than any floor measured on the development VM.
constexpr int64_t kFloorAllowanceNs = 100'000;

} // namespace

const char* sleepMethodName(SleepMethod m)
{
    return nameOf(kSleepMethodNames, m);
}

const char* sleepMethodLabel(SleepMethod m)
{
    return labelOf(kSleepMethodNames, m);
}

std::optional<SleepMethod> parseSleepMethod(std::string_view name)
{
    std::string n(name);
    for (char& c : n)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    if (const std::optional<SleepMethod> m = valueNamed(kSleepMethodNames, n))
        return m;
    struct Alias {
        const char* alias;
        SleepMethod method;
    };
    static constexpr Alias kAliases[] = {
        {"relative", SleepMethod::Relative}, {"clock_nanosleep", SleepMethod::Relative},
        {"absolute", SleepMethod::Absolute}, {"busy-wait", SleepMethod::Busy},
        {"spin", SleepMethod::Busy},         {"sleep-spin", SleepMethod::Hybrid},
    };
    if (const Alias* a = findRow(kAliases, &Alias::alias, n))
        return a->method;
    return std::nullopt;
}

std::string sleepMethodList()
{
    return nameList(kSleepMethodNames, [](const auto& n) { return n.name; });
}

std::vector<std::string> SleepFloorConfig::validate(const CpuTopology& cpus) const
{
    std::vector<std::string> out;
    if (requestsNs.empty())
        out.push_back("requests must list at least one length between 0 ns and " + formatDuration(kMaxRequestNs) +
                      " (got none)");
    else if (requestsNs.size() > kMaxRequests)
        out.push_back("requests must list between 1 and " + std::to_string(kMaxRequests) + " lengths (got " +
                      std::to_string(requestsNs.size()) + ")");
    for (size_t i = 0; i < requestsNs.size(); ++i) {
        const int64_t r = requestsNs[i];
        if (r < 0 || r > kMaxRequestNs)
            out.push_back("requests must each be between 0 ns and " + formatDuration(kMaxRequestNs) + " (got " +
                          formatDuration(r) + ")");
        else if (std::find(requestsNs.begin(), requestsNs.begin() + i, r) != requestsNs.begin() + i)
            out.push_back("requests must not repeat " + formatDuration(r));
    }
    const bool samplesOk = samples >= 1 && samples <= kMaxSamples;
    if (!samplesOk)
        out.push_back("samples must be between 1 and " + std::to_string(kMaxSamples) + " (got " +
                      std::to_string(samples) + ")");
    checkMethodList(
        out, methods, [](SleepMethod) { return true; }, [](SleepMethod m) { return std::string(sleepMethodName(m)); },
        sleepMethodList());
    checkTimerSlack(out, timerSlackNs, kMaxSlackNs);
    checkSchedulingFields(out, policy, priority);
    checkMeasuringCpu(out, cpu, cpus, policy);
    if (hybridMarginNs < 0 || hybridMarginNs > kMaxMarginNs)
        out.push_back("margin must be between 0 ns and " + formatDuration(kMaxMarginNs) + " (got " +
                      formatDuration(hybridMarginNs) + ")");

    // The products below only mean something once every factor is in range.
    if (out.empty()) {
        if (totalSamples() > kMaxTotalSamples)
            out.push_back("samples × requests × methods must be at most " + std::to_string(kMaxTotalSamples) +
                          " (got " + std::to_string(samples) + " × " + std::to_string(requestsNs.size()) + " × " +
                          std::to_string(methods.size()) + " = " + std::to_string(totalSamples()) + ")");
        else if (estimatedRunNs() > kMaxRunNs)
            out.push_back("samples × requests × methods would take about " + formatDuration(estimatedRunNs()) +
                          "; the run must be at most " + formatDuration(kMaxRunNs) +
                          " (use fewer samples or shorter requests)");
    }
    return out;
}

int SleepFloorConfig::resolvedCpu(const CpuTopology& cpus) const
{
    return cpu >= 0 ? cpu : cpus.lastUsable();
}

int64_t SleepFloorConfig::totalSamples() const
{
    return int64_t(requestsNs.size()) * int64_t(methods.size()) * samples;
}

int64_t SleepFloorConfig::estimatedRunNs() const
{
    int64_t perSample = 0;
    for (int64_t r : requestsNs)
        for (SleepMethod m : methods)
            perSample += r + (m == SleepMethod::Busy ? 0 : timerSlackNs + kFloorAllowanceNs);
    return perSample * samples;
}

std::string SleepFloorConfig::label() const
{
    std::ostringstream s;
    s << policyLabel(policy, priority) << " · " << requestsNs.size() << " requests × " << methods.size()
      << " methods × " << samples << " samples · slack " << slackText(timerSlackNs) << " · "
      << (cpu >= 0 ? "CPU " + std::to_string(cpu) : std::string("CPU auto")) << " · load "
      << (backgroundLoad ? "on" : "off");
    return s.str();
}

namespace {

// The keys of toJson(SleepFloorConfig), in the order sleepFloorConfigFromJson reads them.
constexpr auto kSleepFloorFields = std::tuple{
    jsonIntegerList<int64_t>("requests_ns", &SleepFloorConfig::requestsNs, "must be a list of integers"),
    jsonValue("samples", &SleepFloorConfig::samples),
    jsonMethodList("methods", &SleepFloorConfig::methods, sleepMethodName, parseSleepMethod, sleepMethodList),
    jsonValue("timer_slack_ns", &SleepFloorConfig::timerSlackNs),
    jsonPolicy("policy", &SleepFloorConfig::policy),
    jsonValue("priority", &SleepFloorConfig::priority),
    jsonValue("cpu", &SleepFloorConfig::cpu),
    jsonValue("background_load", &SleepFloorConfig::backgroundLoad),
    jsonValue("hybrid_margin_ns", &SleepFloorConfig::hybridMarginNs),
};

} // namespace

RTSCOPE_CONFIG_JSON(SleepFloorConfig, sleepFloorConfigFromJson, "sleep-floor config", kSleepFloorFields)

} // namespace rtscope
