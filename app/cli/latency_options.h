#pragma once
// The flags that describe a latency run's measuring threads, registered and read once for every subcommand that
// runs the latency experiment: `latency`, `monitor` and `sweep` (whose settings list takes the policy's place). Same
// names, same help, same sentences everywhere; every range is LatencyConfig::validate()'s.
#include "engine/experiments/latency/latency_config.h"

#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace rtscope::cli {

/// The values as typed.
struct LatencyThreadFlags {
    std::string policy;
    int priority = 0;
    std::string period = "1ms";
    int hogs = 0;
    int cpu = -1;
    std::string cpus;
};

/// Which of the flags a subcommand offers, and what its hogs are.
struct LatencyFlagSet {
    bool policy = true;    ///< --policy, -p (not the sweep: its settings list them)
    bool deadline = false; ///< --policy takes "deadline" (latency: it implements SCHED_DEADLINE)
    bool cpus = true;      ///< --cpus, one measuring thread per CPU (not the sweep)
    /// --hogs' help; null: latency_flag_help::hogs().
    const char* hogsHelp = nullptr;
};

/// Registers --policy/-p, -i/--period, --hogs, -a/--cpu and --cpus on @p sub as @p which says (-a and --cpus exclude
/// each other). Returns --hogs, for a flag that excludes it (the sweep's --load-cmd).
CLI::Option* addLatencyOptions(CLI::App* sub, LatencyThreadFlags& flags, const LatencyFlagSet& which = {});
/// Writes the flags @p which offers into @p c; a name or unit that does not parse gets its sentence in @p problems.
void readLatencyOptions(const LatencyThreadFlags& flags, const LatencyFlagSet& which, LatencyConfig& c,
                        std::vector<std::string>& problems);

} // namespace rtscope::cli
