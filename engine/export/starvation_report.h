#pragma once
/// @file JSON and CSV forms of a starvation-lab run, shared by the CLI's --json/--csv and the UI's export.
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace rtscope {

struct StarvationSnapshot;

/// @brief Config, placement, the kernel's throttling settings as read, every burst with its per-counter
/// progress and windows, the lead-in, per-counter rate series, watchdog trips and ring drops. Times are
/// relative to the run's start in seconds (`*_s`) or durations in nanoseconds (`*_ns`).
nlohmann::json starvationReportJson(const StarvationSnapshot& s);

/// @brief One row per burst and counter (burst 0 is the lead-in gap before the first burst):
/// burst,counter,cpu,control,start_s,spinner_ms,progress_during,gap_ms,progress_after,windows,
/// window_ms_total,first_window_offset_ms,watchdog_demoted,interrupted
std::string starvationBurstCsv(const StarvationSnapshot& s);

} // namespace rtscope
