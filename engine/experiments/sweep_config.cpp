#include "engine/experiments/sweep_config.h"

#include "engine/rt/cpu_topology.h"
#include "engine/util/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>

namespace rtscope {

bool parseSweepSettings(std::string_view text, std::vector<SweepSetting>& out, std::string& error)
{
    out.clear();
    for (const std::string& item : splitList(text)) {
        const size_t colon = item.find(':');
        const std::string name = item.substr(0, colon);
        auto policy = parsePolicy(name);
        if (!policy) {
            error = "settings: '" + item + "' is not a policy; use other, batch, idle, fifo:PRIO or rr:PRIO";
            return false;
        }
        SweepSetting s{*policy, 0};
        if (colon != std::string::npos) {
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
    if (!loadCmd.empty() && base.hogs > 0)
        out.push_back("load-cmd and hogs are exclusive: choose built-in hogs or your own load");
    if (loadCmd.size() > kMaxLoadCmdChars)
        out.push_back("load-cmd must be at most " + std::to_string(kMaxLoadCmdChars) + " characters (got " +
                      std::to_string(loadCmd.size()) + ")");
    for (const SweepSetting& s : settings) {
        LatencyConfig c = base;
        c.policy = s.policy;
        c.priority = s.priority;
        c.durationNs = std::clamp(eachNs, LatencyConfig::kMinDurationNs, LatencyConfig::kMaxDurationNs);
        for (const std::string& e : c.validate(cpus))
            out.push_back(s.label() + ": " + e);
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
    }
    return text;
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
    if (!j.is_object()) {
        errors.push_back("sweep config must be a JSON object");
        return c;
    }
    for (const auto& [key, value] : j.items())
        if (key != "settings" && key != "each_ns" && key != "base" && key != "load_cmd")
            errors.push_back("unknown field '" + key + "'");
    if (j.contains("settings")) {
        std::string error;
        if (!j.at("settings").is_string())
            errors.push_back("settings must be a string of 1 to " + std::to_string(SweepConfig::kMaxSettings) +
                             " settings like \"other,fifo:50,fifo:80\"");
        else if (!parseSweepSettings(j.at("settings").get<std::string>(), c.settings, error))
            errors.push_back(error);
    }
    if (j.contains("each_ns")) {
        if (!j.at("each_ns").is_number_integer())
            errors.push_back("each_ns must be an integer number of nanoseconds between " +
                             formatDuration(SweepConfig::kMinEachNs) + " and " +
                             formatDuration(SweepConfig::kMaxEachNs));
        else
            c.eachNs = j.at("each_ns").get<int64_t>();
    }
    if (j.contains("base")) {
        std::vector<std::string> baseErrors;
        c.base = latencyConfigFromJson(j.at("base"), baseErrors);
        for (const std::string& e : baseErrors)
            errors.push_back("base: " + e);
    }
    if (j.contains("load_cmd")) {
        if (!j.at("load_cmd").is_string())
            errors.push_back("load_cmd must be a string of at most " + std::to_string(SweepConfig::kMaxLoadCmdChars) +
                             " characters");
        else
            c.loadCmd = j.at("load_cmd").get<std::string>();
    }
    return c;
}

} // namespace rtscope
