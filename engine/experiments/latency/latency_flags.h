#pragma once
// The flags that set a latency run's measuring thread, read the same way wherever they are typed: `rtscope latency`,
// `monitor` and `sweep` (app/cli/latency_options.cpp, with CLI11) and the desktop app's command line
// (ui/app/gui_options.cpp, with QCommandLineParser). The parsers only collect the text; what it means — the names and
// units, "a priority alone means FIFO", the sentence for what does not parse — and each flag's help are here, once.
// Ranges are LatencyConfig::validate()'s.
#include "engine/experiments/latency/latency_config.h"

#include <optional>
#include <string>
#include <vector>

namespace rtscope {

/// The flags as typed; a flag left out is empty, and the config it is applied to keeps its value.
struct LatencyFlagText {
    std::optional<std::string> policy; ///< --policy
    std::optional<int> priority;       ///< -p, --priority
    std::optional<std::string> period; ///< -i, --period
    std::optional<int> hogs;           ///< --hogs
    std::optional<int> cpu;            ///< -a, --cpu
    std::optional<int> hogCpu;         ///< --hog-cpu
    std::optional<std::string> waiter; ///< --waiter
    bool trace = false;                ///< --trace (left out: the config's choice stays)
};

/// What differs between the command lines.
struct LatencyFlagRules {
    bool deadline = false; ///< --policy takes "deadline" (`rtscope latency`, which has --runtime and --deadline)
    /// The priority a real-time --policy given without -p gets when the config has none: the desktop app's default
    /// (80), so "--policy fifo" alone works there. The CLI always passes -p (0 when left out: validate() says why).
    int defaultRtPriority = 0;
};

/// Writes @p flags into @p config as @p rules say; a name or duration that does not parse gets its sentence, naming
/// the flag and what it accepts, in @p problems (and leaves the field as it was).
void applyLatencyFlags(const LatencyFlagText& flags, const LatencyFlagRules& rules, LatencyConfig& config,
                       std::vector<std::string>& problems);

/// The help of each flag, with LatencyConfig's limits: the CLI's --help and the desktop app's --help-gui say the same.
namespace latency_flag_help {
std::string policy(bool deadline);
std::string priority();
std::string period();
std::string hogs();
std::string cpu();
std::string hogCpu();
std::string waiter();
} // namespace latency_flag_help

} // namespace rtscope
