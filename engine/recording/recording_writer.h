#pragma once
/// @file Writing recordings of latency runs as they go (docs/recording-format.md).
#include "engine/experiments/latency/latency_run_sink.h"
#include "engine/rt/system_probe.h"
#include "engine/util/error.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace rtscope {

class AtomicOutputFile;

/// @brief Writes each run it is attached to (LatencyExperiment::setRunSink) to a file, off the measuring threads.
///
/// The sink calls (collector thread) only encode into a memory buffer; a writer thread ("rtscope-record",
/// SCHED_OTHER, on the run's quiet CPU) moves the buffer to disk. When the buffer is full (the disk cannot keep
/// up) or the file reached its size cap, sample batches are not kept: they are counted, written as a "lost"
/// block, and reported by status(), so no reader mistakes the file for the whole run. Memory stays bounded by
/// the buffer size however long the run. When a write fails (a full disk), the file is cut back to the last whole
/// block written, ended there with a lost and an end block when they fit (else it ends after that block, which a
/// reader calls truncated), and put in place: what was written before the failure stays a valid recording.
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
        bool recording = false;  ///< a run is being written
        bool complete = false;   ///< the last run was written and closed without error
        uint64_t samples = 0;    ///< samples written (this or the last run); after cutShort, those the file holds
        uint64_t lost = 0;       ///< samples not kept
        uint64_t lostBehind = 0; ///< of lost: refused while the writing went on (buffer full, the size cap)
        uint64_t bytes = 0;
        std::string error; ///< why the file could not be written, empty if none
        /// A write failed (error says why) and the file at path holds the run up to the last whole block written
        /// before it: samples samples, up to keptUntilNs of run time. False when nothing could be kept.
        bool cutShort = false;
        bool endBlock = false;   ///< cutShort: the kept file ends with its end block (else it reads as truncated)
        int64_t keptUntilNs = 0; ///< cutShort: the last kept sample's wake-up, from the run's start
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
    enum class Append { Kept, Behind, Failed, Idle };
    /// Appends one block to the pending buffer; sample blocks may be refused (then counted as lost): Behind when the
    /// buffer or the cap refused it, Failed after a write error. @p samples and @p lastWakeNs: a samples block's.
    Append append(const std::string& block, bool droppable, uint64_t samples = 0, int64_t lastWakeNs = 0);
    /// After a failed write (writer thread): cuts the file back to the last whole block it holds.
    void cutAtLastBlock();
    /// At the end of a run whose writing failed: ends the cut file (lost and end blocks) and says what it holds.
    /// False when nothing of the run could be kept.
    bool endCutFile(AtomicOutputFile& file);
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
    uint64_t m_lostBehind = 0;    ///< of m_lost: refused by the buffer or the cap, not by a write error
    uint64_t m_lostInBlocks = 0;  ///< the counts of the lost blocks accepted
    int64_t m_startNs = 0;
    int64_t m_lastWakeNs = 0; ///< of the latest sample accepted
    int64_t m_stopNs = 0;     ///< onRunEnd's
    bool m_cutShort = false;
    bool m_endBlock = false;
    int64_t m_keptUntilNs = 0;
    /// Where each accepted block ends (bytes from the file's start) and what the file holds up to there: the blocks
    /// not known written yet, and the last kKeptBoundaries written ones, which a write error cuts the file back to.
    struct Boundary {
        uint64_t bytes = 0;
        uint64_t samples = 0;
        uint64_t lost = 0;
        int64_t lastWakeNs = 0;
    };
    static constexpr size_t kKeptBoundaries = 16;
    std::deque<Boundary> m_unwritten;
    std::deque<Boundary> m_written;
    std::string m_error;
    std::thread m_writer;

    // Sink side (the calls are serialized): consecutive batches of one thread become one block, so the block
    // header and the first sample's absolute values are paid once per block, not once per 1 ms drain.
    std::vector<LatencySample> m_batch;
    size_t m_batchThread = 0;
};

} // namespace rtscope
