#pragma once
// A short run (a few hundred ms) of every experiment in the registry, as the preset JSON a controller sends: the
// snapshot JSON round trip (tests/engine/tst_snapshot_json.cpp) and the agent's every-kind test
// (tests/cli/tst_agent_kinds_cli.cpp) run the same ones.
#include "engine/experiments/registry.h"

#include <nlohmann/json.hpp>

#include <string>
#include <tuple>

namespace rtscope::test {

inline StarvationConfig shortStarvationConfig()
{
    StarvationConfig c;
    c.burstNs = 150'000'000;
    c.gapNs = 50'000'000;
    c.bursts = 1;
    c.cpu = 1;
    c.reservedCpus = {0};
    return c;
}

inline DriftConfig shortDriftConfig()
{
    DriftConfig c;
    c.periodNs = 1'000'000;
    c.ticks = 200;
    c.methods = {WaiterKind::Absolute, WaiterKind::Timerfd};
    return c;
}

inline SleepFloorConfig shortSleepFloorConfig()
{
    SleepFloorConfig c;
    c.requestsNs = {0, 1000};
    c.methods = {SleepMethod::Nanosleep, SleepMethod::Absolute};
    c.samples = 1000;
    return c;
}

inline InversionConfig shortInversionConfig()
{
    InversionConfig c;
    c.lock = LockKind::Mutex;
    c.mediumBurstNs = 20'000'000;
    c.holdNs = 5'000'000;
    c.periodNs = 60'000'000;
    c.durationNs = 300'000'000;
    return c;
}

inline ContentionConfig shortContentionConfig()
{
    ContentionConfig c;
    c.kinds = {LockKind::Mutex, LockKind::Spin};
    c.threads = 2;
    c.durationNs = 100'000'000;
    return c;
}

/// @brief The deadline lab's @p lesson with its default tasks, run for @p durationNs.
inline DeadlineConfig deadlineLessonConfig(DeadlineLesson lesson, int64_t durationNs)
{
    DeadlineConfig c;
    c.lesson = lesson;
    c.durationNs = durationNs;
    return c;
}

inline DeadlineConfig shortDeadlineConfig()
{
    return deadlineLessonConfig(DeadlineLesson::Isolation, 300'000'000);
}

/// @brief 300 ms of polling on the highest usable CPU, untraced (a trace session takes longer to start than the run).
inline NoiseConfig shortNoiseConfig()
{
    NoiseConfig c;
    c.durationNs = 300'000'000;
    c.trace = false;
    return c;
}

inline LatencyConfig shortLatencyConfig()
{
    LatencyConfig c;
    c.periodNs = 1'000'000;
    c.maxSamples = 300;
    return c;
}

/// @brief Not a registry entry (no preset names a sweep), but the agent runs it: two settings of 150 ms.
inline SweepConfig shortSweepConfig()
{
    SweepConfig c;
    c.settings = {SweepSetting{Policy::Other, 0}, SweepSetting{Policy::Fifo, 1}};
    c.eachNs = 150'000'000;
    c.base.periodNs = 1'000'000;
    return c;
}

/// The short config of each experiment of ExperimentConfigs, found by its type (shortExperimentConfig()).
inline constexpr auto kShortConfigs =
    std::tuple{&shortLatencyConfig,   &shortStarvationConfig, &shortDriftConfig,    &shortSleepFloorConfig,
               &shortInversionConfig, &shortContentionConfig, &shortDeadlineConfig, &shortNoiseConfig};

/// @brief The short config of the experiment @p name (a registry name) as JSON; null for an unknown name.
inline nlohmann::json shortExperimentConfig(const std::string& name)
{
    nlohmann::json j;
    withExperimentConfigType(
        name, [&]<class Config>(std::type_identity<Config>) { j = toJson(std::get<Config (*)()>(kShortConfigs)()); });
    return j;
}

} // namespace rtscope::test
