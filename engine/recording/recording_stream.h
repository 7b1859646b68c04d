#pragma once
/// @file A recording that arrives piece by piece (the agent's results stream, docs/remote.md): the bytes are fed as
/// they come, every complete block is decoded by the recording reader and replayed by the same replayer as a file
/// (replayRecording), and a snapshot of what arrived so far can be taken at any time, at the cost of the new bytes
/// only.
#include "engine/recording/recording_replay.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace rtscope {

class RecordingStream {
public:
    /// @brief The most a single block may buffer before it is complete (the largest block the format allows, a
    /// traced run's anatomy, is 16 MiB): a stream announcing more is broken.
    static constexpr uint32_t kMaxBufferedBlock = uint32_t(32) << 20;

    explicit RecordingStream(const RecordingReplayOptions& options = {});
    ~RecordingStream();
    RecordingStream(const RecordingStream&) = delete;
    RecordingStream& operator=(const RecordingStream&) = delete;

    /// @brief Appends @p bytes and replays every block they complete. False once the stream is broken (error()
    /// says where and why); later bytes are ignored, what came before stays.
    bool feed(std::string_view bytes);
    /// @brief What arrived so far as one snapshot (timeline ending at the latest sample's wake-up; finished once
    /// the end block came); null before the header block. A new object each call.
    std::shared_ptr<LatencySnapshot> snapshot();
    /// @brief Clears the figures as a reset block would, at the latest sample received (the viewer's own reset: the
    /// stream itself goes on unchanged).
    void resetStatistics();

    bool headerRead() const { return m_headerDelivered; }
    const RecordingHeader& header() const { return m_run.header; }
    /// @brief The end block arrived: the run is complete.
    bool ended() const { return m_ended; }
    const std::string& error() const { return m_error; }
    uint64_t bytesFed() const { return m_bytesFed; }
    uint64_t samples() const { return m_samples; }
    /// @brief Samples the agent's recorder said it did not keep (its link fell behind).
    uint64_t lost() const { return m_lost; }

private:
    class Forward;
    bool replayBlocks(const std::string& blocks, const std::string& restartPrefix);
    bool broken(std::string why);

    ReplayedRun m_run; ///< the replayer's header and markers (declared before it: it holds a reference)
    std::unique_ptr<RecordingReplayer> m_replayer;
    std::string m_buffer; ///< bytes of the block being received
    std::string m_signature;
    std::string m_headerBlock;
    std::string m_lastRestart; ///< the latest restart block: the thread count the next blocks are read with
    bool m_headerDelivered = false;
    bool m_ended = false;
    std::string m_error;
    uint64_t m_bytesFed = 0;
    uint64_t m_samples = 0;
    uint64_t m_lost = 0;
    int64_t m_latestNs = 0; ///< the latest wake-up (or the end block's time): where the timeline ends
    int64_t m_endNs = 0;
};

} // namespace rtscope
