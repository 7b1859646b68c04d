#include "engine/experiments/sweep/sweep_config.h"

#include "engine/rt/cpu_topology.h"
#include "engine/util/json_fields.h"
#include "engine/util/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>

namespace rtscope {

namespace {

// A duration the settings parser reads back exactly: the largest unit that divides it ("200us", "1ms", "1500ns").
std::string sweepDurationText(int64_t ns)
{
    if (ns != 0 && ns % 1'000'000 == 0)
        return std::to_string(ns / 1'000'000) + "ms";
    if (ns != 0 && ns % 1000 == 0)
        return std::to_string(ns / 1000) + "us";
    return std::to_string(ns) + "ns";
}

// "deadline:RUNTIME[/DEADLINE]": the part after the colon.
bool parseSweepDeadline(const std::string& item, const std::string& params, SweepSetting& s, std::string& error)
{
    const size_t slash = params.find('/');
    const auto runtime = parseDuration(params.substr(0, slash));
    const auto deadline =
        slash == std::string::npos ? std::optional<int64_t>(0) : parseDuration(params.substr(slash + 1));
    if (!runtime || !deadline) {
        error = "settings: '" + item +
                "' needs deadline:RUNTIME or deadline:RUNTIME/DEADLINE with durations, e.g. "
                "deadline:200us/1ms";
        return false;
    }
    s.runtimeNs = *runtime;
    s.deadlineNs = *deadline;
    return true;
}

} // namespace

std::string SweepSetting::label() const
{
    if (isDeadline(policy))
        return policyLabel(policy, 0) + ' ' + formatDuration(runtimeNs) + '/' +
               (deadlineNs != 0 ? formatDuration(deadlineNs) : std::string("period"));
    return policyLabel(policy, priority);
}

LatencyConfig SweepSetting::applyTo(LatencyConfig base) const
{
    base.policy = policy;
    base.priority = priority;
    base.runtimeNs = runtimeNs;
    base.deadlineNs = deadlineNs;
    return base;
}

bool parseSweepSettings(std::string_view text, std::vector<SweepSetting>& out, std::string& error)
{
    out.clear();
    for (const std::string& item : splitList(text)) {
        const size_t colon = item.find(':');
        const std::string name = item.substr(0, colon);
        auto policy = parseLatencyPolicy(name);
        if (!policy) {
            error = "settings: '" + item +
                    "' is not a policy; use other, batch, idle, fifo:PRIO, rr:PRIO or deadline:RUNTIME/DEADLINE";
            return false;
        }
        SweepSetting s{*policy, 0};
        if (isDeadline(*policy)) {
            if (colon == std::string::npos) {
                error = "settings: '" + item + "' needs a runtime, e.g. deadline:200us/1ms";
                return false;
            }
            if (!parseSweepDeadline(item, item.substr(colon + 1), s, error))
                return false;
        } else if (colon != std::string::npos) {
            const std::string prio = item.substr(colon + 1);
            auto [p, ec] = std::from_chars(prio.data(), prio.data() + prio.size(), s.priority);
            if (ec != std::errc() || p != prio.data() + prio.size()) {
                error = "settings: '" + item + "' has no valid priority after ':'";
                return false;
            }
        } else if (isRealtime(*policy)) {
            error = "settings: '" + item + "' needs a priority, e.g. " + name + ":80";
            return false;
        }
        out.push_back(s);
    }
    if (out.empty()) {
        error = "settings must list at least one setting, e.g. other,fifo:50,fifo:80";
        return false;
    }
    return true;
}

std::vector<std::string> SweepConfig::validate(const CpuTopology& cpus) const
{
    std::vector<std::string> out;
    if (settings.empty() || settings.size() > kMaxSettings)
        out.push_back("settings must list between 1 and " + std::to_string(kMaxSettings) + " settings (got " +
                      std::to_string(settings.size()) + ")");
    if (eachNs < kMinEachNs || eachNs > kMaxEachNs)
        out.push_back("each must be between " + formatDuration(kMinEachNs) + " and " + formatDuration(kMaxEachNs) +
                      " (got " + formatDuration(eachNs) + ")");
    if (base.durationNs != 0 || base.maxSamples != 0)
        out.push_back("duration and samples are set per setting by 'each'; leave them unset");
    // The sweep keeps each setting's figures and histogram, not the kernel's trace of it: the anatomy is the
    // Latency page's (docs/experiments/anatomy.md), and a snapshot that carried one per setting would not fit a
    // snapshot message (docs/remote.md).
    if (base.trace)
        out.push_back("base: trace is not a sweep option (the latency anatomy runs on the Latency page); leave it "
                      "unset");
    if (!loadCmd.empty() && base.hogs > 0)
        out.push_back("load-cmd and hogs are exclusive: choose built-in hogs or your own load");
    if (loadCmd.size() > kMaxLoadCmdChars)
        out.push_back("load-cmd must be at most " + std::to_string(kMaxLoadCmdChars) + " characters (got " +
                      std::to_string(loadCmd.size()) + ")");
    // A problem of the shared flags (--cpu, --hogs, --period) is every setting's: said once, without a setting's
    // name, rather than once per setting.
    std::vector<std::vector<std::string>> perSetting;
    for (const SweepSetting& s : settings) {
        LatencyConfig c = s.applyTo(base);
        c.durationNs = std::clamp(eachNs, LatencyConfig::kMinDurationNs, LatencyConfig::kMaxDurationNs);
        perSetting.push_back(c.validate(cpus));
    }
    auto sharedByEvery = [&](const std::string& e) {
        return settings.size() > 1 && std::all_of(perSetting.begin(), perSetting.end(), [&](const auto& problems) {
                   return std::find(problems.begin(), problems.end(), e) != problems.end();
               });
    };
    for (size_t i = 0; i < settings.size(); ++i)
        for (const std::string& e : perSetting[i]) {
            if (!sharedByEvery(e))
                out.push_back(settings[i].label() + ": " + e);
            else if (i == 0)
                out.push_back(e);
        }
    return out;
}

std::string sweepSettingsText(const std::vector<SweepSetting>& settings)
{
    std::string text;
    for (const SweepSetting& s : settings) {
        text += text.empty() ? "" : ",";
        text += policyName(s.policy);
        if (isRealtime(s.policy))
            text += ":" + std::to_string(s.priority);
        if (isDeadline(s.policy))
            text += ":" + sweepDurationText(s.runtimeNs) +
                    (s.deadlineNs != 0 ? "/" + sweepDurationText(s.deadlineNs) : std::string());
    }
    return text;
}

std::string SweepConfig::label() const
{
    return std::to_string(settings.size()) + (settings.size() == 1 ? " setting × " : " settings × ") +
           formatDuration(eachNs) + " · " + sweepSettingsText(settings);
}

nlohmann::json toJson(const SweepConfig& c)
{
    return nlohmann::json{{"settings", sweepSettingsText(c.settings)},
                          {"each_ns", c.eachNs},
                          {"base", toJson(c.base)},
                          {"load_cmd", c.loadCmd}};
}

SweepConfig sweepConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    SweepConfig c;
    JsonFields f(j, errors, "sweep config");
    if (!f.ok())
        return c;
    f.rejectUnknown({"settings", "each_ns", "base", "load_cmd"});
    std::string settings;
    if (f.string({"settings", Presence::Optional,
                  "must be a string of 1 to " + std::to_string(SweepConfig::kMaxSettings) +
                      " settings like \"other,fifo:50,fifo:80\""},
                 settings)) {
        std::string error;
        if (!parseSweepSettings(settings, c.settings, error))
            f.add(error);
    }
    f.integer({"each_ns", Presence::Optional,
               "must be an integer number of nanoseconds between " + formatDuration(SweepConfig::kMinEachNs) + " and " +
                   formatDuration(SweepConfig::kMaxEachNs)},
              c.eachNs);
    if (const nlohmann::json* base = f.find("base")) {
        // The latency config's own sentences, each after "base: ".
        std::vector<std::string> baseErrors;
        c.base = latencyConfigFromJson(*base, baseErrors);
        for (const std::string& e : baseErrors)
            f.add("base: " + e);
    }
    f.string({"load_cmd", Presence::Optional,
              "must be a string of at most " + std::to_string(SweepConfig::kMaxLoadCmdChars) + " characters"},
             c.loadCmd);
    return c;
}

} // namespace rtscope
