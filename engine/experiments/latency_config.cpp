#include "engine/experiments/latency_config.h"

#include "engine/rt/cpu_topology.h"
#include "engine/util/units.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace rtscope {

namespace {

std::string range(int64_t lo, int64_t hi)
{
    return formatDuration(lo) + " and " + formatDuration(hi);
}

void checkPriority(std::vector<std::string>& out, const char* field, Policy p, int prio)
{
    if (isRealtime(p)) {
        if (prio < priorityMin(p) || prio > priorityMax(p))
            out.push_back(std::string(field) + " must be between " + std::to_string(priorityMin(p)) + " and " +
                          std::to_string(priorityMax(p)) + " for " + policyName(p) + " (got " + std::to_string(prio) +
                          ")");
    } else if (prio != 0) {
        out.push_back(std::string(field) + " must be 0 for " + policyName(p) + " (got " + std::to_string(prio) +
                      "); choose policy fifo or rr for a real-time priority");
    }
}

void checkNice(std::vector<std::string>& out, const char* field, int nice)
{
    if (nice < -20 || nice > 19)
        out.push_back(std::string(field) + " must be between -20 and 19 (got " + std::to_string(nice) + ")");
}

void checkCpu(std::vector<std::string>& out, const char* field, int cpu, const CpuTopology& cpus)
{
    if (cpu == -1)
        return;
    if (!cpus.usable(cpu))
        out.push_back(std::string(field) + " must be one of the online CPUs this process may use (" +
                      cpus.usableText() + "); got " + std::to_string(cpu));
}

} // namespace

std::vector<std::string> LatencyConfig::validate(const CpuTopology& cpus) const
{
    std::vector<std::string> out;
    checkPriority(out, "priority", policy, priority);
    checkNice(out, "nice", nice);
    if (periodNs < kMinPeriodNs || periodNs > kMaxPeriodNs)
        out.push_back("period must be between " + range(kMinPeriodNs, kMaxPeriodNs) + " (got " +
                      formatDuration(periodNs) + ")");
    checkCpu(out, "cpu", cpu, cpus);
    if (hogs < 0 || hogs > kMaxHogs)
        out.push_back("hogs must be between 0 and " + std::to_string(kMaxHogs) + " (got " + std::to_string(hogs) + ")");
    if (isRealtime(hogPolicy))
        out.push_back(std::string("hog-policy must be other, batch or idle (got ") + policyName(hogPolicy) +
                      "): real-time spinners can starve a CPU; the starvation lab runs them under a watchdog");
    checkNice(out, "hog-nice", hogNice);
    checkCpu(out, "hog-cpu", hogCpu, cpus);
    if (durationNs != 0 && (durationNs < kMinDurationNs || durationNs > kMaxDurationNs))
        out.push_back("duration must be between " + range(kMinDurationNs, kMaxDurationNs) + ", or 0 for no limit (got " +
                      formatDuration(durationNs) + ")");
    if (maxSamples > kMaxSamples)
        out.push_back("samples must be between 1 and " + std::to_string(kMaxSamples) + ", or 0 for no limit");
    if (durationNs != 0 && maxSamples != 0)
        out.push_back("duration and samples are exclusive: give one of them");
    if (histogramUs < 0 || histogramUs > kMaxHistogramUs)
        out.push_back("histogram must be between 0 and " + std::to_string(kMaxHistogramUs) + " us (got " +
                      std::to_string(histogramUs) + ")");
    if (cpus.lastUsable() < 0)
        out.push_back("cpu: this process may not run on any online CPU");
    return out;
}

int LatencyConfig::resolvedCpu(const CpuTopology& cpus) const { return cpu >= 0 ? cpu : cpus.lastUsable(); }

int LatencyConfig::resolvedHogCpu(const CpuTopology& cpus) const { return hogCpu >= 0 ? hogCpu : resolvedCpu(cpus); }

