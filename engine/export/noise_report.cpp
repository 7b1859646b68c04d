#include "engine/export/noise_report.h"

#include "engine/formats/csv_writer.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace rtscope {

namespace {

double microseconds(int64_t ns)
{
    return double(ns) / 1000.0;
}

// The lower edge (µs) of the bucket that holds the value at @p fraction of all loops.
int64_t bucketAt(std::span<const uint64_t> histogram, uint64_t total, double fraction)
{
    const auto rank = uint64_t(double(total) * fraction);
    uint64_t seen = 0;
    for (size_t i = 0; i < histogram.size(); ++i) {
        seen += histogram[i];
        if (seen > rank)
            return int64_t(i);
    }
    return int64_t(histogram.size()) - 1;
}

nlohmann::json kindObject(const NoiseCpuStats& c, bool times)
{
    nlohmann::json o = nlohmann::json::object();
    for (NoiseKind k : kNoiseKinds) {
        const auto i = size_t(k);
        if (times)
            o[noiseKindName(k)] = c.kindNs[i];
        else
            o[noiseKindName(k)] = c.kindCount[i];
    }
    return o;
}

nlohmann::json loopJson(const NoiseCpuStats& c)
{
    const LoopFigures f = loopFigures(c.histogram);
    return {{"loops", c.loops},        {"min_ns", c.minLoopNs},
            {"mean_ns", c.meanLoopNs}, {"max_ns", c.maxLoopNs},
            {"p50_us", f.p50Us},       {"p99_us", f.p99Us},
            {"p999_us", f.p999Us},     {"share_10us_or_more", f.shareAtLeast10Us}};
}

} // namespace

LoopFigures loopFigures(std::span<const uint64_t> histogram)
{
    LoopFigures f;
    for (uint64_t n : histogram)
        f.loops += n;
    if (f.loops == 0)
        return f;
    f.p50Us = bucketAt(histogram, f.loops, 0.50);
    f.p99Us = bucketAt(histogram, f.loops, 0.99);
    f.p999Us = bucketAt(histogram, f.loops, 0.999);
    for (size_t i = histogram.size(); i-- > 0;)
        if (histogram[i]) {
            f.maxUs = int64_t(i);
            break;
        }
    uint64_t long10 = 0;
    for (size_t i = 10; i < histogram.size(); ++i)
        long10 += histogram[i];
    f.shareAtLeast10Us = double(long10) / double(f.loops);
    return f;
}

nlohmann::json noiseReportJson(const NoiseSnapshot& snap)
{
    nlohmann::json cpus = nlohmann::json::array();
    for (const NoiseCpuStats& c : snap.cpus)
        cpus.push_back({{"cpu", c.cpu},
                        {"tid", c.tid},
                        {"runtime_us", microseconds(c.runtimeNs)},
                        {"noise_us", microseconds(c.noiseNs)},
                        {"available_percent", c.availablePercent},
                        {"max_single_us", microseconds(c.maxSingleNs)},
                        {"gaps", c.gaps},
                        {"dropped_gaps", c.drops},
                        {"hw", c.kindCount[size_t(NoiseKind::Unexplained)]},
                        {"nmi", c.kindCount[size_t(NoiseKind::Nmi)]},
                        {"irq", c.kindCount[size_t(NoiseKind::Irq)]},
                        {"softirq", c.kindCount[size_t(NoiseKind::Softirq)]},
                        {"thread", c.kindCount[size_t(NoiseKind::Thread)]},
                        {"counts", kindObject(c, false)},
                        {"noise_ns_by_kind", kindObject(c, true)},
                        {"loop", loopJson(c)},
                        {"steal_ns", c.stealNs},
                        {"smi_count", c.smiCount},
                        {"error", c.error}});
    nlohmann::json culprits = nlohmann::json::array();
    for (const NoiseCulprit& k : snap.culprits)
        culprits.push_back({{"name", k.name},
                            {"kind", noiseKindName(k.kind)},
                            {"cpu", k.cpu},
                            {"pid", k.pid},
                            {"sched", k.sched},
                            {"percent", k.percent},
                            {"count", k.count},
                            {"total_us", microseconds(k.totalNs)},
                            {"max_us", microseconds(k.maxNs)}});
    return nlohmann::json{{"version", RTSCOPE_VERSION},
                          {"experiment", "noise"},
                          {"config", toJson(snap.config)},
                          {"duration_ns", snap.elapsedNs},
                          {"finished", snap.finished},
                          {"memory_lock", snap.memoryLock},
                          {"error", snap.error},
                          {"traced", snap.traced},
                          {"trace_note", snap.traceNote},
                          {"trace_lost_events", snap.traceLostEvents},
                          {"steal_tick_ns", snap.stealTickNs},
                          {"steal_note", snap.stealNote},
                          {"smi_note", snap.smiNote},
                          {"osnoise_tracer", snap.osnoiseTracer},
                          {"osnoise_note", snap.osnoiseNote},
                          {"loop_clock", snap.loopClock},
                          {"cpus", std::move(cpus)},
                          {"culprits", std::move(culprits)}};
}

nlohmann::json osnoiseTraceJson(const OsnoiseTrace& trace)
{
    nlohmann::json cpus = nlohmann::json::array();
    for (const OsnoiseCpuSummary& c : trace.cpus)
        cpus.push_back({{"cpu", c.cpu},
                        {"periods", c.periods},
                        {"runtime_us", c.runtimeUs},
                        {"noise_us", c.noiseUs},
                        {"available_percent", c.availablePercent()},
                        {"max_single_us", c.maxSingleUs},
                        {"hw", c.hw},
                        {"nmi", c.nmi},
                        {"irq", c.irq},
                        {"softirq", c.softirq},
                        {"thread", c.thread}});
    return nlohmann::json{{"method", "osnoise tracer"},   {"source", trace.source},
                          {"periods", trace.periodLines}, {"cpus", std::move(cpus)},
                          {"problems", trace.problems},   {"problem_count", trace.problemCount}};
}

std::string noiseCsv(const NoiseSnapshot& snap)
{
    CsvWriter csv({"cpu", "kind", "name", "pid", "sched", "count", "total_ns", "max_ns", "percent"});
    for (const NoiseCulprit& k : snap.culprits)
        csv.add(k.cpu, noiseKindName(k.kind), k.name, k.pid, k.sched, k.count, k.totalNs, k.maxNs, k.percent);
    return csv.str();
}

CyclictestData noiseHistogramData(const NoiseSnapshot& snap)
{
    CyclictestData data;
    data.preamble.push_back("# rtscope noise: loop lengths of the polling thread, 1 us bins (oslat's histogram); "
                            "threshold " +
                            std::to_string(snap.config.thresholdNs) + " ns");
    for (const NoiseCpuStats& c : snap.cpus) {
        CyclictestThread t;
        if (!c.histogram.empty()) {
            t.bins.assign(c.histogram.begin(), c.histogram.end() - 1);
            t.overflows = c.histogram.back();
        }
        t.cycles = c.loops;
        t.minUs = c.minLoopNs / 1000;
        t.avgUs = c.meanLoopNs / 1000.0;
        t.maxUs = c.maxLoopNs / 1000;
        t.cpu = c.cpu;
        t.tid = c.tid;
        t.priority = snap.config.priority;
        data.threads.push_back(std::move(t));
    }
    return data;
}

} // namespace rtscope
