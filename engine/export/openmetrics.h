#pragma once
/// @file The OpenMetrics text exposition of a latency run, as `rtscope monitor` serves it on /metrics
/// (docs/monitor.md): a pure function from a run's figures to the text, and the run sink that keeps the maximum of
/// each scrape interval.
#include "engine/experiments/latency/latency_run.h"
#include "engine/pipeline/histogram.h"

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
    /// The largest latency collected since the previous scrape; none (NaN in the text) when no sample came in.
    std::optional<int64_t> intervalMaxNs;
};

struct OpenMetricsInput {
    /// The labels of the info metric (rtscope_monitor_info), in order; names must be valid label names.
    std::vector<std::pair<std::string, std::string>> info;
    std::vector<OpenMetricsCpu> cpus;
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

/// @brief A run sink that keeps, per measured CPU, the largest latency collected since the last take(): the
/// "max over the last scrape interval" gauge, exact (every sample passes here), with no per-sample memory. The
/// collector thread feeds it; take() may be called from any thread.
class ScrapeIntervalMax : public LatencyRunSink {
public:
    /// The maximum per CPU since the previous call, and starts the next interval. A CPU without a sample since is
    /// absent.
    std::map<int, int64_t> take();

    void onRunStart(const LatencyRunInfo& info) override;
    void onSamples(size_t thread, std::span<const LatencySample> batch) override;
    void onMarker(const Marker&, const LatencyConfig&) override {}
    void onReset(int64_t) override {}
    void onDrops(size_t, uint64_t) override {}
    void onHogWork(int64_t, uint64_t, double) override {}
    void onRestart(int64_t tNs, const std::vector<int>& cpus) override;
    void onRunEnd(int64_t) override {}

private:
    std::mutex m_mutex;
    std::vector<int> m_cpus; ///< measuring thread i runs on m_cpus[i]
    std::map<int, int64_t> m_max;
};

} // namespace rtscope
