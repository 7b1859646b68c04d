#pragma once
// The latency config the agent tests start on a target: a period and a sample count, the rest the defaults.
#include "engine/experiments/latency/latency_config.h"

#include <nlohmann/json.hpp>

#include <cstdint>

namespace rtscope::test {

inline nlohmann::json agentLatencyConfig(int64_t periodNs, uint64_t samples)
{
    LatencyConfig c;
    c.periodNs = periodNs;
    c.maxSamples = samples;
    return toJson(c);
}

} // namespace rtscope::test
