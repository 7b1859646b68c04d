#include "engine/recording/recording_writer.h"

#include "engine/formats/output_file.h"
#include "engine/formats/probe_json.h"
#include "engine/recording/recording_blocks.h"
#include "engine/util/clock.h"
#include "engine/util/helper_thread.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <pthread.h>
#include <sched.h>

namespace rtscope {

using namespace recording_blocks;

RecordingWriter::RecordingWriter(const SystemProbe& probe, std::string path, Limits limits)
    : m_probeJson(toJson(probe))
    , m_host(probe.hostname)
    , m_limits(limits)
    , m_command("rtscope")
    , m_path(std::move(path))
{}

RecordingWriter::RecordingWriter(const SystemProbe& probe, std::string path)
    : RecordingWriter(probe, std::move(path), Limits{})
{}

RecordingWriter::RecordingWriter(const SystemProbe& probe, ByteSink sink, Limits limits)
    : RecordingWriter(probe, std::string(), limits)
{
    m_sink = std::move(sink);
}

RecordingWriter::~RecordingWriter()
{
    // A run that never ended (its experiment was destroyed without stop()) stays without its end block: a
    // reader then says the file is truncated, which is the truth.
    finish();
}

void RecordingWriter::setPath(std::string path)
{
    std::lock_guard lock(m_mutex);
    if (!m_recording)
        m_path = std::move(path);
}

void RecordingWriter::setCommand(std::string command)
{
    std::lock_guard lock(m_mutex);
    m_command = std::move(command);
}

RecordingWriter::Status RecordingWriter::status() const
{
    std::lock_guard lock(m_mutex);
    return {m_path,  m_recording, m_complete, m_samples,  m_lost,       m_lostBehind,
            m_bytes, m_error,     m_cutShort, m_endBlock, m_keptUntilNs};
}

void RecordingWriter::onRunStart(const LatencyRunInfo& info)
{
    finish();
    std::lock_guard lock(m_mutex);
    m_samples = m_lost = m_lostUnwritten = m_bytes = m_lostBehind = m_lostInBlocks = 0;
    m_batch.clear();
    m_complete = false;
    m_ended = false;
    m_cutShort = m_endBlock = false;
    m_keptUntilNs = m_stopNs = m_lastWakeNs = 0;
    m_startNs = info.startNs;
    m_unwritten.clear();
    m_written.clear();
    m_error.clear();
    m_pending.clear();
    if (info.cpus.empty() || info.cpus.size() > kMaxThreads) {
        m_error = "a recording holds 1 to " + std::to_string(kMaxThreads) + " measuring threads, this run has " +
                  std::to_string(info.cpus.size());
        return;
    }
    if (!m_sink) {
        auto file = std::make_unique<AtomicOutputFile>();
        if (const Error e = file->open(m_path)) {
            m_error = e.message;
            return;
        }
        m_file = std::move(file);
    }
    const int64_t unixNs = unixNowNs() - (nowNs() - info.startNs);
    const nlohmann::json header{{"format", "rtscope-recording"}, {"rtscope_version", RTSCOPE_VERSION},
                                {"recorded_at", isoUtc(unixNs)}, {"start_unix_ns", unixNs},
                                {"start_ns", info.startNs},      {"host", m_host},
                                {"command", m_command},          {"cpus", info.cpus},
                                {"config", toJson(info.config)}, {"probe", m_probeJson}};
    m_pending.assign(kRecordingMagic, sizeof kRecordingMagic);
    Encoder(m_pending).u32(kRecordingVersion);
    m_pending += block(BlockType::Header, header.dump());
    m_bytes = m_pending.size();
    m_unwritten.push_back({m_bytes, 0, 0, 0});
    m_recording = true;
    m_stop = false;
    m_writer = std::thread([this] { writerLoop(); });
    nameAndPlaceHelper(m_writer, "rtscope-record", info.quietCpu); // best effort, like the collector
}

void RecordingWriter::flushLostLocked()
{
    if (!m_lostUnwritten)
        return;
    std::string payload;
    Encoder(payload).u64(m_lostUnwritten);
    const std::string b = block(BlockType::Lost, payload);
    m_pending += b;
    m_bytes += b.size();
    m_lostInBlocks += m_lostUnwritten;
    if (m_error.empty())
        m_unwritten.push_back({m_bytes, m_samples, m_lostInBlocks, m_lastWakeNs});
    m_lostUnwritten = 0;
}

RecordingWriter::Append RecordingWriter::append(const std::string& b, bool droppable, uint64_t samples,
                                                int64_t lastWakeNs)
{
    std::lock_guard lock(m_mutex);
    if (!m_recording)
        return Append::Idle;
    if (droppable && !m_error.empty())
        return Append::Failed;
    if (droppable && (m_pending.size() + b.size() > m_limits.bufferBytes ||
                      (m_limits.maxFileBytes && m_bytes + b.size() > m_limits.maxFileBytes)))
        return Append::Behind;
    flushLostLocked();
    m_pending += b;
    m_bytes += b.size();
    m_samples += samples;
    if (samples)
        m_lastWakeNs = lastWakeNs;
    if (m_error.empty()) // after a write error nothing more reaches the file
        m_unwritten.push_back({m_bytes, m_samples, m_lostInBlocks, m_lastWakeNs});
    if (m_limits.writeEachBlock)
        m_writeNow = true;
    if (m_pending.size() >= kWriteChunk || m_writeNow)
        m_wake.notify_one();
    return Append::Kept;
}

void RecordingWriter::onSamples(size_t thread, std::span<const LatencySample> batch)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_recording)
            return;
    }
    if (!m_batch.empty() && thread != m_batchThread)
        flushSamples();
    m_batchThread = thread;
    for (const LatencySample& s : batch) {
        m_batch.push_back(s);
        if (m_batch.size() >= kBlockSamples ||
            wrapDelta(m_batch.back().wakeNs, m_batch.front().wakeNs) >= m_limits.blockSpanNs)
            flushSamples();
    }
}

