#include "engine/export/latency_limit.h"

#include "engine/experiments/latency/latency_run.h"
#include "engine/pipeline/histogram.h"
#include "engine/util/units.h"
#include "engine/util/whole_number.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace rtscope {

std::vector<std::string> LatencyLimit::validate() const
{
    std::vector<std::string> out;
    if (limitNs <= 0 || limitNs > kMaxLimitNs)
        out.push_back("fail-above must be more than 0 and at most " + formatDuration(kMaxLimitNs) + " (got " +
                      formatDurationExact(limitNs) + ")");
    if (!(percentile > 0 && percentile <= 100))
        out.push_back("fail-percentile must be more than 0 and at most 100, or max (got " +
                      limitPercentileName(percentile) + ")");
    return out;
}

std::optional<double> parseLimitPercentile(std::string_view text)
{
    if (text == "max")
        return 100.0;
    if (text.starts_with('p'))
        text.remove_prefix(1);
    // Digits and one point only: from_chars would also take "inf", "nan" and exponents, none of which is a percentile
    // anyone writes.
    if (text.empty() || text.find_first_not_of("0123456789.") != std::string_view::npos)
        return std::nullopt;
    return wholeNumber<double>(text);
}

std::string limitPercentileName(double percentile)
{
    if (percentile == 100)
        return "max";
    char buf[48];
    std::snprintf(buf, sizeof buf, "p%.10g", percentile);
    return buf;
}

std::string limitMicroseconds(int64_t ns)
{
    // Whole nanoseconds, so a value just over the limit never prints as the limit itself ("100.001 us > 100 us").
    const char* sign = ns < 0 ? "-" : "";
    const uint64_t a = ns < 0 ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu", sign, (unsigned long long)(a / 1000),
                  (unsigned long long)(a % 1000));
    std::string s = buf;
    while (s.back() == '0')
        s.pop_back();
    if (s.back() == '.')
        s.pop_back();
    return s;
}

namespace {

LatencyLimitCpu latencyLimitCpu(const LatencyThreadStats& t, const LatencyLimit& limit, const std::string& name)
{
    LatencyLimitCpu c;
    c.cpu = t.cpu;
    const Histogram& h = t.histogram;
    c.samples = h.count();
    if (h.count() == 0) {
        c.unknownReason = "cpu " + std::to_string(t.cpu) + " has no samples";
        return c;
    }
    if (t.drops > 0 || t.seqGaps > 0) {
        c.unknownReason = "cpu " + std::to_string(t.cpu) + " lost " + std::to_string(t.drops) +
                          " samples in its ring and " + std::to_string(t.seqGaps) +
                          " in sequence gaps before the histogram, and their latencies are not known";
        return c;
    }
    const int64_t v = h.percentile(limit.percentile);
    // Values above the histogram's range enter only its count and maximum (which stays exact): a percentile whose
    // rank falls among them comes back as the maximum, which is not the percentile.
    if (limit.percentile < 100 && h.overflowCount() > 0 && v > Histogram::kMaxTrackableNs) {
        c.unknownReason = "cpu " + std::to_string(t.cpu) + " has " + std::to_string(h.overflowCount()) +
                          " samples above the histogram's range of " + formatDuration(Histogram::kMaxTrackableNs) +
                          " and its " + name + " falls among them";
        return c;
    }
    c.valueNs = v;
    c.broken = v > limit.limitNs;
    return c;
}

} // namespace

LatencyLimitVerdict evaluateLatencyLimit(const LatencySnapshot& snap, const LatencyLimit& limit)
{
    LatencyLimitVerdict out;
    out.limit = limit;
    const std::string name = limitPercentileName(limit.percentile);
    const std::string limitText = limitMicroseconds(limit.limitNs) + " us";
    for (const auto& t : snap.threads)
        out.cpus.push_back(latencyLimitCpu(t, limit, name));

    const LatencyLimitCpu* worstKnown = nullptr;
    const LatencyLimitCpu* firstUnknown = nullptr;
    for (const auto& c : out.cpus) {
        if (!c.valueNs) {
            if (!firstUnknown)
                firstUnknown = &c;
        } else if (!worstKnown || *c.valueNs > *worstKnown->valueNs) {
            worstKnown = &c;
        }
    }
    if (out.cpus.empty()) {
        out.line = "rtscope: FAIL: no CPU was measured, so " + name + " is unknown; limit " + limitText;
    } else if (worstKnown && worstKnown->broken) {
        out.line = "rtscope: FAIL: cpu " + std::to_string(worstKnown->cpu) + " " + name + " " +
                   limitMicroseconds(*worstKnown->valueNs) + " us > " + limitText;
    } else if (firstUnknown) {
        out.line = "rtscope: FAIL: cpu " + std::to_string(firstUnknown->cpu) + " " + name + " unknown (" +
                   firstUnknown->unknownReason + "); limit " + limitText;
    } else {
        out.pass = true;
        out.line = "rtscope: PASS: max over cpus " + name + " " + limitMicroseconds(*worstKnown->valueNs) +
                   " us <= " + limitText;
    }
    return out;
}

nlohmann::json latencyLimitJson(const LatencyLimitVerdict& v)
{
    nlohmann::json cpus = nlohmann::json::array();
    for (const auto& c : v.cpus)
        cpus.push_back({{"cpu", c.cpu},
                        {"samples", c.samples},
                        {"value_ns", c.valueNs ? nlohmann::json(*c.valueNs) : nlohmann::json(nullptr)},
                        {"unknown_reason", c.unknownReason},
                        {"over_limit", c.broken}});
    return nlohmann::json{{"limit_ns", v.limit.limitNs},
                          {"percentile", v.limit.percentile},
                          {"percentile_name", limitPercentileName(v.limit.percentile)},
                          {"verdict", v.pass ? "pass" : "fail"},
                          {"line", v.line},
                          {"cpus", cpus}};
}

} // namespace rtscope
