#pragma once
// The JSON form of a sweep configuration (saved settings, presets, applyConfigJson): the keys of
// `rtscope sweep --json` ("each_ns", "base", "load_cmd") plus "settings" in the --settings syntax
// ("other,fifo:1,fifo:80"). The engine reads the parts it owns — the settings (parseSweepSettings) and the base
// (latencyConfigFromJson) — and every range stays SweepConfig::validate()'s job. It belongs in the engine next to
// latencyConfigFromJson; it lives here until the engine grows a sweepConfigFromJson.
#include "engine/experiments/sweep_experiment.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace rtscope {

/// "other,fifo:1,fifo:80": the --settings text of @p settings (parseSweepSettings reads it back).
std::string sweepSettingsText(const std::vector<SweepSetting>& settings);

nlohmann::json sweepConfigToJson(const SweepConfig& config);
/// Reads a sweep config; unknown keys and wrong types are reported in @p errors with the field named, missing keys
/// keep their defaults.
SweepConfig sweepConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

} // namespace rtscope