void RecordingWriter::flushSamples()
{
    if (m_batch.empty())
        return;
    const Append kept = append(block(BlockType::Samples, encodeSamples(m_batchThread, m_batch)), true, m_batch.size(),
                               m_batch.back().wakeNs);
    std::lock_guard lock(m_mutex);
    if (kept == Append::Behind || kept == Append::Failed) {
        m_lost += m_batch.size();
        m_lostUnwritten += m_batch.size();
        if (kept == Append::Behind)
            m_lostBehind += m_batch.size();
    }
    m_batch.clear();
}

void RecordingWriter::onMarker(const Marker& marker, const LatencyConfig& config)
{
    flushSamples();
    std::string payload;
    Encoder e(payload);
    const std::string label = marker.label.substr(0, kMaxLabelBytes);
    const std::string json = toJson(config).dump();
    e.i64(marker.tNs);
    e.u64(marker.seq);
    e.u16(uint16_t(label.size()));
    e.bytes(label);
    e.u32(uint32_t(json.size()));
    e.bytes(json);
    append(block(BlockType::Marker, payload), false);
}

void RecordingWriter::onReset(int64_t tNs)
{
    flushSamples();
    std::string payload;
    Encoder(payload).i64(tNs);
    append(block(BlockType::Reset, payload), false);
}

void RecordingWriter::onDrops(size_t thread, uint64_t total)
{
    flushSamples();
    std::string payload;
    Encoder e(payload);
    e.u16(uint16_t(thread));
    e.u64(total);
    append(block(BlockType::Drops, payload), false);
}

void RecordingWriter::onHogWork(int64_t tNs, uint64_t iterations, double perSecond)
{
    flushSamples();
    std::string payload;
    Encoder e(payload);
    e.i64(tNs);
    e.u64(iterations);
    e.f64(std::isfinite(perSecond) && perSecond >= 0 ? perSecond : 0);
    append(block(BlockType::HogWork, payload), false);
}

void RecordingWriter::onRestart(int64_t tNs, const std::vector<int>& cpus)
{
    flushSamples();
    std::string payload;
    Encoder e(payload);
    e.i64(tNs);
    e.u16(uint16_t(std::min(cpus.size(), kMaxThreads)));
    for (size_t i = 0; i < cpus.size() && i < kMaxThreads; ++i)
        e.i32(cpus[i]);
    append(block(BlockType::Restart, payload), false);
}

void RecordingWriter::onTracing(const LatencyTracing& tracing)
{
    flushSamples();
    const AnatomyFigures& f = tracing.figures;
    // The live run keeps fewer than these bounds (top 100, the latest 100 over the threshold, 2048 events a window);
    // a larger list is cut to what a reader accepts, its earliest events counted as omitted, never refused whole.
    const size_t worst = std::min(f.worst.size(), size_t(std::max(0, tracing.top)));
    const size_t over = std::min(f.overThreshold.size(), kMaxRecordedOverThreshold);
    append(block(BlockType::Anatomy, encodeAnatomy(tracing, worst, over)), false);
    uint64_t budget = kMaxRecordedTraceEvents;
    const auto wakeup = [&](bool isOver, const TracedWakeup& t) {
        const size_t keep = size_t(std::min<uint64_t>({t.events.size(), kMaxRecordedWindowEvents, budget}));
        budget -= keep;
        append(block(BlockType::TracedWakeup, encodeTracedWakeup(isOver, t, keep)), false);
    };
    for (size_t i = 0; i < worst; ++i)
        wakeup(false, f.worst[i]);
    for (size_t i = f.overThreshold.size() - over; i < f.overThreshold.size(); ++i)
        wakeup(true, f.overThreshold[i]);
}

void RecordingWriter::onRunEnd(int64_t stopNs)
{
    flushSamples();
    {
        std::lock_guard lock(m_mutex);
        if (!m_recording)
            return;
        flushLostLocked();
        std::string payload;
        Encoder e(payload);
        e.i64(stopNs);
        e.u64(m_samples);
        e.u64(m_lost);
        const std::string b = block(BlockType::End, payload);
        m_pending += b;
        m_bytes += b.size();
        m_unwritten.push_back({m_bytes, m_samples, m_lostInBlocks, m_lastWakeNs});
        m_ended = true;
        m_stopNs = stopNs;
    }
    finish();
}

