#pragma once
/// @file What a doctor run found and proved (docs/doctor.md, "Outputs"), and its forms: the JSON of `--json` (the
/// schema in docs/doctor.md), the printed table, and the self-contained HTML page of `--report` (inline SVG
/// histograms, no script, no network).
#include "engine/doctor/findings.h"
#include "engine/doctor/machine_facts.h"
#include "engine/doctor/trial.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rtscope::doctor {

struct DoctorReport {
    int cpu = -1;
    std::string measuring; ///< "FIFO 80 · 1 ms"
    std::string load;      ///< "none", "hogs", "io", "command: …"
    DoctorDepth depth = DoctorDepth::Default;
    MachineFacts facts;
    bool baselineDone = false;
    LatencyFigures baseline;
    Histogram baselineHistogram;
    std::string anatomyNote; ///< how much of the baseline the anatomy explained ("1834 of 12011 wake-ups analysed …")
    std::vector<Finding> findings; ///< ranked
    /// The helpful fixes together (ids), and their trial; NotTried with why when fewer than two helped.
    std::vector<std::string> combinedIds;
    TrialResult combined;
    bool trialsRun = false;           ///< a session was begun
    int trialsWanted = 0;             ///< the fixes chosen for a trial (run or not)
    std::string trialsNotRun;         ///< why no trial ran (no privilege, a journal active, --no-trials)
    std::vector<std::string> kept;    ///< what --keep left applied
    std::string keepNote;             ///< what --keep could not keep, and why
    std::vector<std::string> restore; ///< problems putting something back (empty: everything read back as before)
    std::string error;                ///< the run failed: why
    bool stopped = false;             ///< stopped before its end
    int64_t elapsedNs = 0;
};

/// @brief The JSON of `--json`: {"cpu", "measuring", "load", "depth", "elapsed_s", "facts": {…}, "baseline": {…},
/// "findings": [{"id", "title", "evidence", "fix": {"kind", "target", "from", "to", "runtime"}, "trial": {"before",
/// "after" each {"p50_us", "p99_us", "p99_9_us", "max_us", "samples"}, "verdict", "why"}}], "combined": …}.
nlohmann::json reportJson(const DoctorReport& report);
/// @brief The printed table: one row per finding (rank, share, culprit, fix, verdict, p99 before → after), then the
/// combined trial and the notes. Names from the machine are made printable.
std::string reportTable(const DoctorReport& report);
/// @brief The HTML page: facts, findings with their evidence, and for each trial an SVG histogram of before and after.
std::string reportHtml(const DoctorReport& report);

} // namespace rtscope::doctor
