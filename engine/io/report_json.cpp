#include "engine/io/report_json.h"

#include "engine/experiments/latency/latency_experiment.h"
#include "engine/io/cyclictest_format.h"
#include "engine/rt/system_probe.h"

#include <nlohmann/json.hpp>

namespace rtscope {

nlohmann::json toJson(const SystemProbe& p)
{
    return nlohmann::json{{"kernel_release", p.kernelRelease},
                          {"kernel_version", p.kernelVersion},
                          {"machine", p.machine},
                          {"preempt_model", p.preemptModel},
                          {"preempt_rt", p.preemptRt},
                          {"scheduler", p.scheduler},
                          {"fair_server", p.fairServer},
                          {"clocksource", p.clocksource},
                          {"clock_resolution_ns", p.clockResolutionNs},
                          {"timer_slack_ns", p.timerSlackNs},
                          {"sched_rt_runtime_us", p.rtRuntimeUs},
                          {"sched_rt_period_us", p.rtPeriodUs},
                          {"rlimit_rtprio", p.rlimitRtprioSoft},
                          {"cap_sys_nice", p.capSysNice},
                          {"root", p.isRoot},
                          {"rt_available", p.rtAvailable},
                          {"rt_unavailable_reason", p.rtUnavailableReason},
                          {"online_cpus", p.onlineCpus},
                          {"allowed_cpus", p.allowedCpus},
                          {"isolated_cpus", p.isolatedCpus},
                          {"nohz_full_cpus", p.nohzFullCpus},
                          {"virtual_machine", p.virtualMachine},
                          {"hypervisor", p.hypervisor},
                          {"cpu_dma_latency_available", p.dmaLatencyAvailable},
                          {"cpu_model", p.cpuModel}};
}

nlohmann::json histogramSummaryJson(const Histogram& h)
{
    return nlohmann::json{{"count", h.count()},
                          {"min_ns", h.min()},
                          {"avg_ns", h.mean()},
                          {"max_ns", h.max()},
                          {"p50_ns", h.percentile(50)},
                          {"p90_ns", h.percentile(90)},
                          {"p99_ns", h.percentile(99)},
                          {"p99_9_ns", h.percentile(99.9)},
                          {"p99_99_ns", h.percentile(99.99)}};
}

nlohmann::json latencyReportJson(const LatencySnapshot& snap)
{
    nlohmann::json threads = nlohmann::json::array();
    for (const auto& t : snap.threads) {
        nlohmann::json tj = histogramSummaryJson(t.histogram);
        tj["cpu"] = t.cpu;
        tj["tid"] = t.tid;
        tj["samples"] = t.samples;
        tj["skipped_periods"] = t.skipped;
        tj["dropped_samples"] = t.drops;
        tj["sequence_gaps"] = t.seqGaps;
        threads.push_back(std::move(tj));
    }
    nlohmann::json markers = nlohmann::json::array();
    for (const auto& m : snap.markers)
        markers.push_back({{"t_ns", m.tNs - snap.startNs}, {"seq", m.seq}, {"label", m.label}});
    return nlohmann::json{{"version", RTSCOPE_VERSION},
                          {"experiment", "latency"},
                          {"config", toJson(snap.config)},
                          {"duration_ns", snap.publishedNs - snap.startNs},
                          {"threads", threads},
                          {"markers", markers},
                          {"hog_iterations", snap.hogIterations},
                          {"memory_lock", snap.memoryLock},
                          {"cpu_dma_latency", snap.dmaLatencyNote},
                          {"error", snap.error}};
}

CyclictestData cyclictestDataFrom(const LatencySnapshot& snap)
{
    CyclictestData data;
    // cyclictest's line when it was held; when it was asked for and not held, a comment that says so, so that a
    // histogram taken with deep idle states allowed is not mistaken for one taken without.
    if (snap.dmaLatencyHeld)
        data.preamble.push_back("# /dev/cpu_dma_latency set to 0us");
    else if (snap.config.dmaLatency && snap.dmaLatencyNote.rfind("NOT held", 0) == 0)
        data.preamble.push_back("# /dev/cpu_dma_latency " + snap.dmaLatencyNote);
    for (const auto& t : snap.threads) {
        CyclictestThread ct = cyclictestThreadFrom(t.histogram, t.histogram.exactUsBinCount());
        ct.overflowCycles = t.overflowSeqs;
        ct.cpu = t.cpu;
        ct.tid = t.tid;
        ct.priority = snap.config.priority;
        ct.intervalUs = snap.config.periodNs / 1000;
        data.threads.push_back(std::move(ct));
    }
    return data;
}

} // namespace rtscope
