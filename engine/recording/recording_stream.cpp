#include "engine/recording/recording_stream.h"

#include <algorithm>
#include <cstring>

namespace rtscope {

namespace {

// The block framing of docs/recording-format.md: after the 12-byte signature (magic, version), blocks of
// type:u8 length:u32 payload. Only the types the stream itself must see are named here; the reader decodes the rest.
constexpr size_t kStreamSignatureBytes = sizeof kRecordingMagic + 4;
constexpr size_t kStreamBlockHeaderBytes = 5;
constexpr uint8_t kStreamHeaderBlock = 1;
constexpr uint8_t kStreamRestartBlock = 7;
constexpr uint8_t kStreamEndBlock = 9;
constexpr uint32_t kStreamEndPayload = 24; // time, samples, lost

uint64_t streamLe(const char* p, int n)
{
    uint64_t x = 0;
    for (int i = 0; i < n; ++i)
        x |= uint64_t(uint8_t(p[i])) << (8 * i);
    return x;
}

} // namespace

// Each batch of new blocks is read as a recording of its own: the signature, the header block and the latest restart
// block, then the new blocks. This visitor passes the new blocks' content on to the one replayer and drops the
// repeated prefix, so every block is replayed once, by the reader and replayer a file uses.
class RecordingStream::Forward final : public RecordingVisitor {
public:
    Forward(RecordingReplayer& to, bool skipHeader, bool skipRestart)
        : m_to(to)
        , m_skipHeader(skipHeader)
        , m_skipRestart(skipRestart)
    {}
    uint64_t delivered = 0;
    uint64_t lostCount = 0;
    int64_t latestNs = 0;

