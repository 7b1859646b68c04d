#pragma once
/// @file JSON and CSV forms of the lock lab's two experiments, shared by the CLI's --json/--csv and the UI's
/// export. Times are durations in nanoseconds (`*_ns`) or seconds relative to the run's start (`*_s`).
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace rtscope {

struct ContentionSnapshot;
struct ContentionKindResult;
struct InversionSnapshot;

/// @brief Throughput of @p r relative to the plain mutex of the same snapshot; 0 when there is no mutex run
/// (or it made no acquisitions).
double throughputVsMutex(const ContentionSnapshot& s, const ContentionKindResult& r);

/// @brief Config, worker CPUs, then per kind: state, throughput (and its ratio to the mutex), the wait
/// summary and its non-empty buckets, context switches, CPU time per acquisition, fairness, the acquisition
/// paths (uncontended / spun and won / slept, and why rtscope's adaptive lock slept) and every worker's figures.
nlohmann::json contentionReportJson(const ContentionSnapshot& s);

/// @brief One row per kind: kind,state,threads,hold_ns,work_ns,elapsed_s,acquisitions,acquisitions_per_s,
/// ratio_vs_mutex,wait_p50_ns,wait_p99_ns,wait_max_ns,voluntary_switches,involuntary_switches,
/// switches_per_1k_acquisitions,cpu_ns_per_acquisition,fairness_jain,min_share,max_share,uncontended,spun,slept,
/// slept_owner_not_running,slept_owner_on_this_cpu,slept_spin_limit,samples_dropped
std::string contentionCsv(const ContentionSnapshot& s);

/// @brief Config, CPUs, the high thread's wait summary, periods, contended/missed/skipped counts, the inversion
/// (medium ran while high waited), every period and the timeline segments in the snapshot, watchdog trips.
nlohmann::json inversionReportJson(const InversionSnapshot& s);

/// @brief The timeline, one row per segment: lane,state,start_s,end_s,duration_us (seconds from period 0).
std::string inversionTimelineCsv(const InversionSnapshot& s);

} // namespace rtscope
