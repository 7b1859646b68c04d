#pragma once
/// @file Recordings of latency runs: every raw sample, config change, reset and drop of a run, with the system
/// probe and the start config, streamed to disk while the run goes on and read back for replay and export.
/// The byte layout is documented in docs/recording-format.md; readers check every length, count and value.
#include "engine/experiments/latency/latency_experiment.h"
#include "engine/rt/system_probe.h"
#include "engine/util/error.h"

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace rtscope {

class AtomicOutputFile;

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

/// @brief Reads the SystemProbe that toJson(SystemProbe) wrote: missing keys keep their defaults, a key of the
/// wrong type is an error naming it.
SystemProbe systemProbeFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

/// @brief Writes each run it is attached to (LatencyExperiment::setRunSink) to a file, off the measuring threads.
///
/// The sink calls (collector thread) only encode into a memory buffer; a writer thread ("rtscope-record",
/// SCHED_OTHER, on the run's quiet CPU) moves the buffer to disk. When the buffer is full (the disk cannot keep
/// up) or the file reached its size cap, sample batches are not kept: they are counted, written as a "lost"
/// block, and reported by status(), so no reader mistakes the file for the whole run. Memory stays bounded by
/// the buffer size however long the run.
class RecordingWriter final : public LatencyRunSink {
public:
    struct Limits {
        size_t bufferBytes = size_t(32) << 20; ///< unwritten bytes held in memory before batches are dropped
        uint64_t maxFileBytes = 0;             ///< 0 = no cap
        /// A samples block closes after this much run time (or 4096 samples). A live stream (the agent) uses a
        /// shorter span: a sample cannot leave before its block closes, so the span sets the stream's delay.
        int64_t blockSpanNs = 250'000'000;
        /// Hand each block to the writer thread as soon as it is encoded (a live stream), rather than when a
        /// chunk is full or every 50 ms (a file, where fewer, larger writes are cheaper).
        bool writeEachBlock = false;
    };
    struct Status {
        std::string path;
        bool recording = false; ///< a run is being written
        bool complete = false;  ///< the last run was written and closed without error
        uint64_t samples = 0;   ///< samples written (this or the last run)
        uint64_t lost = 0;      ///< samples not kept
        uint64_t bytes = 0;
        std::string error; ///< why the file could not be written, empty if none
    };

    /// @brief Where a run's bytes go instead of a file (the agent's frame stream, docs/remote.md): called on the
    /// writer thread with each chunk in order, the signature and header first. An error stops the writing as a
    /// failed file write does (the samples after it are counted as lost, status() names it).
    using ByteSink = std::function<Error(std::string_view bytes)>;

    RecordingWriter(const SystemProbe& probe, std::string path, Limits limits);
    RecordingWriter(const SystemProbe& probe, std::string path);
    /// @brief Writes every run to @p sink instead of a file; setPath() has no effect then.
    RecordingWriter(const SystemProbe& probe, ByteSink sink, Limits limits);
    ~RecordingWriter() override;
    RecordingWriter(const RecordingWriter&) = delete;
    RecordingWriter& operator=(const RecordingWriter&) = delete;

    /// @brief The file the next run goes to (replaced if it exists). Not while recording. A run is written under a
    /// temporary name next to it (AtomicOutputFile) and renamed onto it when the run ends, stopped or not, so the
    /// file there before stays whole until then, and stays as it was when the recording cannot be written.
    void setPath(std::string path);
    /// @brief What started the runs, for the header ("rtscope latency -p 80 …").
    void setCommand(std::string command);
    /// @brief Any thread.
    Status status() const;

    void onRunStart(const LatencyRunInfo& info) override;
    void onSamples(size_t thread, std::span<const LatencySample> batch) override;
    void onMarker(const Marker& marker, const LatencyConfig& config) override;
    void onReset(int64_t tNs) override;
    void onDrops(size_t thread, uint64_t total) override;
    void onHogWork(int64_t tNs, uint64_t iterations, double perSecond) override;
    void onRestart(int64_t tNs, const std::vector<int>& cpus) override;
    /// @brief Writes the anatomy block and one traced-wake-up block per kept wake-up (always kept, like markers).
    void onTracing(const LatencyTracing& tracing) override;
    void onRunEnd(int64_t stopNs) override;

private:
    /// Appends one block to the pending buffer; sample blocks may be refused (then counted as lost).
    bool append(const std::string& block, bool droppable);
    /// Encodes the samples gathered so far as one block (every other event calls it first, to keep the order).
    void flushSamples();
    void flushLostLocked();
    void writerLoop();
    void finish();

    const nlohmann::json m_probeJson;
    const std::string m_host;
    const Limits m_limits;
    std::string m_command;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::string m_path;
    std::unique_ptr<AtomicOutputFile> m_file; ///< while a run is recorded
    ByteSink m_sink;                          ///< set: the runs go there, not to a file
    std::string m_pending;                    ///< encoded, not yet written (guarded by m_mutex)
    bool m_stop = false;
    bool m_writeNow = false; ///< Limits::writeEachBlock: a block is pending (guarded by m_mutex)
    bool m_recording = false;
    bool m_complete = false;
    bool m_ended = false; ///< the end block is in the file or pending
    uint64_t m_samples = 0;
    uint64_t m_lost = 0;
    uint64_t m_lostUnwritten = 0; ///< lost since the last "lost" block
    uint64_t m_bytes = 0;         ///< accepted into the file (written or pending)
    std::string m_error;
    std::thread m_writer;

    // Sink side (the calls are serialized): consecutive batches of one thread become one block, so the block
    // header and the first sample's absolute values are paid once per block, not once per 1 ms drain.
    std::vector<LatencySample> m_batch;
    size_t m_batchThread = 0;
};

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
/// recording that arrives piece by piece (engine/io/recording_stream.h): snapshotSoFar() merges what it was given
/// into one snapshot whose timeline ends at @p nowNs (the recording's clock), as often as asked.
class RecordingReplayer : public RecordingVisitor {
public:
    virtual std::shared_ptr<LatencySnapshot> snapshotSoFar(int64_t nowNs) = 0;
};
/// @brief A replayer writing the header and markers it sees to @p out, which must outlive it.
std::unique_ptr<RecordingReplayer> makeRecordingReplayer(const RecordingReplayOptions& options, ReplayedRun& out);

ReplayedRun replayRecordingFile(const std::string& path, const RecordingReplayOptions& options = {});
ReplayedRun replayRecording(std::string_view bytes, const RecordingReplayOptions& options = {});

/// @brief cyclictest's -h text of a replayed run (figures since its last reset, as its histogram showed them). When
/// the recorder did not keep every sample, or the file was cut short, a "# rtscope:" line before "# Histogram"
/// says so.
std::string replayedHistogramText(const ReplayedRun& run);
/// @brief latencyExportJson() of a replayed run with the recorded probe and command, plus a "recording" object in
/// "rtscope": the file name, samples not kept, and the read error of a file cut short.
nlohmann::json replayedRunJson(const ReplayedRun& run, const std::string& fileName);

/// @brief Every sample of a recording as CSV, streamed (a recording may hold more than memory):
/// cpu,seq,deadline_ns,wake_ns,latency_ns,skipped_periods,epoch with times relative to the run's start. When the
/// recorder did not keep every sample, or the file is cut short, the first line is a "# " comment that says how
/// many are missing. Returns the read result (samples = rows written).
RecordingReadResult writeRecordingCsv(const std::string& recordingPath, std::ostream& out);

/// @brief cyclictest's --json layout of a run plus the "rtscope" object (config, figures, markers, probe):
/// the one composition the CLI, the replay command and the desktop app's export share.
nlohmann::json latencyExportJson(const LatencySnapshot& snapshot, const nlohmann::json& probe,
                                 const std::string& commandLine, int64_t startUnixSec, int64_t endUnixSec);
/// @brief Sets cyclictest's "sysinfo" block of @p report (uname() of the machine that wrote it) to the machine that
/// was measured, from its probe (toJson(SystemProbe)) and host name: for a replayed recording and a remote target.
void describeMeasuredMachine(nlohmann::json& report, const nlohmann::json& probe, const std::string& host);

} // namespace rtscope