    void header(const RecordingHeader& h) override
    {
        if (!m_skipHeader)
            m_to.header(h);
        latestNs = std::max(latestNs, h.startNs);
        check();
    }
    void samples(size_t thread, std::span<const LatencySample> batch) override
    {
        m_to.samples(thread, batch);
        delivered += batch.size();
        for (const LatencySample& s : batch)
            latestNs = std::max(latestNs, s.wakeNs);
        check();
    }
    void marker(const RecordedMarker& m) override
    {
        m_to.marker(m);
        check();
    }
    void reset(int64_t tNs) override
    {
        m_to.reset(tNs);
        check();
    }
    void drops(size_t thread, uint64_t total) override
    {
        m_to.drops(thread, total);
        check();
    }
    void hogWork(int64_t tNs, uint64_t iterations, double perSecond) override
    {
        m_to.hogWork(tNs, iterations, perSecond);
        check();
    }
    void restart(int64_t tNs, const std::vector<int>& cpus) override
    {
        if (m_skipRestart) {
            m_skipRestart = false; // the prefix's: already replayed with the batch that brought it
            return;
        }
        m_to.restart(tNs, cpus);
        check();
    }
    void lost(uint64_t n) override
    {
        m_to.lost(n);
        lostCount += n;
        check();
    }
    void tracing(const LatencyTracing& t) override
    {
        m_to.tracing(t);
        check();
    }
    void tracedWakeup(bool overThreshold, TracedWakeup w) override
    {
        m_to.tracedWakeup(overThreshold, std::move(w));
        check();
    }

private:
    void check()
    {
        if (!m_to.refusal().empty())
            refuse(m_to.refusal());
    }
    RecordingReplayer& m_to;
    bool m_skipHeader;
    bool m_skipRestart;
};

RecordingStream::RecordingStream(const RecordingReplayOptions& options)
    : m_replayer(makeRecordingReplayer(options, m_run))
{}

RecordingStream::~RecordingStream() = default;

bool RecordingStream::broken(std::string why)
{
    if (m_error.empty())
        m_error = "the recording stream, after " + std::to_string(m_bytesFed) + " bytes: " + std::move(why);
    return false;
}

bool RecordingStream::feed(std::string_view bytes)
{
    if (!m_error.empty())
        return false;
    if (m_ended)
        return bytes.empty() ? true : broken(std::to_string(bytes.size()) + " bytes follow the end block");
    m_buffer.append(bytes);
    m_bytesFed += bytes.size();
    if (m_signature.empty()) {
        if (m_buffer.size() < kStreamSignatureBytes)
            return true;
        m_signature = m_buffer.substr(0, kStreamSignatureBytes);
        m_buffer.erase(0, kStreamSignatureBytes);
        if (!looksLikeRecording(m_signature))
            return broken("not an rtscope recording (it does not start with the RTSCREC signature)");
    }
    // The complete blocks now buffered; the restart block the batch is read with is the one before it.
    const std::string restartBefore = m_lastRestart;
    std::string blocks;
    size_t pos = 0;
    while (m_buffer.size() - pos >= kStreamBlockHeaderBytes) {
        const auto type = uint8_t(m_buffer[pos]);
        const auto length = uint32_t(streamLe(m_buffer.data() + pos + 1, 4));
        if (length > kMaxBufferedBlock)
            return broken("a block of " + std::to_string(length) + " bytes exceeds the " +
                          std::to_string(kMaxBufferedBlock) + "-byte limit");
        const size_t whole = kStreamBlockHeaderBytes + length;
        if (m_buffer.size() - pos < whole)
            break;
        const std::string_view block(m_buffer.data() + pos, whole);
        pos += whole;
        if (!m_headerDelivered && m_headerBlock.empty()) {
            if (type != kStreamHeaderBlock)
                return broken("expected the header block first");
            m_headerBlock = block;
            continue;
        }
        if (type == kStreamEndBlock) {
            // Checked here, not by the reader: it counts the samples of one batch, the end block those of the run.
            if (length != kStreamEndPayload)
                return broken("the end block holds " + std::to_string(length) + " bytes, not " +
                              std::to_string(kStreamEndPayload));
            const char* p = block.data() + kStreamBlockHeaderBytes;
            m_endNs = int64_t(streamLe(p, 8));
            const uint64_t samples = streamLe(p + 8, 8);
            const uint64_t lost = streamLe(p + 16, 8);
            if (!replayBlocks(blocks, restartBefore))
                return false;
            if (samples != m_samples || lost != m_lost)
                return broken("the end block counts " + std::to_string(samples) + " samples and " +
                              std::to_string(lost) + " lost, the stream held " + std::to_string(m_samples) + " and " +
                              std::to_string(m_lost));
            m_ended = true;
            m_latestNs = std::max(m_latestNs, m_endNs);
            if (pos != m_buffer.size())
                return broken(std::to_string(m_buffer.size() - pos) + " bytes follow the end block");
            m_buffer.clear();
            return true;
        }
        if (type == kStreamRestartBlock)
            m_lastRestart = block;
        blocks.append(block);
    }
    m_buffer.erase(0, pos);
    if (blocks.empty() && (m_headerDelivered || m_headerBlock.empty()))
        return true;
    return replayBlocks(blocks, restartBefore);
}

bool RecordingStream::replayBlocks(const std::string& blocks, const std::string& restartPrefix)
{
    const std::string bytes = m_signature + m_headerBlock + restartPrefix + blocks;
    Forward forward(*m_replayer, m_headerDelivered, !restartPrefix.empty());
    const RecordingReadResult r = readRecording(bytes, forward);
    // Only complete blocks are given, without the end block: "the file ends without its end block" is expected.
    m_samples += forward.delivered;
    m_lost += forward.lostCount;
    m_latestNs = std::max(m_latestNs, forward.latestNs);
    if (r.headerRead)
        m_headerDelivered = true;
    if (!r.truncated && !r.error.empty())
        return broken(r.error);
    if (!r.headerRead)
        return broken(r.error.empty() ? std::string("the header block cannot be read") : r.error);
    return true;
}

void RecordingStream::resetStatistics()
{
    if (m_headerDelivered)
        m_replayer->reset(m_latestNs);
}

std::shared_ptr<LatencySnapshot> RecordingStream::snapshot()
{
    if (!m_headerDelivered)
        return nullptr;
    auto snap = m_replayer->snapshotSoFar(m_latestNs);
    if (snap) {
        snap->running = !m_ended && m_error.empty();
        snap->finished = m_ended;
    }
    return snap;
}

} // namespace rtscope
