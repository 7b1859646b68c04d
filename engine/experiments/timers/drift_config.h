#pragma once
/// @file Configuration of the drift experiment (docs/experiments/drift.md: relative sleeps drift, absolute deadlines do
/// not) and its one validation path, shared by the CLI, the GUI and the presets.
#include "engine/rt/sched_policy.h"
#include "engine/rt/waiter.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

struct CpuTopology;

/// @brief The timing methods the drift experiment compares. The naive loop is the Relative waiter; busy-wait
/// is the sleep-floor experiment's business (a spinner per tick would take the whole CPU).
inline constexpr WaiterKind kDriftMethods[] = {WaiterKind::Relative, WaiterKind::Absolute, WaiterKind::Timerfd,
                                               WaiterKind::Itimer, WaiterKind::Posix};

/// @brief "naive" for the relative loop, the waiter's short name otherwise ("abs", "timerfd", ...).
const char* driftMethodName(WaiterKind k);
/// @brief "naive loop (work; nanosleep P)", "absolute clock_nanosleep", ...: for tables and legends.
const char* driftMethodLabel(WaiterKind k);
/// @brief Accepts the names above and the waiter aliases; nullopt for busy-wait and unknown names.
std::optional<WaiterKind> parseDriftMethod(std::string_view name);
/// @brief "naive, abs, timerfd, itimer, posix": for help texts and error sentences.
std::string driftMethodList();

struct DriftConfig {
    // Limits, in one place: the CLI help, the GUI ranges and validate() all read them.
    static constexpr int64_t kMinPeriodNs = 100'000;             ///< 100 µs
    static constexpr int64_t kMaxPeriodNs = 1'000'000'000;       ///< 1 s
    static constexpr int kMaxWorkPercent = 90;                   ///< work per tick, of the period
    static constexpr int64_t kMinTicks = 2;                      ///< a slope needs two points
    static constexpr int64_t kMaxTicks = 200'000;                ///< every tick is kept for the curves and the CSV
    static constexpr int64_t kMaxRunNs = 3600LL * 1'000'000'000; ///< ticks × period: 1 h
    static constexpr int64_t kMaxSlackNs = 1'000'000'000;        ///< prctl(PR_SET_TIMERSLACK) custom value
    static constexpr int64_t kMaxStallNs = 1'000'000'000;

    int64_t periodNs = 1'000'000;
    int64_t workNs = 0;     ///< simulated busy work after every wake-up, 0 … 90 % of the period
    int64_t ticks = 500;    ///< run length in ticks; ignored when durationNs is set
    int64_t durationNs = 0; ///< run length as a time (ticks = duration / period); 0 = use ticks
    std::vector<WaiterKind> methods{std::begin(kDriftMethods), std::end(kDriftMethods)};
    Policy policy = Policy::Other;
    int priority = 0;         ///< 1..99 for fifo/rr, 0 otherwise
    int64_t timerSlackNs = 0; ///< 0 = the thread's default (50 µs unless changed); otherwise 1 ns … 1 s
    int cpu = -1;             ///< the CPU every method runs on; -1 = the highest usable CPU

    /// Deliberate stall: at tick stallTick each method spins for stallNs more, so the timers that count
    /// expirations show the ticks they missed (0 = no stall).
    int64_t stallTick = 0;
    int64_t stallNs = 0;

    /// @brief Every problem as a sentence naming the field and its allowed range; empty when valid.
    std::vector<std::string> validate(const CpuTopology& cpus) const;
    /// @brief The sentence for durationNs outside two periods … kMaxRunNs or kMaxTicks periods, empty inside.
    /// validate() asks it for a non-zero durationNs (0 is "use ticks"); the command line also for a given 0.
    std::string durationProblem() const;

    int resolvedCpu(const CpuTopology& cpus) const; ///< cpu, or the default
    int64_t tickCount() const;                      ///< ticks, or duration / period

    /// @brief "OTHER · 1 ms · 500 ticks · work 100.0 us · slack default · CPU auto".
    std::string label() const;

    bool operator==(const DriftConfig&) const = default;
};

/// @brief JSON form used by presets and the `config` object of --json output.
nlohmann::json toJson(const DriftConfig& c);
/// @brief Reads a config; unknown keys and wrong types are reported in @p errors (field named), missing keys
/// keep their defaults. Range checks are validate()'s job.
DriftConfig driftConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

} // namespace rtscope
