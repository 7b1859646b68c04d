#pragma once
// The block layout of a recording (docs/recording-format.md), shared by its encoder (recording_encode.cpp, used by
// the writer) and its reader (recording_reader.cpp). Internal to engine/recording: not for other layers.
#include "engine/experiments/latency/latency_snapshot.h"
#include "engine/recording/recording_reader.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace rtscope::recording_blocks {

enum class BlockType : uint8_t {
    Header = 1,
    Samples = 2,
    Marker = 3,
    Reset = 4,
    Drops = 5,
    HogWork = 6,
    Restart = 7,
    Lost = 8,
    End = 9,
    Anatomy = 10,      // version 2: the run's tracing as it ended, without its wake-ups
    TracedWakeup = 11, // version 2: one kept wake-up, its anatomy and its window of kernel events
};
// Types from here on are optional (version 2): a reader that does not know one skips it.
constexpr uint8_t kFirstOptionalBlock = 128;

constexpr size_t kBlockHeaderBytes = 5; // type u8, length u32
constexpr uint32_t kMaxHeaderBytes = 1 << 20;
constexpr uint32_t kMaxSamplesPerBlock = 65536;
// seq, deadline, latency and the wake-up correction take at most 10 varint bytes each, skipped and epoch 5.
constexpr uint32_t kMaxSampleBytes = 4 * 10 + 2 * 5;
constexpr uint32_t kMaxSamplesBlockBytes = 6 + kMaxSamplesPerBlock * kMaxSampleBytes;
constexpr size_t kMaxLabelBytes = 4096;
constexpr uint32_t kMaxConfigBytes = 64 << 10;
// A replay keeps an aggregator per measuring thread: the limit bounds what a file can make us allocate.
constexpr size_t kMaxThreads = kMaxRecordingThreads;
constexpr int kMaxCpu = 65535;
// Timestamps are CLOCK_MONOTONIC nanoseconds: never negative, and far from the int64 limits so that the timeline
// and window arithmetic of a replay cannot overflow, whatever a file says.
constexpr int64_t kMaxTimeNs = int64_t(1) << 62;
// The writer thread writes when this much is pending, or every kWriterIntervalMs.
constexpr size_t kWriteChunk = 256 << 10;
constexpr int kWriterIntervalMs = 50;
// Samples gathered into one block: at most this many, spanning at most this long.
constexpr size_t kBlockSamples = 4096;
// The anatomy blocks (docs/recording-format.md). Texts are cut to these lengths by the writer and refused beyond
// them by the reader: a reason or note is a sentence, a name a comm, an IRQ handler or a kernel symbol.
constexpr size_t kMaxTraceTextBytes = 4096;
constexpr size_t kMaxTraceNameBytes = 1024;
constexpr size_t kMaxMissingEvents = 256;
constexpr size_t kMaxAnatomyInterrupts = 4096;
constexpr size_t kMaxAnatomySlices = kMaxRecordedWindowEvents;
// A window's string table holds each distinct comm, handler name and marker text once; an event names at most two.
constexpr size_t kMaxWindowStrings = 2 * kMaxRecordedWindowEvents;
constexpr size_t kMaxEventTextBytes = 63; // the longest of TraceEvent's fixed texts, TraceMarker::text, holds 55
constexpr uint32_t kMaxAnatomyBytes = 16 << 20;
constexpr uint32_t kMaxTracedWakeupBytes = 4 << 20;
constexpr uint32_t kMaxOptionalBytes = 16 << 20;
// The fewest bytes a culprit row and an event take: a count is refused when the payload cannot hold it.
constexpr size_t kMinCulpritBytes = 1 + 8 + 2 + 4 + 8 + 8 + 8;
constexpr size_t kMinEventBytes = 5;

