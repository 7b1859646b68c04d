#pragma once
/// @file The OpenMetrics text exposition of a latency run, as `rtscope monitor` serves it on /metrics
/// (docs/monitor.md): a pure function from a run's figures to the text, and the run sink that keeps the maxima
/// (since the start, and over the last kRecentMaxSeconds), which no scrape resets.
#include "engine/experiments/latency/latency_run.h"
#include "engine/experiments/noise/noise_snapshot.h"
#include "engine/pipeline/histogram.h"

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rtscope {

struct SystemProbe;

/// What a scraper is told the body is (OpenMetrics 1.0; Prometheus picks its parser by it).
inline constexpr const char* kOpenMetricsContentType = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// @brief The finite `le` bounds of the latency histogram in nanoseconds, increasing: 1 µs to 100 ms, ten per decade
/// (1, 1.25, 1.6, 2, 2.5, 3.2, 4, 5, 6.3, 8 times a power of ten), 51 bounds.
const std::vector<int64_t>& openMetricsBucketBoundsNs();

/// @brief The cumulative count of each bound of openMetricsBucketBoundsNs(), then the +Inf count (== count()).
///
/// The rule for bins that do not line up with a bound: the Histogram's bins are [low, high] nanosecond ranges
/// (histogram.h, at most 1/256 of their value wide), and a bin is counted under a bound only when all of it lies at
/// or below the bound (high <= bound). A bin that straddles a bound goes to the next bound up, whole: no count is
/// split or estimated, so every sample counted under `le` is truly <= le, and the bucket may miss samples at most
/// 0.4 % below its bound. Samples above kMaxTrackableNs (the histogram's overflow) are in no bin and only in +Inf.
std::vector<uint64_t> openMetricsCumulativeCounts(const Histogram& histogram);

/// @brief One measured CPU's figures for the exposition.
struct OpenMetricsCpu {
    int cpu = -1;
    const Histogram* histogram = nullptr; ///< the run's own histogram since start (not null)
    uint64_t samples = 0;
    uint64_t skipped = 0; ///< periods missed entirely (overruns)
    uint64_t drops = 0;   ///< samples the ring refused
    /// The largest latency since the monitor started; none (NaN in the text) before the first sample.
    std::optional<int64_t> maxNs;
    /// The largest latency of the last kRecentMaxSeconds; none (NaN) when no sample came in meanwhile.
    std::optional<int64_t> recentMaxNs;
};

struct OpenMetricsInput {
    /// The labels of the info metric (rtscope_monitor_info), in order; names must be valid label names.
    std::vector<std::pair<std::string, std::string>> info;
    std::vector<OpenMetricsCpu> cpus;
    /// The noise lab running beside the latency measurement (`monitor --noise-cpus`), null when it does not: its
    /// families (rtscope_noise_*) follow the latency ones, one series per noise CPU (and kind).
    const NoiseSnapshot* noise = nullptr;
};

/// @brief The whole exposition: every family with its HELP, TYPE and UNIT, one series per CPU, and "# EOF".
std::string openMetricsText(const OpenMetricsInput& input);

/// @brief A label value as the text format wants it: backslash, double quote and line feed escaped.
std::string openMetricsEscape(std::string_view value);

/// @brief A number as the exposition writes it, as Prometheus's Go clients do: the shortest text that reads back as
/// the same double, with an exponent below 1e-4 and from 1e6 on; "NaN", "+Inf", "-Inf" for the special values.
std::string openMetricsNumber(double value);

/// @brief The info metric's labels for a monitor run: rtscope version, kernel release, preempt model, host name,
/// and the config (label, policy, priority, period in seconds, hogs, waiter, CPUs).
std::vector<std::pair<std::string, std::string>>
monitorInfoLabels(const SystemProbe& probe, const LatencyConfig& config, const std::vector<int>& cpus);

/// @brief The window of the recent-max gauge: whole seconds of CLOCK_MONOTONIC, so it spans 59 to 60 s. A minute
/// covers Prometheus's usual scrape intervals (15 s to 1 min), so max_over_time() of it over any range misses nothing.
inline constexpr int kRecentMaxSeconds = 60;

/// @brief One CPU's maxima, as LatencyMaxima::read() gives them.
struct LatencyCpuMaxima {
    int64_t sinceStartNs = 0;        ///< the largest latency since the run started
    std::optional<int64_t> recentNs; ///< the largest of the last kRecentMaxSeconds, if any sample came in
};

/// @brief A run sink that keeps, per measured CPU, the largest latency since the start and the largest of each of
/// the last kRecentMaxSeconds seconds (by the samples' wake-up time): exact (every sample passes here), constant
/// memory, and read without changing anything, so any number of scrapers see the same figures. The collector thread
/// feeds it; read() may be called from any thread.
class LatencyMaxima : public LatencyRunSink {
public:
    /// @brief Every CPU that has had a sample, with its maxima as of @p atNs (CLOCK_MONOTONIC, nowNs()).
    std::map<int, LatencyCpuMaxima> read(int64_t atNs) const;

    void onRunStart(const LatencyRunInfo& info) override;
    void onSamples(size_t thread, std::span<const LatencySample> batch) override;
    void onMarker(const Marker&, const LatencyConfig&) override {}
    void onReset(int64_t) override {}
    void onDrops(size_t, uint64_t) override {}
    void onHogWork(int64_t, uint64_t, double) override {}
    void onRestart(int64_t tNs, const std::vector<int>& cpus) override;
    void onRunEnd(int64_t) override {}

private:
    struct Second {
        int64_t second = -1; ///< which second of CLOCK_MONOTONIC this slot holds; -1: none
        int64_t maxNs = 0;
    };
    struct Cpu {
        int64_t sinceStartNs = 0;
        std::array<Second, kRecentMaxSeconds> seconds{}; ///< slot s % kRecentMaxSeconds holds second s
    };
    mutable std::mutex m_mutex;
    std::vector<int> m_cpus; ///< measuring thread i runs on m_cpus[i]
    std::map<int, Cpu> m_max;
};

} // namespace rtscope
