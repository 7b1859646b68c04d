#pragma once
/// @file A pass/fail limit on a latency run for CI harnesses (`rtscope latency --fail-above 100us
/// --fail-percentile 99.99`, docs/ci.md): the verdict per measured CPU, the one line a harness greps, and the
/// "limit" object of --json.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

struct LatencySnapshot;

/// @brief The limit: every measured CPU's percentile must be at most limitNs.
struct LatencyLimit {
    static constexpr int64_t kMaxLimitNs = int64_t(10) * 1'000'000'000; ///< 10 s, far inside the histogram's range
    int64_t limitNs = 0;
    double percentile = 100; ///< more than 0 and at most 100; 100 is the maximum (the default)

    /// @brief One sentence per problem, naming the flag (--fail-above, --fail-percentile) and its range.
    std::vector<std::string> validate() const;
};

/// @brief "max", or a number more than 0 and at most 100 ("99.99", also written "p99.99"); nullopt otherwise (the
/// range is validate()'s, so "0" and "120" parse).
std::optional<double> parseLimitPercentile(std::string_view text);
/// @brief How the percentile is named in the verdict line and the JSON: "max" for 100, else "p99.99".
std::string limitPercentileName(double percentile);
/// @brief @p ns in microseconds with as many decimals as it needs, up to the nanosecond: "142", "100.25".
std::string limitMicroseconds(int64_t ns);

/// @brief One measured CPU's figure against the limit.
struct LatencyLimitCpu {
    int cpu = -1;
    uint64_t samples = 0;
    std::optional<int64_t> valueNs; ///< the percentile; nullopt when unknown (see unknownReason)
    std::string unknownReason;      ///< why the percentile is unknown, one sentence; empty when it is known
    bool broken = false;            ///< valueNs > limitNs
};

struct LatencyLimitVerdict {
    LatencyLimit limit;
    std::vector<LatencyLimitCpu> cpus; ///< in the run's thread order
    bool pass = false;                 ///< every CPU known and none over the limit (and at least one CPU)
    /// "rtscope: PASS: max over cpus p99.99 57 us <= 100 us" or "rtscope: FAIL: cpu 1 p99.99 142 us > 100 us";
    /// an unknown percentile fails with "rtscope: FAIL: cpu 1 p99.99 unknown (WHY); limit 100 us".
    std::string line;
};

/// @brief The verdict of @p snap against @p limit. The percentile of a CPU is its histogram's, the figure the
/// summary prints (Histogram::percentile: nearest rank over log-linear buckets, within 0.4 %; the maximum is
/// exact). It is unknown, and the CPU fails, when the CPU has no samples, when samples were lost between the
/// measuring thread and the histogram (ring drops, sequence gaps), or when the rank falls among the values above
/// the histogram's range (Histogram::kMaxTrackableNs). The line names the CPU with the highest value over the
/// limit, else the first CPU whose figure is unknown; a pass names the highest value over all CPUs.
LatencyLimitVerdict evaluateLatencyLimit(const LatencySnapshot& snap, const LatencyLimit& limit);

/// @brief The "limit" object of --json: limit_ns, percentile, percentile_name, verdict ("pass"/"fail"), line, and
/// per CPU cpu, samples, value_ns (null when unknown), unknown_reason, over_limit.
nlohmann::json latencyLimitJson(const LatencyLimitVerdict& verdict);

} // namespace rtscope
