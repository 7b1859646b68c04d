#pragma once
// Recordings made up in code, block by block, straight in the byte layout of docs/recording-format.md (not through
// RecordingWriter): hostile and pathological files for the reader tests — a header that asks for 128 threads with the
// largest histogram, thousands of restarts, escape sequences in the texts — without committing opaque binaries.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace rtscope::test {

class RecordingBytes {
public:
    /// The header block of a recording whose threads run on @p cpus; @p config and @p probe go in as given.
    explicit RecordingBytes(const std::vector<int>& cpus, nlohmann::json config = nlohmann::json::object(),
                            const std::string& host = "board", const std::string& command = "rtscope latency",
                            const std::string& probeText = R"({"kernel_release":"6.1.0"})")
    {
        m_bytes.assign("RTSCREC\n");
        u32(m_bytes, 1);
        const nlohmann::json header{{"format", "rtscope-recording"},
                                    {"rtscope_version", "0.1.0"},
                                    {"recorded_at", "2026-11-30T01:23:45Z"},
                                    {"start_unix_ns", 1'795'997'025'000'000'000},
                                    {"start_ns", kStartNs},
                                    {"host", host},
                                    {"command", command},
                                    {"cpus", cpus},
                                    {"config", std::move(config)},
                                    {"probe", "PROBE"}};
        // The probe goes in as text: it may be JSON no value can hold without recursing (nested 100 000 deep).
        std::string text = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        text.replace(text.find("\"PROBE\""), 7, probeText);
        block(1, text);
    }

    static constexpr int64_t kStartNs = 1'000'000'000'000;

    /// @p count samples of thread @p thread, one a period from @p firstDeadlineNs, each @p latencyNs late.
    RecordingBytes& samples(uint16_t thread, uint64_t firstSeq, int64_t firstDeadlineNs, uint32_t count,
                            int64_t periodNs = 1'000'000, int64_t latencyNs = 5'000)
    {
        std::string p;
        le(p, thread, 2);
        u32(p, count);
        for (uint32_t i = 0; i < count; ++i) {
            zigzag(p, i == 0 ? int64_t(firstSeq) : 0);
            zigzag(p, i == 0 ? firstDeadlineNs : periodNs);
            zigzag(p, latencyNs + int64_t(i % 7) * 1'000);
            zigzag(p, 0);
            p.push_back(0); // skipped
            p.push_back(0); // epoch
        }
        m_samples += count;
        block(2, p);
        return *this;
    }
    RecordingBytes& marker(int64_t tNs, uint64_t seq, const std::string& label,
                           const nlohmann::json& config = nlohmann::json::object())
    {
        return markerWithText(tNs, seq, label, config.dump());
    }
    /// A marker whose config is @p json as it stands.
    RecordingBytes& markerWithText(int64_t tNs, uint64_t seq, const std::string& label, const std::string& json)
    {
        std::string p;
        le(p, uint64_t(tNs), 8);
        le(p, seq, 8);
        le(p, label.size(), 2);
        p += label;
        u32(p, uint32_t(json.size()));
        p += json;
        block(3, p);
        return *this;
    }
    RecordingBytes& reset(int64_t tNs)
    {
        std::string p;
        le(p, uint64_t(tNs), 8);
        block(4, p);
        return *this;
    }
    RecordingBytes& restart(int64_t tNs, const std::vector<int>& cpus)
    {
        std::string p;
        le(p, uint64_t(tNs), 8);
        le(p, cpus.size(), 2);
        for (int c : cpus)
            u32(p, uint32_t(c));
        block(7, p);
        return *this;
    }
    /// The end block, counting the samples added; returns the whole file.
    const std::string& end(int64_t tNs)
    {
        std::string p;
        le(p, uint64_t(tNs), 8);
        le(p, m_samples, 8);
        le(p, 0, 8);
        block(9, p);
        return m_bytes;
    }
    const std::string& bytes() const { return m_bytes; }
    uint64_t sampleCount() const { return m_samples; }

private:
    static void le(std::string& out, uint64_t v, int n)
    {
        for (int i = 0; i < n; ++i)
            out.push_back(char(uint8_t(v >> (8 * i))));
    }
    static void u32(std::string& out, uint32_t v) { le(out, v, 4); }
    static void varint(std::string& out, uint64_t v)
    {
        while (v >= 0x80) {
            out.push_back(char(uint8_t(v) | 0x80));
            v >>= 7;
        }
        out.push_back(char(v));
    }
    static void zigzag(std::string& out, int64_t v) { varint(out, (uint64_t(v) << 1) ^ uint64_t(v >> 63)); }
    void block(uint8_t type, const std::string& payload)
    {
        m_bytes.push_back(char(type));
        u32(m_bytes, uint32_t(payload.size()));
        m_bytes += payload;
    }

    std::string m_bytes;
    uint64_t m_samples = 0;
};

/// Seconds of reading even for a linear reader: 30 000 restarts alternating between one and 128 measuring threads,
/// 400 samples between restarts (the shape that took minutes before replay cost was made linear).
inline std::string manyRestartsRecording()
{
    std::vector<int> many;
    for (int i = 0; i < 128; ++i)
        many.push_back(i);
    RecordingBytes b({0});
    int64_t t = RecordingBytes::kStartNs;
    for (int r = 0; r < 30'000; ++r) {
        b.restart(t, r % 2 ? std::vector<int>{0} : many);
        b.samples(0, 0, t, 400);
        t += 400 * 1'000'000;
    }
    return b.end(t);
}

} // namespace rtscope::test
