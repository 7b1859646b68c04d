#pragma once
/// @file Configuration of the priority sweep (the latency experiment over a list of settings) and its one
/// validation path, shared by the CLI, the GUI and the presets, with its JSON form: the keys of
/// `rtscope sweep --json` ("each_ns", "base", "load_cmd") plus "settings" in the --settings syntax
/// ("other,fifo:1,fifo:80").
#include "engine/experiments/latency/latency_config.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

struct CpuTopology;

struct SweepSetting {
    Policy policy = Policy::Other;
    int priority = 0;
    int64_t runtimeNs = 0;  ///< policy deadline: runtime per period (the base config's period)
    int64_t deadlineNs = 0; ///< policy deadline: 0 = the period
    /// @brief "FIFO 80", "DEADLINE 200.0 us/1.00 ms".
    std::string label() const;
    /// @brief @p base with this setting's policy, priority and deadline parameters.
    LatencyConfig applyTo(LatencyConfig base) const;
    bool operator==(const SweepSetting&) const = default;
};

/// @brief "other,fifo:1,fifo:50,rr:10,deadline:200us/1ms" → settings; false with @p error naming the bad item.
/// deadline:RUNTIME[/DEADLINE] takes the base config's period as its period.
bool parseSweepSettings(std::string_view text, std::vector<SweepSetting>& out, std::string& error);

struct SweepConfig {
    static constexpr int64_t kMinEachNs = 100'000'000;            ///< 100 ms
    static constexpr int64_t kMaxEachNs = 3600LL * 1'000'000'000; ///< 1 h
    static constexpr size_t kMaxSettings = 32;
    static constexpr size_t kMaxLoadCmdChars = 4096;

    std::vector<SweepSetting> settings;
    int64_t eachNs = 10'000'000'000;
    LatencyConfig base;  ///< period, CPU(s), hogs, waiter…; policy/priority come from each setting
    std::string loadCmd; ///< run for the whole sweep with /bin/sh -c; empty = none

    /// @brief Every problem as a sentence: sweep fields here, each setting through LatencyConfig::validate.
    std::vector<std::string> validate(const CpuTopology& cpus) const;
    /// @brief "4 settings × 10 s · other,fifo:1,fifo:50,fifo:80": what the agent's Started frame names.
    std::string label() const;
    bool operator==(const SweepConfig&) const = default;
};

/// @brief "other,fifo:1,fifo:80,deadline:200us/1ms": the --settings text of @p settings (parseSweepSettings reads it
/// back).
std::string sweepSettingsText(const std::vector<SweepSetting>& settings);

nlohmann::json toJson(const SweepConfig& c);
/// @brief Reads a sweep config; unknown keys and wrong types are reported in @p errors with the field named, missing
/// keys keep their defaults. Ranges are validate()'s job.
SweepConfig sweepConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

} // namespace rtscope
