#pragma once
/// @file Replaying a recording into the snapshot its live run published (docs/recording-format.md).
#include "engine/recording/recording_reader.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// @brief How a recording is replayed.
struct RecordingReplayOptions {
    /// Exact 1 µs bins for cyclictest exports: the larger of this and the recorded config's (0 = as recorded).
    int histogramUs = 10'000;
    int64_t seriesWindowNs = 120'000'000'000; ///< the timeline the snapshot carries (at most 120 s)
    /// Progress and cancellation (see RecordingProgress); a cancelled replay has no snapshot.
    RecordingProgress progress;
};

/// @brief A recording replayed through LatencyReplay (one per measuring thread): the snapshot the live run
/// published at its end, figures since the last reset, as its views showed them; with the run's anatomy
/// (LatencySnapshot::tracing) when the file holds its anatomy blocks. The cost is linear in the file:
/// a restart or a reset block costs the threads it names and the buckets filled since, never whole histograms,
/// and the exact bins of all threads together stay within kMaxReplayHistogramBins (else the file is refused).
struct ReplayedRun {
    RecordingHeader header;
    RecordingReadResult read;
    std::shared_ptr<const LatencySnapshot> snapshot; ///< null when the file could not be read at all
    std::vector<RecordedMarker> markers;             ///< as recorded, with their labels
    uint64_t samplesSinceReset = 0;                  ///< all threads
};

/// @brief The visitor replayRecording() reads a recording into (one LatencyReplay per measuring thread), for a
/// recording that arrives piece by piece (engine/recording/recording_stream.h): snapshotSoFar() merges what it was
/// given into one snapshot whose timeline ends at @p nowNs (the recording's clock), as often as asked.
class RecordingReplayer : public RecordingVisitor {
public:
    virtual std::shared_ptr<LatencySnapshot> snapshotSoFar(int64_t nowNs) = 0;
};
/// @brief A replayer writing the header and markers it sees to @p out, which must outlive it.
std::unique_ptr<RecordingReplayer> makeRecordingReplayer(const RecordingReplayOptions& options, ReplayedRun& out);

ReplayedRun replayRecordingFile(const std::string& path, const RecordingReplayOptions& options = {});
ReplayedRun replayRecording(std::string_view bytes, const RecordingReplayOptions& options = {});

} // namespace rtscope
