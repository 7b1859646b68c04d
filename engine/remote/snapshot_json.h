#pragma once
/// @file The snapshots of the experiments other than latency as JSON, and back (docs/remote.md, "Snapshot"): what
/// `rtscope agent` streams for them, so a controller on another machine draws the same pages from the same data.
///
/// Lossless: every field of the snapshot is written (the nested figures, the tick and sample logs, the histograms'
/// buckets), 64-bit integers as JSON integers, so toJson(xSnapshotFromJson(toJson(s))) == toJson(s). A double that
/// is not a number is written as null and read back as NaN.
///
/// Reading is for untrusted input (a network peer): a field of the wrong type or out of its type's range, a list
/// longer than its bound (kMaxSnapshotListItems, or the engine's own limit where one exists), or parts that do not
/// fit together (sleep-floor cells that are not requests × methods, a contention kind list that is not the
/// config's) each give one sentence naming the field ("counters[2].ops must be an unsigned integer") and the result
/// is null. An absent field keeps its default, so a peer one version apart still reads.
#include "engine/experiments/deadline/deadline_experiment.h"
#include "engine/experiments/locks/contention_experiment.h"
#include "engine/experiments/locks/inversion_experiment.h"
#include "engine/experiments/noise/noise_experiment.h"
#include "engine/experiments/starvation/starvation_experiment.h"
#include "engine/experiments/sweep/sweep_experiment.h"
#include "engine/experiments/timers/drift_experiment.h"
#include "engine/experiments/timers/sleep_floor_experiment.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace rtscope {

/// @brief The longest list a snapshot read from JSON may hold (ticks, samples, jobs, segments), whatever the field.
inline constexpr size_t kMaxSnapshotListItems = 1'000'000;

nlohmann::json toJson(const StarvationSnapshot& s);
nlohmann::json toJson(const DriftSnapshot& s);
nlohmann::json toJson(const SleepFloorSnapshot& s);
nlohmann::json toJson(const InversionSnapshot& s);
nlohmann::json toJson(const ContentionSnapshot& s);
nlohmann::json toJson(const DeadlineSnapshot& s);
nlohmann::json toJson(const NoiseSnapshot& s);
/// @brief The sweep's results and its running setting's latency snapshot (whose tracing a sweep never has).
nlohmann::json toJson(const SweepSnapshot& s);

/// @brief The snapshot in @p j, or null with at least one sentence added to @p errors.
std::shared_ptr<StarvationSnapshot> starvationSnapshotFromJson(const nlohmann::json& j,
                                                               std::vector<std::string>& errors);
std::shared_ptr<DriftSnapshot> driftSnapshotFromJson(const nlohmann::json& j, std::vector<std::string>& errors);
std::shared_ptr<SleepFloorSnapshot> sleepFloorSnapshotFromJson(const nlohmann::json& j,
                                                               std::vector<std::string>& errors);
std::shared_ptr<InversionSnapshot> inversionSnapshotFromJson(const nlohmann::json& j, std::vector<std::string>& errors);
std::shared_ptr<ContentionSnapshot> contentionSnapshotFromJson(const nlohmann::json& j,
                                                               std::vector<std::string>& errors);
std::shared_ptr<DeadlineSnapshot> deadlineSnapshotFromJson(const nlohmann::json& j, std::vector<std::string>& errors);
std::shared_ptr<NoiseSnapshot> noiseSnapshotFromJson(const nlohmann::json& j, std::vector<std::string>& errors);
/// @brief Also refused: a total or a results list that is not the config's settings, a result whose setting is not
/// the config's at its index, a current setting past the list.
std::shared_ptr<SweepSnapshot> sweepSnapshotFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

namespace snapshot_json_detail {

// Every snapshot reader but the latency one; snapshotFromJson() picks the one whose snapshot's ConfigType is its.
inline constexpr std::tuple kReaders{
    &starvationSnapshotFromJson, &driftSnapshotFromJson,    &sleepFloorSnapshotFromJson, &inversionSnapshotFromJson,
    &contentionSnapshotFromJson, &deadlineSnapshotFromJson, &noiseSnapshotFromJson,      &sweepSnapshotFromJson};

template <class Reader>
using ReadConfig =
    typename std::invoke_result_t<Reader, const nlohmann::json&, std::vector<std::string>&>::element_type::ConfigType;

template <class Config, size_t I = 0> constexpr auto readerFor()
{
    using Reader = std::tuple_element_t<I, std::remove_const_t<decltype(kReaders)>>;
    if constexpr (std::is_same_v<ReadConfig<Reader>, Config>)
        return std::get<I>(kReaders);
    else
        return readerFor<Config, I + 1>();
}

} // namespace snapshot_json_detail

/// @brief The reader of an experiment's snapshot by its config type (the registry's, engine/experiments/registry.h):
/// generic code over the experiments reads with snapshotFromJson(std::type_identity<Config>{}, j, errors).
template <class Config>
auto snapshotFromJson(std::type_identity<Config>, const nlohmann::json& j, std::vector<std::string>& errors)
{
    return snapshot_json_detail::readerFor<Config>()(j, errors);
}

} // namespace rtscope
