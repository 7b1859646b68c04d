#pragma once
// The body of each experiment subcommand as a function of a validated config (HeadlessRun, registered by the
// subcommand's file), so `rtscope run --preset` runs a preset's phases through exactly the code `rtscope latency`,
// `starve`, `drift`, … use: same header, progress, table, summary, exports and exit codes.
#include "engine/export/latency_limit.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rtscope {
class CpuTopology;
struct LatencyConfig;
struct OsnoiseTrace;
struct ThreadSpec;
} // namespace rtscope

namespace rtscope::cli {

class CliTarget;

/// Where a run writes besides stdout. Empty paths write nothing.
struct RunOutput {
    bool quiet = false;
    std::string json;
    std::string csv;         ///< latency: every raw sample (from its recording); the others: their tables
    std::string histfile;    ///< latency: cyclictest's -h text
    int64_t stopAfterNs = 0; ///< starvation with bursts 0 (until stopped): end after this long; 0 = never
    std::string record;      ///< latency: the run as a recording (docs/recording-format.md)
    std::string traceDat;    ///< latency with tracing: the raw kernel trace as a trace-cmd .dat file
    /// noise: the kernel osnoise tracer's summary (--osnoise-file), shown beside the run; null for none.
    std::shared_ptr<const OsnoiseTrace> osnoise;
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

/// Runs @p config, which the caller has validated, prints what `rtscope latency` prints, writes @p out's files,
/// and returns the exit code with the report and headline figures. @p limit (`--fail-above`, app/cli/fail_limit.h)
/// adds the verdict line and exit code 4.
RunResult runLatency(const LatencyConfig& config, const RunOutput& out,
                     const std::optional<LatencyLimit>& limit = std::nullopt);

/// What `rtscope run` needs of an experiment to run a preset's phase through the subcommand's own code. The
/// experiment's command file registers one (HeadlessRegistration below); `rtscope run` finds it by the config's
/// type, and refuses a preset whose experiment has none, naming it. No list of experiments in app/cli to extend.
template <class Config> struct HeadlessRun {
    /// Runs a validated config as the subcommand does: header, progress, table, summary, exports, exit code.
    RunResult (*run)(const Config&, const RunOutput&) = nullptr;
    /// The first thread the run starts that may need a privilege, as the experiment starts it (name, policy,
    /// priority, CPU), so that a refusal reads word for word as the subcommand's and comes before any phase runs.
    ThreadSpec (*firstThread)(const Config&, const CpuTopology&) = nullptr;
    /// A phase has a length: a run that would go on until stopped is bounded by @p phaseNs here (null: the
    /// experiment's runs end by themselves). @p report: the caller keeps the run's report (`rtscope run --json`).
    void (*fitToPhase)(Config&, RunOutput&, int64_t phaseNs, bool report) = nullptr;
    /// Runs a config in the agent at the other end of an open link, printed and exported as run() does here, with the
    /// target's line after the header and its probe and name in the report (docs/remote.md). The subcommand's own
    /// `--target` path is this function, so `rtscope run --target-cmd` and `rtscope X --target-cmd` are one code.
    RunResult (*onTarget)(CliTarget&, const Config&, const RunOutput&) = nullptr;
};

/// The registered HeadlessRun of each config type; empty (null run) until its command file registers it.
template <class Config> inline HeadlessRun<Config> headlessRun{};

/// `const HeadlessRegistration<XConfig> kXHeadless({.run = …, .firstThread = …});` in app/cli/x_command.cpp (a
/// TableCommand, app/cli/remote_target.h, registers one for a table command).
template <class Config> struct HeadlessRegistration {
    explicit HeadlessRegistration(const HeadlessRun<Config>& run) { headlessRun<Config> = run; }
};

} // namespace rtscope::cli
