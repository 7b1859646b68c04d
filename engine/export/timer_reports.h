#pragma once
/// @file JSON and CSV forms of the timer lab's runs (drift, sleep floor), for --json/--csv output and the UI's
/// exports, so both write the same columns.
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace rtscope {

struct DriftSnapshot;
struct SleepFloorSnapshot;

/// @brief The "rtscope" object of `rtscope drift --json`: config, slack in force, per-method figures.
nlohmann::json driftReportJson(const DriftSnapshot& snap);
/// @brief One row per tick per method: method, tick, wake time since t0, drift, lateness, missed ticks before it.
std::string driftCsv(const DriftSnapshot& snap);

/// @brief The "rtscope" object of `rtscope sleep-floor --json`: config, clock_getres, slack, floors, and the
/// figures of every request × method.
nlohmann::json sleepFloorReportJson(const SleepFloorSnapshot& snap);
/// @brief One row per sample: request, method, sample number, actual duration, overshoot, CPU time.
std::string sleepFloorCsv(const SleepFloorSnapshot& snap);

} // namespace rtscope
