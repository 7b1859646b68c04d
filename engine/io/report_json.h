#pragma once
/// @file JSON forms of the probe and of a latency run, for --json output, recordings and exports.
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace rtscope {

struct SystemProbe;
struct LatencySnapshot;
struct CyclictestData;
class Histogram;

nlohmann::json toJson(const SystemProbe& probe);
/// @brief count, min, avg, max and the standard percentiles of a histogram, in nanoseconds.
nlohmann::json histogramSummaryJson(const Histogram& h);
/// @brief The "rtscope" object: config, per-thread figures, counters, markers, memory lock and dma state.
nlohmann::json latencyReportJson(const LatencySnapshot& snap);
/// @brief cyclictest's thread figures from a latency snapshot (bins from the exact µs histogram).
CyclictestData cyclictestDataFrom(const LatencySnapshot& snap);

} // namespace rtscope
