#pragma once
/// @file JSON forms of a latency run, for --json output, recordings and exports.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace rtscope {

struct SystemProbe;
struct LatencySnapshot;
struct LatencyTracing;
struct TracedWakeup;
struct CyclictestData;
class Histogram;

/// @brief count, min, avg, max and the standard percentiles of a histogram, in nanoseconds.
nlohmann::json histogramSummaryJson(const Histogram& h);
/// @brief The "rtscope" object: config, per-thread figures, counters, markers, memory lock and dma state, and with
/// tracing asked for (LatencyConfig::trace) the "anatomy" object (anatomyJson()).
nlohmann::json latencyReportJson(const LatencySnapshot& snap);
/// @brief One explained wake-up (docs/experiments/anatomy.md): where and when (t_ns from @p startNs), its parts in
/// ns (null where unknown), the interrupts and tasks in it, and anatomyVerdict(). The raw events are counted, not
/// listed.
nlohmann::json tracedWakeupJson(const TracedWakeup& w, int64_t startNs);
/// @brief The "anatomy" object of a traced run: status (active or unavailable, with the reason), the reader's
/// stats with events per second over @p durationNs, the wake-up counts, the culprit table, the worst wake-ups and
/// those over the threshold with the threshold's total.
nlohmann::json anatomyJson(const LatencyTracing& tracing, int64_t startNs, int64_t durationNs);
/// @brief cyclictest's thread figures from a latency snapshot (bins from the exact µs histogram).
CyclictestData cyclictestDataFrom(const LatencySnapshot& snap);

} // namespace rtscope
