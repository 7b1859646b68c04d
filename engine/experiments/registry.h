#pragma once
// The experiments a preset, `rtscope run` and a GUI page can name, in one list (docs/architecture.md, "How to add
// an experiment"). Each entry is a config type with its traits: the name presets and pages use, how its JSON is
// read, the CPU topology its placement is checked against, and the experiment that runs it (ExperimentHost<Run>).
// Everything that chooses an experiment by name goes through withExperimentConfigType(), so a new experiment is one
// ExperimentTraits specialisation and one entry in ExperimentConfigs; the compiler names a page or wire reader that
// lacks it, and `rtscope run --list` an experiment whose command registers no HeadlessRun (app/cli/experiment_runs.h).
//
// The sweep is not an entry: it runs the latency experiment over a list of settings and has no preset form, so
// presets and `rtscope run` do not name it. It has traits all the same (below the list), which is what the agent and
// a page on a remote target need of an experiment (docs/remote.md): its name, JSON reader and experiment.
#include "engine/experiments/deadline/deadline_experiment.h"
#include "engine/experiments/latency/latency_experiment.h"
#include "engine/experiments/locks/contention_experiment.h"
#include "engine/experiments/locks/inversion_experiment.h"
#include "engine/experiments/noise/noise_experiment.h"
#include "engine/experiments/starvation/starvation_experiment.h"
#include "engine/experiments/sweep/sweep_experiment.h"
#include "engine/experiments/timers/drift_experiment.h"
#include "engine/experiments/timers/sleep_floor_experiment.h"
#include "engine/rt/cpu_topology.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace rtscope {

template <class Config> struct ExperimentTraits;

/// Every experiment's traits name its factory (Experiment), its name (kName) and its reader (fromJson: the config
/// from JSON, with its problems). What an experiment's traits say unless they say otherwise: the view options a client
/// may send with a start (the agent's "series_window_ns" and "timeline_window_ns", docs/remote.md) that the experiment
/// takes. An experiment that takes one says so in its traits and has the setter (setSeriesWindow(ns),
/// setTimelineWindow(ns)).
struct ExperimentTraitDefaults {
    static constexpr bool kTakesSeriesWindow = false;
    static constexpr bool kTakesTimelineWindow = false;
    /// The CPUs a config is placed on and validated against: the calling thread's, unless the traits say otherwise.
    static CpuTopology placementTopology() { return CpuTopology::current(); }
};

/// What every experiment's traits say the same way: @p Host is the factory (an ExperimentHost), whose run names the
/// experiment, and @p FromJson the reader.
template <class Host, auto FromJson> struct ExperimentTraitsOf : ExperimentTraitDefaults {
    using Experiment = Host; ///< the factory: what runs this config
    static constexpr std::string_view kName = Host::RunType::kName;
    static constexpr auto fromJson = FromJson;
};

template <> struct ExperimentTraits<LatencyConfig> : ExperimentTraitsOf<LatencyExperiment, latencyConfigFromJson> {
    static constexpr bool kTakesSeriesWindow = true;
};

template <>
struct ExperimentTraits<StarvationConfig> : ExperimentTraitsOf<StarvationExperiment, starvationConfigFromJson> {
    static constexpr bool kTakesSeriesWindow = true;
    /// The spinner's CPU is chosen among the process's CPUs, not the calling thread's (StarvationConfig).
    static CpuTopology placementTopology() { return StarvationConfig::placementTopology(); }
};

template <> struct ExperimentTraits<DriftConfig> : ExperimentTraitsOf<DriftExperiment, driftConfigFromJson> {};

template <>
struct ExperimentTraits<SleepFloorConfig> : ExperimentTraitsOf<SleepFloorExperiment, sleepFloorConfigFromJson> {};

template <>
struct ExperimentTraits<InversionConfig> : ExperimentTraitsOf<InversionExperiment, inversionConfigFromJson> {
    static constexpr bool kTakesTimelineWindow = true;
};

template <>
struct ExperimentTraits<ContentionConfig> : ExperimentTraitsOf<ContentionExperiment, contentionConfigFromJson> {};

template <> struct ExperimentTraits<DeadlineConfig> : ExperimentTraitsOf<DeadlineExperiment, deadlineConfigFromJson> {};

template <> struct ExperimentTraits<NoiseConfig> : ExperimentTraitsOf<NoiseExperiment, noiseConfigFromJson> {};

/// Not in ExperimentConfigs: no preset names a sweep (see above). The agent runs it by this name.
template <> struct ExperimentTraits<SweepConfig> : ExperimentTraitsOf<SweepExperiment, sweepConfigFromJson> {};

template <class... Configs> struct ExperimentList {};
/// Every experiment, in the order presets and `rtscope run --help` list them.
using ExperimentConfigs = ExperimentList<LatencyConfig, StarvationConfig, DriftConfig, SleepFloorConfig,
                                         InversionConfig, ContentionConfig, DeadlineConfig, NoiseConfig>;

/// Calls @p f(std::type_identity<Config>{}) for the experiment named @p name; false when no experiment has that
/// name (@p f is not called).
template <class F> bool withExperimentConfigType(std::string_view name, F&& f)
{
    return [&]<class... Configs>(ExperimentList<Configs...>) {
        return ((ExperimentTraits<Configs>::kName == name ? (f(std::type_identity<Configs>{}), true) : false) || ...);
    }(ExperimentConfigs{});
}

/// The names of every experiment, in ExperimentConfigs' order.
inline const std::vector<std::string>& experimentNames()
{
    static const std::vector<std::string> names = []<class... Configs>(ExperimentList<Configs...>) {
        return std::vector<std::string>{std::string(ExperimentTraits<Configs>::kName)...};
    }(ExperimentConfigs{});
    return names;
}

} // namespace rtscope
