#include "engine/export/latency_export.h"

#include "engine/export/report_json.h"
#include "engine/export/run_identity.h"
#include "engine/formats/cyclictest_format.h"
#include "engine/util/clock.h"

#include <algorithm>
#include <cstdio>

namespace rtscope {

namespace {

// Every field is an integer, so no quoting is ever needed; CsvWriter would hold the whole text in memory, and a
// recording's rows can outgrow it.
class CsvRows final : public RecordingVisitor {
public:
    explicit CsvRows(std::ostream& out)
        : m_out(out)
    {}
    void header(const RecordingHeader& h) override
    {
        m_startNs = h.startNs;
        m_cpus = h.cpus;
    }
    void restart(int64_t, const std::vector<int>& cpus) override { m_cpus = cpus; }
    void samples(size_t thread, std::span<const LatencySample> batch) override
    {
        std::string text;
        text.reserve(batch.size() * 48);
        char line[160];
        for (const LatencySample& s : batch) {
            const int n = std::snprintf(line, sizeof line, "%d,%llu,%lld,%lld,%lld,%u,%u\n", m_cpus[thread],
                                        (unsigned long long)s.seq, (long long)(s.deadlineNs - m_startNs),
                                        (long long)(s.wakeNs - m_startNs), (long long)s.latencyNs, s.skipped, s.epoch);
            text.append(line, size_t(std::clamp(n, 0, int(sizeof line) - 1)));
        }
        m_out << text;
    }

private:
    std::ostream& m_out;
    int64_t m_startNs = 0;
    std::vector<int> m_cpus;
};

} // namespace

RecordingReadResult writeRecordingCsv(const std::string& recordingPath, std::ostream& out,
                                      const RecordingProgress& progress)
{
    // A first pass learns whether anything is missing, so that the warning can be the first line.
    RecordingVisitor nothing;
    const RecordingReadResult check = readRecordingFile(recordingPath, nothing, progress);
    if (!check.headerRead || check.cancelled)
        return check;
    if (check.lost || !check.ok)
        out << "# rtscope: this CSV does not hold every sample of the run: "
            << (check.lost ? std::to_string(check.lost) + " samples were not kept by the recorder" : std::string())
            << (check.lost && !check.ok ? "; " : "") << (check.ok ? "" : check.error) << "\n";
    out << "cpu,seq,deadline_ns,wake_ns,latency_ns,skipped_periods,epoch\n";
    CsvRows rows(out);
    RecordingReadResult r = readRecordingFile(recordingPath, rows, progress);
    if (!out && r.error.empty()) {
        r.ok = false;
        r.error = "writing the CSV failed";
    }
    return r;
}

namespace {
std::string incompleteNote(const ReplayedRun& run)
{
    std::string note;
    if (run.read.lost)
        note = std::to_string(run.read.lost) + " samples of the run were not kept by the recorder";
    if (!run.read.ok)
        note += (note.empty() ? "" : "; ") + run.read.error;
    return note;
}
} // namespace

std::string replayedHistogramText(const ReplayedRun& run, const std::function<bool()>& keepGoing)
{
    if (!run.snapshot)
        return {};
    CyclictestData data = cyclictestDataFrom(*run.snapshot);
    if (const std::string note = incompleteNote(run); !note.empty())
        data.preamble.push_back("# rtscope: incomplete: " + note);
    return writeCyclictestHistogram(data, keepGoing);
}

nlohmann::json replayedRunJson(const ReplayedRun& run, const std::string& fileName)
{
    if (!run.snapshot)
        return nullptr;
    const LatencySnapshot& s = *run.snapshot;
    const int64_t startUnix = run.header.startUnixNs / kNsPerSec;
    const int64_t endUnix = startUnix + (s.publishedNs - s.startNs) / kNsPerSec;
    nlohmann::json j = latencyExportJson(s, run.header.probeJson, run.header.command, startUnix, endUnix);
    describeMeasuredMachine(j, run.header.probeJson, run.header.host);
    j["rtscope"]["recording"] = {{"file", fileName},
                                 {"recorded_at", run.header.recordedAt},
                                 {"samples_not_kept", run.read.lost},
                                 {"complete", run.read.ok},
                                 {"error", run.read.ok ? std::string() : run.read.error}};
    return j;
}

void describeMeasuredMachine(nlohmann::json& report, const nlohmann::json& probe, const std::string& host)
{
    // A field the probe lacks (or has with another type) is left empty rather than filled from this machine.
    const auto text = [&probe](const char* key) {
        return probe.is_object() && probe.contains(key) && probe[key].is_string() ? probe[key].get<std::string>()
                                                                                  : std::string();
    };
    nlohmann::json& sysinfo = report["sysinfo"];
    sysinfo["nodename"] = host;
    sysinfo["release"] = text("kernel_release");
    sysinfo["version"] = text("kernel_version");
    sysinfo["machine"] = text("machine");
    sysinfo["realtime"] = probe.is_object() && probe.contains("preempt_rt") && probe["preempt_rt"] == true ? 1 : 0;
}

nlohmann::json latencyExportJson(const LatencySnapshot& snapshot, const nlohmann::json& probe,
                                 const std::string& commandLine, int64_t startUnixSec, int64_t endUnixSec)
{
    nlohmann::json j = cyclictestJson(cyclictestDataFrom(snapshot), commandLine, startUnixSec, endUnixSec);
    nlohmann::json report = latencyReportJson(snapshot);
    report["probe"] = probe;
    // Policy deadline: per measuring thread, its overruns (null with the reason when the kernel could not count them).
    for (size_t i = 0; i < snapshot.overruns.size() && i < snapshot.threads.size(); ++i) {
        const DeadlineOverrunFigure& f = snapshot.overruns[i];
        report["deadline_overruns"].push_back({{"cpu", snapshot.threads[i].cpu},
                                               {"overruns", f.counted ? nlohmann::json(f.overruns) : nlohmann::json()},
                                               {"counted", f.counted},
                                               {"note", f.notCounted}});
    }
    j["rtscope"] = std::move(report);
    return j;
}

LatencyRunOutputs latencyRunOutputs(const LatencySnapshot& snapshot, const MeasuredMachine& machine,
                                    const std::string& commandLine, int64_t startUnixSec, int64_t endUnixSec)
{
    LatencyRunOutputs out;
    RunIdentity identity =
        latencyRunIdentity(machine.probe, snapshot, commandLine, startUnixSec, machine.kernelCmdline);
    if (!machine.host.empty())
        identity.host = machine.host; // a target's probe JSON has no host name: its hello has
    CyclictestData data = cyclictestDataFrom(snapshot);
    data.trailer = runIdentityLines(identity); // after cyclictest's footer (docs/ci.md)
    out.histfile = writeCyclictestHistogram(data);
    out.report = latencyExportJson(snapshot, machine.probeJson, commandLine, startUnixSec, endUnixSec);
    if (!machine.host.empty())
        describeMeasuredMachine(out.report, machine.probeJson, machine.host);
    out.report["identity"] = runIdentityJson(identity);
    return out;
}

} // namespace rtscope
