#pragma once
/// @file The system probe as JSON (`rtscope probe --json`, a recording's header, an agent's hello) and back.
#include "engine/rt/system_probe.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rtscope {

nlohmann::json toJson(const SystemProbe& probe);
/// @brief Reads the SystemProbe that toJson(SystemProbe) wrote: missing keys keep their defaults, a key of the
/// wrong type is an error naming it.
SystemProbe systemProbeFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

} // namespace rtscope
