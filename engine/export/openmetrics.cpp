#include "engine/export/openmetrics.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/sched_policy.h"
#include "engine/rt/system_probe.h"
#include "engine/rt/waiter.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>

namespace rtscope {

namespace {

// Ten steps per decade, rounded to two digits (the E-series way): fine enough that histogram_quantile's linear
// interpolation inside a bucket stays within about a quarter of the value, coarse enough for 51 series per CPU.
constexpr int64_t kOpenMetricsSteps[] = {1000, 1250, 1600, 2000, 2500, 3200, 4000, 5000, 6300, 8000};

std::vector<int64_t> openMetricsMakeBounds()
{
    std::vector<int64_t> bounds;
    for (int64_t decade = 1; decade <= 10'000; decade *= 10)
        for (int64_t step : kOpenMetricsSteps)
            bounds.push_back(step * decade);
    bounds.push_back(100'000'000);
    return bounds;
}

std::string openMetricsSeconds(int64_t ns)
{
    return openMetricsNumber(double(ns) / 1e9);
}

std::string openMetricsCount(uint64_t n)
{
    return std::to_string(n);
}

/// Writes "# HELP", "# TYPE" and, for a family with a unit, "# UNIT".
void openMetricsHeader(std::string& out, const char* name, const char* type, const char* help, const char* unit)
{
    out += "# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
    if (unit) {
        out += "# UNIT ";
        out += name;
        out += ' ';
        out += unit;
        out += '\n';
    }
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help; // plain text of ours: no backslash or line feed to escape
    out += '\n';
}

void openMetricsSample(std::string& out, const std::string& name, const std::string& labels, const std::string& value)
{
    out += name;
    out += '{';
    out += labels;
    out += "} ";
    out += value;
    out += '\n';
}

std::string openMetricsCpuLabel(int cpu)
{
    return "cpu=\"" + std::to_string(cpu) + "\"";
}

void openMetricsCounter(std::string& out, const OpenMetricsInput& in, const char* family, const char* help,
                        const std::function<uint64_t(const OpenMetricsCpu&)>& value)
{
    openMetricsHeader(out, family, "counter", help, nullptr);
    for (const OpenMetricsCpu& c : in.cpus)
        openMetricsSample(out, std::string(family) + "_total", openMetricsCpuLabel(c.cpu), openMetricsCount(value(c)));
}

// The noise lab's families: per noise CPU its runtime and noise (counters, seconds), the noise per kind and the
// count of traced work per kind, its available share and its longest gap since the start (gauges).
void openMetricsNoise(std::string& out, const NoiseSnapshot& snap)
{
    const auto perCpu = [&](const char* family, const char* type, const char* help, const char* unit,
                            const std::function<std::string(const NoiseCpuStats&)>& value) {
        const bool counter = std::string_view(type) == "counter";
        openMetricsHeader(out, family, type, help, unit);
        for (const NoiseCpuStats& c : snap.cpus)
            openMetricsSample(out, std::string(family) + (counter ? "_total" : ""), openMetricsCpuLabel(c.cpu),
                              value(c));
    };
    const auto perKind = [&](const char* family, const char* help, const char* unit,
                             const std::function<std::string(const NoiseCpuStats&, size_t)>& value) {
        openMetricsHeader(out, family, "counter", help, unit);
        for (const NoiseCpuStats& c : snap.cpus)
            for (NoiseKind k : kNoiseKinds)
                openMetricsSample(out, std::string(family) + "_total",
                                  openMetricsCpuLabel(c.cpu) + ",kind=\"" + noiseKindName(k) + "\"",
                                  value(c, size_t(k)));
    };
    perCpu("rtscope_noise_runtime_seconds", "counter", "Time the noise lab's polling thread ran since the start",
           "seconds", [](const NoiseCpuStats& c) { return openMetricsSeconds(c.runtimeNs); });
    perCpu("rtscope_noise_seconds", "counter",
           "Time the polling thread lost to noise (gaps at or above the threshold) since the start", "seconds",
           [](const NoiseCpuStats& c) { return openMetricsSeconds(c.noiseNs); });
    perKind("rtscope_noise_kind_seconds",
            "Noise time charged to each kind (irq, softirq, nmi, thread; unexplained: no traced work; untraced: no "
            "trace) since the start",
            "seconds", [](const NoiseCpuStats& c, size_t k) { return openMetricsSeconds(c.kindNs[k]); });
    perKind("rtscope_noise_events",
            "Times traced work of each kind ran inside a gap (unexplained: gaps no traced "
            "work touched) since the start",
            nullptr, [](const NoiseCpuStats& c, size_t k) { return openMetricsCount(c.kindCount[k]); });
    perCpu("rtscope_noise_available_ratio", "gauge", "Share of the runtime the polling thread had, since the start",
           "ratio", [](const NoiseCpuStats& c) { return openMetricsNumber(c.availablePercent / 100.0); });
    perCpu("rtscope_noise_max_single_seconds", "gauge", "Longest single gap since the start", "seconds",
           [](const NoiseCpuStats& c) { return openMetricsSeconds(c.maxSingleNs); });
    perCpu("rtscope_noise_dropped_gaps", "counter",
           "Gaps lost because the ring to the collector was full (should stay 0)", nullptr,
           [](const NoiseCpuStats& c) { return openMetricsCount(c.drops); });
}

} // namespace

const std::vector<int64_t>& openMetricsBucketBoundsNs()
{
    static const std::vector<int64_t> bounds = openMetricsMakeBounds();
    return bounds;
}

std::vector<uint64_t> openMetricsCumulativeCounts(const Histogram& histogram)
{
    const std::vector<int64_t>& bounds = openMetricsBucketBoundsNs();
    std::vector<uint64_t> counts(bounds.size() + 1, 0);
    histogram.forEachBucket([&](int64_t, int64_t high, uint64_t n) {
        // The first bound the whole bin lies at or below; past the last bound, +Inf.
        const auto it = std::lower_bound(bounds.begin(), bounds.end(), high);
        counts[size_t(it - bounds.begin())] += n;
    });
    for (size_t i = 1; i < bounds.size(); ++i)
        counts[i] += counts[i - 1];
    // +Inf: every sample, the histogram's overflow (in no bin) included.
    counts.back() = histogram.count();
    return counts;
}

std::string openMetricsEscape(std::string_view value)
{
    std::string out;
    out.reserve(value.size());
    for (char ch : value) {
        if (ch == '\\')
            out += "\\\\";
        else if (ch == '"')
            out += "\\\"";
        else if (ch == '\n')
            out += "\\n";
        else
            out += ch;
    }
    return out;
}

std::string openMetricsNumber(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    // As Prometheus's own Go clients write numbers (strconv 'g' with the shortest precision), so that the `le` labels
    // read the same as other exporters': the shortest digits that read back exactly, in exponent form when the
    // exponent is below -4 or at least 6 ("1e-06", "0.0001", "2.5e-05", "1.234567e+06").
    char buf[64];
    const auto sci = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    const std::string scientific(buf, sci.ptr);
    const int exponent = std::stoi(scientific.substr(scientific.find('e') + 1));
    if (exponent < -4 || exponent >= 6)
        return scientific;
    const auto fixed = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
    return std::string(buf, fixed.ptr);
}

std::string openMetricsText(const OpenMetricsInput& in)
{
    std::string out;
    const std::vector<int64_t>& bounds = openMetricsBucketBoundsNs();

    openMetricsHeader(out, "rtscope_monitor", "info",
                      "The rtscope version, kernel, preempt model and measurement config of this monitor", nullptr);
    std::string info;
    for (const auto& [name, value] : in.info) {
        if (!info.empty())
            info += ',';
        info += name + "=\"" + openMetricsEscape(value) + "\"";
    }
    openMetricsSample(out, "rtscope_monitor_info", info, "1");

    openMetricsHeader(out, "rtscope_wakeup_latency_seconds", "histogram",
                      "Wake-up latency of the periodic measuring thread since the monitor started (a bin straddling "
                      "a bucket bound counts in the next bucket up, docs/monitor.md)",
                      "seconds");
    for (const OpenMetricsCpu& c : in.cpus) {
        const std::string cpu = openMetricsCpuLabel(c.cpu);
        const std::vector<uint64_t> counts = openMetricsCumulativeCounts(*c.histogram);
        for (size_t i = 0; i < bounds.size(); ++i)
            openMetricsSample(out, "rtscope_wakeup_latency_seconds_bucket",
                              cpu + ",le=\"" + openMetricsSeconds(bounds[i]) + "\"", openMetricsCount(counts[i]));
        openMetricsSample(out, "rtscope_wakeup_latency_seconds_bucket", cpu + ",le=\"+Inf\"",
                          openMetricsCount(counts.back()));
        openMetricsSample(out, "rtscope_wakeup_latency_seconds_count", cpu, openMetricsCount(c.histogram->count()));
        openMetricsSample(out, "rtscope_wakeup_latency_seconds_sum", cpu,
                          openMetricsNumber(double(c.histogram->sum() / 1e9L)));
    }

    openMetricsHeader(out, "rtscope_wakeup_latency_max_seconds", "gauge",
                      "Largest wake-up latency since the monitor started (no scrape resets it); NaN before the first "
                      "sample",
                      "seconds");
    for (const OpenMetricsCpu& c : in.cpus)
        openMetricsSample(out, "rtscope_wakeup_latency_max_seconds", openMetricsCpuLabel(c.cpu),
                          c.maxNs ? openMetricsSeconds(*c.maxNs) : "NaN");
    const std::string recentHelp = "Largest wake-up latency of the last " + std::to_string(kRecentMaxSeconds) +
                                   " s (whole seconds of the monotonic clock; no scrape resets it); NaN when no "
                                   "sample came in";
    openMetricsHeader(out, "rtscope_wakeup_latency_recent_max_seconds", "gauge", recentHelp.c_str(), "seconds");
    for (const OpenMetricsCpu& c : in.cpus)
        openMetricsSample(out, "rtscope_wakeup_latency_recent_max_seconds", openMetricsCpuLabel(c.cpu),
                          c.recentMaxNs ? openMetricsSeconds(*c.recentMaxNs) : "NaN");

    openMetricsCounter(out, in, "rtscope_samples", "Wake-ups measured since the monitor started",
                       [](const OpenMetricsCpu& c) { return c.samples; });
    openMetricsCounter(out, in, "rtscope_skipped_periods",
                       "Periods the measuring thread missed entirely (overruns) since the monitor started",
                       [](const OpenMetricsCpu& c) { return c.skipped; });
    openMetricsCounter(out, in, "rtscope_dropped_samples",
                       "Samples lost because the ring to the collector was full since the monitor started (should "
                       "stay 0)",
                       [](const OpenMetricsCpu& c) { return c.drops; });
    if (in.noise)
        openMetricsNoise(out, *in.noise);
    out += "# EOF\n";
    return out;
}

std::vector<std::pair<std::string, std::string>>
monitorInfoLabels(const SystemProbe& probe, const LatencyConfig& config, const std::vector<int>& cpus)
{
    return {{"version", RTSCOPE_VERSION},
            {"kernel", probe.kernelRelease},
            {"preempt", probe.preemptModel},
            {"hostname", probe.hostname},
            {"config", config.label()},
            {"policy", policyName(config.policy)},
            {"priority", std::to_string(config.priority)},
            {"period_seconds", openMetricsSeconds(config.periodNs)},
            {"hogs", std::to_string(config.hogs)},
            {"waiter", waiterName(config.waiter)},
            {"cpus", formatCpuList(cpus)}};
}

std::map<int, LatencyCpuMaxima> LatencyMaxima::read(int64_t atNs) const
{
    const int64_t now = atNs / kNsPerSec;
    std::map<int, LatencyCpuMaxima> out;
    std::lock_guard lock(m_mutex);
    for (const auto& [cpu, c] : m_max) {
        LatencyCpuMaxima& m = out[cpu];
        m.sinceStartNs = c.sinceStartNs;
        for (const Second& s : c.seconds)
            if (s.second >= 0 && s.second > now - kRecentMaxSeconds && s.second <= now)
                m.recentNs = std::max(m.recentNs.value_or(s.maxNs), s.maxNs);
    }
    return out;
}

void LatencyMaxima::onRunStart(const LatencyRunInfo& info)
{
    std::lock_guard lock(m_mutex);
    m_cpus = info.cpus;
}

void LatencyMaxima::onRestart(int64_t, const std::vector<int>& cpus)
{
    std::lock_guard lock(m_mutex);
    m_cpus = cpus;
}

void LatencyMaxima::onSamples(size_t thread, std::span<const LatencySample> batch)
{
    if (batch.empty())
        return;
    std::lock_guard lock(m_mutex);
    if (thread >= m_cpus.size())
        return; // cannot happen: every thread was announced by onRunStart/onRestart
    const auto [it, inserted] = m_max.try_emplace(m_cpus[thread]);
    Cpu& c = it->second;
    if (inserted)
        c.sinceStartNs = batch.front().latencyNs;
    for (const LatencySample& sample : batch) {
        c.sinceStartNs = std::max(c.sinceStartNs, sample.latencyNs);
        const int64_t second = std::max<int64_t>(0, sample.wakeNs) / kNsPerSec;
        Second& slot = c.seconds[size_t(second % kRecentMaxSeconds)];
        if (slot.second != second)
            slot = {second, sample.latencyNs};
        else
            slot.maxNs = std::max(slot.maxNs, sample.latencyNs);
    }
}

} // namespace rtscope
