#pragma once
// The timeline of a whole recording, per measured CPU: the replayed snapshot carries only the last 120 s (the
// live aggregator's ring), so the recording is read once more into min/max columns whose width doubles whenever
// the run outgrows them. However long the run, it costs at most kMaxColumns columns per CPU.
#include "engine/recording/recording_reader.h"
#include "ui/plot/plot_data.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace rtscope {

struct RecordingTimeline {
    static constexpr size_t kMaxColumns = 8192; ///< several per pixel of the widest screen
    /// All CPUs together: a recording's restarts may name any of 65 536 CPUs, so the columns are bounded as a whole
    /// too (128 CPUs at full width); past it the columns widen for every CPU.
    static constexpr size_t kMaxTotalColumns = 128 * kMaxColumns;

    struct Cpu {
        int cpu = -1;
        std::vector<TimelinePoint> points; ///< oldest first, tSec relative to the end of the run (≤ 0)
    };
    std::vector<Cpu> cpus; ///< by CPU number
    int64_t columnNs = 0;  ///< the time one column covers
    double spanSec = 0;    ///< first column's start to the end of the run
    bool ok = false;       ///< the file could be read up to its end (or its cut), with a header
};

/// Reads @p path (a .rtrec) into per-CPU columns. Samples are placed by their wake-up time, as the live timeline does.
/// @p progress as for readRecordingFile(); when it stops the reading, ok is false.
RecordingTimeline readRecordingTimeline(const QString& path, const RecordingProgress& progress = {});

} // namespace rtscope
