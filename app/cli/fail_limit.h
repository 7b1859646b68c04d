#pragma once
// `--fail-above` and `--fail-percentile` of `rtscope latency` (docs/ci.md): the flags, their reading, and the end of a
// run with a limit: the verdict line, the JSON's "limit" object and return_code, and exit code 4.
#include "engine/export/latency_limit.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rtscope {
struct LatencySnapshot;
}

namespace rtscope::cli {

struct FailLimitOptions {
    std::string above;
    std::string percentile;
    const CLI::Option* aboveFlag = nullptr;
    const CLI::Option* percentileFlag = nullptr;
};

/// Registers --fail-above and --fail-percentile.
void addFailLimitOptions(CLI::App* sub, FailLimitOptions& o);
/// The limit the flags ask for (nullopt without --fail-above); each problem is one sentence added to @p problems.
std::optional<LatencyLimit> readFailLimit(const FailLimitOptions& o, std::vector<std::string>& problems);

/// The end of a latency run whose exit code so far is @p code: with @p limit, prints its verdict line on stdout and
/// adds the "limit" object to @p report; sets @p report's return_code (cyclictest's key, which CI parsers read) to
/// the exit code and returns it: @p code when not 0, else ExitLimitBroken when the verdict is a fail.
int finishWithLimit(const std::optional<LatencyLimit>& limit, const LatencySnapshot& snap, int code,
                    nlohmann::json& report);

} // namespace rtscope::cli
