#pragma once
/// @file Reading recordings of latency runs: every raw sample, config change, reset and drop of a run, with the
/// system probe and the start config (docs/recording-format.md). Readers check every length, count and value.
#include "engine/experiments/latency/latency_config.h"
#include "engine/experiments/latency/latency_snapshot.h"
#include "engine/rt/system_probe.h"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// @brief The file's first eight bytes, the version this build writes and the oldest it reads. Version 2 added the
/// anatomy blocks of a traced run and the rule that block types 128 … 255 are optional (a reader skips one it does
/// not know); version 1 files read as before (docs/recording-format.md, Versions).
inline constexpr char kRecordingMagic[8] = {'R', 'T', 'S', 'C', 'R', 'E', 'C', '\n'};
inline constexpr uint32_t kRecordingVersion = 2;
inline constexpr uint32_t kRecordingOldestVersion = 1;
/// @brief The extension the desktop app proposes.
inline constexpr const char* kRecordingSuffix = ".rtrec";
/// @brief The most measuring threads a recording holds (the header's cpus, a restart's CPU list, a config's cpus).
inline constexpr size_t kMaxRecordingThreads = 128;
/// @brief The most exact 1 µs histogram bins a replay keeps, all measuring threads together: 2^24 counters, 128 MiB.
/// That is 16 threads with the largest histogram (1 s) or all 128 with 131 ms, and 13 times what 128 threads need
/// with the default 10 000 bins; a recording that asks for more is refused rather than allowed to make the reader
/// allocate gigabytes from a few kilobytes of file.
inline constexpr uint64_t kMaxReplayHistogramBins = uint64_t(1) << 24;
/// @brief The anatomy blocks' bounds (docs/recording-format.md, Limits): kernel events kept with one traced wake-up
/// (the live run keeps 2048), with all of them together (75 MB of TraceEvents), wake-ups over the threshold (the live
/// run keeps the latest 100), and culprit rows.
inline constexpr size_t kMaxRecordedWindowEvents = 8192;
inline constexpr uint64_t kMaxRecordedTraceEvents = uint64_t(1) << 20;
inline constexpr size_t kMaxRecordedOverThreshold = 1000;
inline constexpr size_t kMaxRecordedCulprits = size_t(1) << 16;

/// @brief What the header block says about the run.
struct RecordingHeader {
    std::string rtscopeVersion;
    std::string recordedAt;  ///< "2026-11-30T01:23:45Z" (UTC, the run's start)
    int64_t startUnixNs = 0; ///< wall clock at the start
    int64_t startNs = 0;     ///< CLOCK_MONOTONIC at the start: every t_ns in the file is on this clock
    std::string host;
    std::string command;   ///< what started the run ("rtscope latency …", "rtscope desktop app")
    std::vector<int> cpus; ///< measuring thread i ran on cpus[i]
    LatencyConfig config;  ///< as started
    nlohmann::json probeJson;
    SystemProbe probe; ///< read back from probeJson
};

/// @brief A marker as recorded: the start or a live change, with the config in force from then on.
struct RecordedMarker {
    int64_t tNs = 0;
    uint64_t seq = 0;
    std::string label;
    LatencyConfig config;
};

/// @brief Receives a recording's content in file order while it is read (samples in blocks of at most 65 536),
/// so a recording of hours is read in bounded memory.
class RecordingVisitor {
public:
    virtual ~RecordingVisitor() = default;
    /// @brief Why this visitor cannot go on (a replay that would exceed its memory budget); empty while it can. The
    /// reader stops after the block that made the visitor refuse and reports the sentence as that block's error.
    const std::string& refusal() const { return m_refusal; }
    virtual void header(const RecordingHeader& header) { (void)header; }
    virtual void samples(size_t thread, std::span<const LatencySample> batch)
    {
        (void)thread;
        (void)batch;
    }
    virtual void marker(const RecordedMarker& marker) { (void)marker; }
    virtual void reset(int64_t tNs) { (void)tNs; }
    virtual void drops(size_t thread, uint64_t total)
    {
        (void)thread;
        (void)total;
    }
    virtual void hogWork(int64_t tNs, uint64_t iterations, double perSecond)
    {
        (void)tNs;
        (void)iterations;
        (void)perSecond;
    }
    virtual void restart(int64_t tNs, const std::vector<int>& cpus)
    {
        (void)tNs;
        (void)cpus;
    }
    /// @brief The recorder could not keep @p samples samples here (its writer fell behind or hit its size cap).
    virtual void lost(uint64_t samples) { (void)samples; }
    /// @brief The run's tracing as it ended (the anatomy block): everything of LatencySnapshot::tracing but the
    /// wake-up lists, which the traced-wake-up blocks after it bring one by one (tracedWakeup).
    virtual void tracing(const LatencyTracing& tracing) { (void)tracing; }
    /// @brief One kept wake-up with its anatomy and its window of kernel events: of figures.overThreshold when
    /// @p overThreshold, else of figures.worst (in the order of the list).
    virtual void tracedWakeup(bool overThreshold, TracedWakeup wakeup)
    {
        (void)overThreshold;
        (void)wakeup;
    }

protected:
    /// @brief Stops the reading after the current block with @p why (the first refusal is kept).
    void refuse(std::string why)
    {
        if (m_refusal.empty())
            m_refusal = std::move(why);
    }

private:
    std::string m_refusal;
};

/// @brief Called on the reading thread after each block with the bytes read so far and the file's size (a replay's
/// progress bar); returning false stops the reading there (RecordingReadResult::cancelled). Called once per block, so
/// it must be cheap: a replay of a long recording calls it hundreds of thousands of times.
using RecordingProgress = std::function<bool(uint64_t bytesRead, uint64_t totalBytes)>;

/// @brief How reading went. Everything delivered to the visitor before an error was valid.
struct RecordingReadResult {
    bool ok = false;        ///< the whole file was read, including its end block
    bool truncated = false; ///< the file ends early; what came before was delivered ("truncated after N samples")
    bool cancelled = false; ///< the progress callback stopped the reading ("stopped after N samples")
    bool headerRead = false;
    std::string error;    ///< why !ok: names the offset, the block and what was expected
    uint64_t samples = 0; ///< samples delivered
    uint64_t lost = 0;    ///< samples the recorder said it did not keep
    int64_t endNs = 0;    ///< the run's stop time (end block), else the last sample's wake-up
};

/// @brief Reads a recording from memory (tests, fuzzing). Never throws.
RecordingReadResult readRecording(std::string_view bytes, RecordingVisitor& visitor,
                                  const RecordingProgress& progress = {});
/// @brief Reads a recording file block by block. Never throws.
RecordingReadResult readRecordingFile(const std::string& path, RecordingVisitor& visitor,
                                      const RecordingProgress& progress = {});
/// @brief True when @p head (the first bytes of a file) starts like a recording.
bool looksLikeRecording(std::string_view head);

} // namespace rtscope
