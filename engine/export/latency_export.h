#pragma once
/// @file The exports of a latency run, live or replayed: cyclictest's histogram text and JSON with rtscope's
/// figures, and a recording's samples as CSV.
#include "engine/recording/recording_replay.h"
#include "engine/rt/system_probe.h"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

namespace rtscope {

struct LatencySnapshot;

/// @brief cyclictest's -h text of a replayed run (figures since its last reset, as its histogram showed them). When
/// the recorder did not keep every sample, or the file was cut short, a "# rtscope:" line before "# Histogram"
/// says so. @p keepGoing: as writeCyclictestHistogram's (false: stopped, the text is empty).
std::string replayedHistogramText(const ReplayedRun& run, const std::function<bool()>& keepGoing = {});
/// @brief latencyExportJson() of a replayed run with the recorded probe and command, plus a "recording" object in
/// "rtscope": the file name, samples not kept, and the read error of a file cut short.
nlohmann::json replayedRunJson(const ReplayedRun& run, const std::string& fileName);

/// @brief Every sample of a recording as CSV, streamed (a recording may hold more than memory):
/// cpu,seq,deadline_ns,wake_ns,latency_ns,skipped_periods,epoch with times relative to the run's start. When the
/// recorder did not keep every sample, or the file is cut short, the first line is a "# " comment that says how
/// many are missing. Returns the read result (samples = rows written). @p progress is called after each block of
/// both passes over the file (the first only counts); returning false stops the writing there (cancelled).
RecordingReadResult writeRecordingCsv(const std::string& recordingPath, std::ostream& out,
                                      const RecordingProgress& progress = {});

/// @brief cyclictest's --json layout of a run plus the "rtscope" object (config, figures, markers, probe, and with
/// policy deadline each measuring thread's overruns): the one composition the CLI, the replay command and the
/// desktop app's export share.
nlohmann::json latencyExportJson(const LatencySnapshot& snapshot, const nlohmann::json& probe,
                                 const std::string& commandLine, int64_t startUnixSec, int64_t endUnixSec);
/// @brief The machine a live latency run measured: this one, or a remote target as its agent's hello describes it.
struct MeasuredMachine {
    SystemProbe probe;        ///< the identity's facts
    nlohmann::json probeJson; ///< --json's rtscope.probe (toJson(SystemProbe), or the target's as it sent it)
    std::string host;         ///< a target's host name (its hello); empty: this machine, whose uname() is sysinfo
    /// The kernel command line; nullopt: this machine's /proc/cmdline. A target's agent does not send it: "".
    std::optional<std::string> kernelCmdline;
};

/// @brief What a live latency run writes, composed once for a local and a remote run: the --histfile text
/// (cyclictest's -h with the identity lines after its footer, docs/ci.md) and the --json report
/// (latencyExportJson, with the measured machine in sysinfo for a target, and the "identity" object).
struct LatencyRunOutputs {
    std::string histfile;
    nlohmann::json report;
};
LatencyRunOutputs latencyRunOutputs(const LatencySnapshot& snapshot, const MeasuredMachine& machine,
                                    const std::string& commandLine, int64_t startUnixSec, int64_t endUnixSec);

/// @brief Sets cyclictest's "sysinfo" block of @p report (uname() of the machine that wrote it) to the machine that
/// was measured, from its probe (toJson(SystemProbe)) and host name: for a replayed recording and a remote target.
void describeMeasuredMachine(nlohmann::json& report, const nlohmann::json& probe, const std::string& host);

} // namespace rtscope
