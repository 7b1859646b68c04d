#include "ui/workbench/sweep/sweep_config_json.h"

#include <nlohmann/json.hpp>

namespace rtscope {

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

nlohmann::json sweepConfigToJson(const SweepConfig& c)
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
            errors.push_back("settings must be a string like \"other,fifo:50,fifo:80\"");
        else if (!parseSweepSettings(j.at("settings").get<std::string>(), c.settings, error))
            errors.push_back(error);
    }
    if (j.contains("each_ns")) {
        if (!j.at("each_ns").is_number_integer())
            errors.push_back("each_ns must be an integer");
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
            errors.push_back("load_cmd must be a string");
        else
            c.loadCmd = j.at("load_cmd").get<std::string>();
    }
    return c;
}

} // namespace rtscope