inline const char* blockName(BlockType t)
{
    switch (t) {
    case BlockType::Header:
        return "header";
    case BlockType::Samples:
        return "samples";
    case BlockType::Marker:
        return "marker";
    case BlockType::Reset:
        return "reset";
    case BlockType::Drops:
        return "drops";
    case BlockType::HogWork:
        return "hog work";
    case BlockType::Restart:
        return "restart";
    case BlockType::Lost:
        return "lost";
    case BlockType::End:
        return "end";
    case BlockType::Anatomy:
        return "anatomy";
    case BlockType::TracedWakeup:
        return "traced wake-up";
    }
    return "optional";
}

inline uint32_t maxPayload(BlockType t)
{
    switch (t) {
    case BlockType::Header:
        return kMaxHeaderBytes;
    case BlockType::Samples:
        return kMaxSamplesBlockBytes;
    case BlockType::Marker:
        return 8 + 8 + 2 + kMaxLabelBytes + 4 + kMaxConfigBytes;
    case BlockType::Reset:
        return 8;
    case BlockType::Drops:
        return 2 + 8;
    case BlockType::HogWork:
        return 8 + 8 + 8;
    case BlockType::Restart:
        return 8 + 2 + 4 * kMaxThreads;
    case BlockType::Lost:
        return 8;
    case BlockType::End:
        return 8 + 8 + 8;
    case BlockType::Anatomy:
        return kMaxAnatomyBytes;
    case BlockType::TracedWakeup:
        return kMaxTracedWakeupBytes;
    }
    return kMaxOptionalBytes;
}

class Encoder {
public:
    explicit Encoder(std::string& out)
        : m_out(out)
    {}
    void u8(uint8_t v) { m_out.push_back(char(v)); }
    void u16(uint16_t v) { le(v, 2); }
    void u32(uint32_t v) { le(v, 4); }
    void u64(uint64_t v) { le(v, 8); }
    void i64(int64_t v) { le(uint64_t(v), 8); }
    void i32(int32_t v) { le(uint32_t(v), 4); }
    void f64(double v)
    {
        uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        le(bits, 8);
    }
    void varint(uint64_t v)
    {
        while (v >= 0x80) {
            m_out.push_back(char(uint8_t(v) | 0x80));
            v >>= 7;
        }
        m_out.push_back(char(v));
    }
    // Zigzag keeps small negative numbers small: 0, -1, 1, -2 … → 0, 1, 2, 3 …
    void zigzag(int64_t v) { varint((uint64_t(v) << 1) ^ uint64_t(v >> 63)); }
    void bytes(std::string_view s) { m_out.append(s); }

private:
    void le(uint64_t v, int n)
    {
        for (int i = 0; i < n; ++i)
            m_out.push_back(char(uint8_t(v >> (8 * i))));
    }
    std::string& m_out;
};

// Deltas are taken with wrap-around arithmetic, so any sample (even one a test made up) survives the round trip
// exactly; the reader undoes them the same way and only then checks the values.
inline int64_t wrapDelta(int64_t a, int64_t b)
{
    return int64_t(uint64_t(a) - uint64_t(b));
}

// The optional parts and event times of an anatomy, in the order of the "known" bits.
template <class A> auto anatomyKnownTimes(A& a)
{
    return std::array{&a.timerNs,         &a.wakingNs, &a.wakeupNs,     &a.switchInNs,
                      &a.timerIrqDelayNs, &a.irqNs,    &a.schedulingNs, &a.returnToUserNs};
}
constexpr size_t kAnatomyKnownTimestamps = 4; // the first four are event times, the rest durations

/// One block: type, payload length, payload.
std::string block(BlockType type, const std::string& payload);
/// The payload of a samples block of measuring thread @p thread.
std::string encodeSamples(size_t thread, std::span<const LatencySample> batch);
/// The anatomy block's payload; @p worst and @p over: how many traced-wake-up blocks of each list follow it.
std::string encodeAnatomy(const LatencyTracing& t, size_t worst, size_t over);
/// One traced-wake-up block's payload; @p keep: how many of the window's events go in (its latest).
std::string encodeTracedWakeup(bool over, const TracedWakeup& w, size_t keep);
/// "2026-11-30T01:23:45Z" of a wall-clock time.
std::string isoUtc(int64_t unixNs);
int64_t unixNowNs();

} // namespace rtscope::recording_blocks
