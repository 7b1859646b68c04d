#pragma once
// The body of each experiment subcommand as a function of a validated config, so `rtscope run --preset` runs a
// preset's phases through exactly the code `rtscope latency`, `starve`, `drift`, … use: same header, progress,
// table, summary, exports and exit codes.
#include "engine/export/latency_limit.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rtscope {
struct ContentionConfig;
struct DeadlineConfig;
struct DriftConfig;
struct NoiseConfig;
struct OsnoiseTrace;
struct InversionConfig;
struct LatencyConfig;
struct SleepFloorConfig;
struct StarvationConfig;
} // namespace rtscope

namespace rtscope::cli {

/// Where a run writes besides stdout. Empty paths write nothing.
struct RunOutput {
    bool quiet = false;
    std::string json;
    std::string csv;         ///< latency: every raw sample (from its recording); the others: their tables
    std::string histfile;    ///< latency: cyclictest's -h text
    int64_t stopAfterNs = 0; ///< starvation with bursts 0 (until stopped): end after this long; 0 = never
    std::string record;      ///< latency: the run as a recording (docs/recording-format.md)
    std::string traceDat;    ///< latency with tracing: the raw kernel trace as a trace-cmd .dat file
};

/// A headline figure of a run, for the comparison line of `rtscope run`.
struct RunFigure {
    std::string name; ///< "max latency"
    double value = 0;
    std::string unit; ///< "us", "ms", "acq/s"
};

struct RunResult {
    int exitCode = 1;               ///< the subcommand's exit code
    int signal = 0;                 ///< the stop signal (Ctrl-C) that cut the run short, 0 if none
    nlohmann::json report;          ///< what --json writes (null when the run did not start)
    std::vector<RunFigure> figures; ///< empty when the run did not start
};

/// Each runs @p config, which the caller has validated, prints what the subcommand prints, writes @p out's
/// files, and returns the exit code with the report and headline figures.
/// runLatency's @p limit (`--fail-above`, app/cli/fail_limit.h) adds the verdict line and exit code 4.
RunResult runLatency(const LatencyConfig& config, const RunOutput& out,
                     const std::optional<LatencyLimit>& limit = std::nullopt);
RunResult runStarvation(const StarvationConfig& config, const RunOutput& out);
RunResult runDrift(const DriftConfig& config, const RunOutput& out);
RunResult runSleepFloor(const SleepFloorConfig& config, const RunOutput& out);
RunResult runContention(const ContentionConfig& config, const RunOutput& out);
RunResult runInversion(const InversionConfig& config, const RunOutput& out);
RunResult runDeadline(const DeadlineConfig& config, const RunOutput& out);
/// @p osnoise: the kernel osnoise tracer's summary (--osnoise-file), shown beside the run; null for none.
RunResult runNoise(const NoiseConfig& config, const RunOutput& out,
                   std::shared_ptr<const OsnoiseTrace> osnoise = nullptr);

} // namespace rtscope::cli