std::string LatencyConfig::label() const
{
    std::ostringstream s;
    s << policyLabel(policy, priority, nice) << " · " << formatDuration(periodNs) << " · " << hogs
      << (hogs == 1 ? " hog" : " hogs") << " · " << (cpu >= 0 ? "CPU " + std::to_string(cpu) : std::string("CPU auto"))
      << " · " << waiterName(waiter);
    return s.str();
}

nlohmann::json toJson(const LatencyConfig& c)
{
    return nlohmann::json{{"policy", policyName(c.policy)},
                          {"priority", c.priority},
                          {"nice", c.nice},
                          {"period_ns", c.periodNs},
                          {"cpu", c.cpu},
                          {"waiter", waiterName(c.waiter)},
                          {"hogs", c.hogs},
                          {"hog_policy", policyName(c.hogPolicy)},
                          {"hog_nice", c.hogNice},
                          {"hog_cpu", c.hogCpu},
                          {"duration_ns", c.durationNs},
                          {"samples", c.maxSamples},
                          {"histogram_us", c.histogramUs},
                          {"dma_latency", c.dmaLatency}};
}

LatencyConfig latencyConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    LatencyConfig c;
    if (!j.is_object()) {
        errors.push_back("latency config must be a JSON object");
        return c;
    }
    auto intField = [&](const char* key, auto& dst) {
        if (!j.contains(key))
            return;
        const auto& v = j.at(key);
        if (!v.is_number_integer()) {
            errors.push_back(std::string(key) + " must be an integer");
            return;
        }
        using T = std::remove_reference_t<decltype(dst)>;
        if constexpr (std::is_unsigned_v<T>) {
            if (v.is_number_unsigned() || v.get<int64_t>() >= 0)
                dst = v.get<T>();
            else
                errors.push_back(std::string(key) + " must not be negative");
        } else {
            const int64_t x = v.get<int64_t>();
            if (x < int64_t(std::numeric_limits<T>::min()) || x > int64_t(std::numeric_limits<T>::max()))
                errors.push_back(std::string(key) + " is out of range");
            else
                dst = T(x);
        }
    };
    auto policyField = [&](const char* key, Policy& dst) {
        if (!j.contains(key))
            return;
        const auto& v = j.at(key);
        auto p = v.is_string() ? parsePolicy(v.get<std::string>()) : std::nullopt;
        if (!p)
            errors.push_back(std::string(key) + " must be one of other, batch, idle, fifo, rr");
        else
            dst = *p;
    };
    static const char* known[] = {"policy",   "priority", "nice",     "period_ns", "cpu",     "waiter",       "hogs",
                                  "hog_policy", "hog_nice", "hog_cpu", "duration_ns", "samples", "histogram_us",
                                  "dma_latency"};
    for (const auto& [key, value] : j.items()) {
        bool ok = false;
        for (const char* k : known)
            ok = ok || key == k;
        if (!ok)
            errors.push_back("unknown field '" + key + "'");
    }
    policyField("policy", c.policy);
    intField("priority", c.priority);
    intField("nice", c.nice);
    intField("period_ns", c.periodNs);
    intField("cpu", c.cpu);
    if (j.contains("waiter")) {
        const auto& v = j.at("waiter");
        auto w = v.is_string() ? parseWaiter(v.get<std::string>()) : std::nullopt;
        if (!w)
            errors.push_back("waiter must be one of abs, rel, timerfd, itimer, posix, busy");
        else
            c.waiter = *w;
    }
    intField("hogs", c.hogs);
    policyField("hog_policy", c.hogPolicy);
    intField("hog_nice", c.hogNice);
    intField("hog_cpu", c.hogCpu);
    intField("duration_ns", c.durationNs);
    intField("samples", c.maxSamples);
    intField("histogram_us", c.histogramUs);
    if (j.contains("dma_latency")) {
        if (!j.at("dma_latency").is_boolean())
            errors.push_back("dma_latency must be true or false");
        else
            c.dmaLatency = j.at("dma_latency").get<bool>();
    }
    return c;
}

} // namespace rtscope