void RecordingWriter::writerLoop()
{
    std::string batch;
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait_for(lock, std::chrono::milliseconds(kWriterIntervalMs),
                        [this] { return m_stop || m_writeNow || m_pending.size() >= kWriteChunk; });
        batch.swap(m_pending);
        m_writeNow = false;
        const bool stop = m_stop;
        const bool failed = !m_error.empty();
        lock.unlock();
        std::string error;
        if (!batch.empty() && !failed)
            if (const Error e = m_sink ? m_sink(batch) : m_file->write(batch))
                error = e.message;
        const uint64_t written = m_file ? m_file->size() : 0;
        batch.clear();
        lock.lock();
        if (!failed) {
            // The blocks now in the file; a sink's are all out when it did not fail.
            while (!m_unwritten.empty() && (m_sink ? error.empty() : m_unwritten.front().bytes <= written)) {
                m_written.push_back(m_unwritten.front());
                m_unwritten.pop_front();
                if (m_written.size() > kKeptBoundaries)
                    m_written.pop_front();
            }
        }
        if (!error.empty() && m_error.empty()) {
            m_error = error;
            m_unwritten.clear(); // none of them will be written
            if (m_file) {
                lock.unlock();
                cutAtLastBlock();
                lock.lock();
            }
        }
        if (stop && m_pending.empty())
            return;
    }
}

void RecordingWriter::cutAtLastBlock()
{
    uint64_t keep = 0;
    {
        std::lock_guard lock(m_mutex);
        keep = m_written.empty() ? 0 : m_written.back().bytes;
    }
    // Half a block would make the file invalid rather than short; should this fail, endCutFile() tries again.
    (void)m_file->rewind(keep);
}

bool RecordingWriter::endCutFile(AtomicOutputFile& file)
{
    std::deque<Boundary> written;
    bool ended = false;
    int64_t stopNs = 0;
    uint64_t total = 0;
    {
        std::lock_guard lock(m_mutex);
        written = m_written;
        ended = m_ended;
        stopNs = m_stopNs;
        total = m_samples + m_lost; // every sample the run gave the writer
    }
    if (written.empty()) // not even the header reached the file
        return false;
    Boundary keep = written.back();
    bool endBlock = false;
    // The newest boundary first; on a disk still full, each older one frees a block's bytes for the 42 of the lost
    // and end blocks. A few tries: past them, the file ends after its last whole block and reads as truncated.
    for (int tries = 0; tries < 4 && !written.empty(); ++tries) {
        const Boundary b = written.back();
        written.pop_back();
        if (file.rewind(b.bytes))
            return false;
        keep = b;
        if (!ended) // the run did not end (its experiment went without stop()): no stop time to write
            break;
        const uint64_t lost = total - b.samples;
        std::string tail;
        if (lost > b.lost) {
            std::string payload;
            Encoder(payload).u64(lost - b.lost);
            tail += block(BlockType::Lost, payload);
        }
        std::string payload;
        Encoder e(payload);
        e.i64(stopNs);
        e.u64(b.samples);
        e.u64(lost);
        tail += block(BlockType::End, payload);
        if (!file.write(tail)) {
            endBlock = true;
            break;
        }
    }
    if (!endBlock && file.rewind(keep.bytes))
        return false;
    std::lock_guard lock(m_mutex);
    m_lost = total - keep.samples;
    m_samples = keep.samples;
    m_cutShort = true;
    m_endBlock = endBlock;
    m_keptUntilNs = keep.samples ? keep.lastWakeNs - m_startNs : 0;
    return true;
}

void RecordingWriter::finish()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_one();
    if (m_writer.joinable())
        m_writer.join();
    std::unique_ptr<AtomicOutputFile> file;
    {
        std::lock_guard lock(m_mutex);
        file = std::move(m_file);
    }
    // Outside the lock: the fsync of a long run's file may take a while, and status() must not wait for it. A run
    // without its end block (its experiment went without stop()) is put in place too; a reader then says it is
    // truncated, which is the truth. One that failed to write is not: the file there before is kept.
    Error committed;
    if (file) {
        bool failed = false;
        {
            std::lock_guard lock(m_mutex);
            failed = !m_error.empty();
        }
        // One that failed to write keeps what it wrote before the failure, cut at a block boundary and ended there.
        if (!failed)
            committed = file->commit();
        else if (endCutFile(*file))
            committed = file->commit();
        else
            file->discard();
    }
    std::lock_guard lock(m_mutex);
    if (file || (m_sink && m_recording)) {
        if (committed && m_error.empty())
            m_error = committed.message;
        // Complete only when the end block made it to the file.
        m_complete = m_error.empty() && m_pending.empty() && m_ended;
    }
    m_recording = false;
}

} // namespace rtscope
