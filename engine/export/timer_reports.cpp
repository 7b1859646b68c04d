#include "engine/export/timer_reports.h"

#include "engine/experiments/timers/drift_experiment.h"
#include "engine/experiments/timers/sleep_floor_experiment.h"
#include "engine/formats/csv_writer.h"

#include <nlohmann/json.hpp>

namespace rtscope {

nlohmann::json driftReportJson(const DriftSnapshot& snap)
{
    nlohmann::json methods = nlohmann::json::array();
    for (const DriftMethodStats& m : snap.methods)
        methods.push_back({{"method", driftMethodName(m.method)},
                           {"label", driftMethodLabel(m.method)},
                           {"tid", m.tid},
                           {"ticks", m.lastTick},
                           {"wakes", m.wakes},
                           {"missed_ticks", m.missedTicks},
                           {"drift_ns", m.driftNs},
                           {"min_drift_ns", m.minDriftNs},
                           {"max_drift_ns", m.maxDriftNs},
                           {"slope_ns_per_tick", m.slopeNsPerTick},
                           {"rate_hz", m.rateHz},
                           {"rate_percent", m.ratePercent},
                           {"lateness_p50_ns", m.latenessP50Ns},
                           {"lateness_p99_ns", m.latenessP99Ns},
                           {"lateness_max_ns", m.latenessMaxNs},
                           {"timer_slack_ns", m.timerSlackNs},
                           {"dropped_samples", m.drops},
                           {"done", m.done},
                           {"error", m.error}});
    return nlohmann::json{{"version", RTSCOPE_VERSION},
                          {"experiment", "drift"},
                          {"config", toJson(snap.config)},
                          {"nominal_hz", snap.nominalHz},
                          {"duration_ns", snap.publishedNs - snap.t0Ns},
                          {"finished", snap.finished},
                          {"effective_timer_slack_ns", snap.effectiveSlackNs},
                          {"timer_slack", snap.slackNote},
                          {"methods", methods},
                          {"memory_lock", snap.memoryLock},
                          {"error", snap.error}};
}

std::string driftCsv(const DriftSnapshot& snap)
{
    CsvWriter csv({"method", "tick", "wake_ns", "drift_ns", "lateness_ns", "missed_before"});
    const int64_t period = snap.config.periodNs;
    for (const DriftMethodStats& m : snap.methods)
        for (const DriftTick& t : m.ticks())
            csv.add(driftMethodName(m.method), t.tick, t.tick * period + t.driftNs, t.driftNs, t.latenessNs, t.missed);
    return csv.str();
}

nlohmann::json sleepFloorReportJson(const SleepFloorSnapshot& snap)
{
    nlohmann::json cells = nlohmann::json::array();
    for (const SleepFloorCell& c : snap.cells) {
        nlohmann::json j{{"request_ns", c.requestNs},
                         {"method", sleepMethodName(c.method)},
                         {"samples", c.samples},
                         {"min_ns", c.minNs},
                         {"p50_ns", c.p50Ns},
                         {"p99_ns", c.p99Ns},
                         {"max_ns", c.maxNs},
                         {"mean_ns", c.meanNs},
                         {"overshoot_ns", c.overshootNs},
                         {"cpu_per_wait_ns", c.cpuPerWaitNs},
                         {"cpu_share", c.cpuShare}};
        // A 0 ns request has no ratio; null says so instead of a misleading 0 or infinity.
        j["overshoot_ratio"] = c.requestNs > 0 ? nlohmann::json(c.overshootRatio) : nlohmann::json(nullptr);
        cells.push_back(std::move(j));
    }
    nlohmann::json floors = nlohmann::json::object();
    for (size_t m = 0; m < snap.floorNs.size() && m < snap.config.methods.size(); ++m)
        floors[sleepMethodName(snap.config.methods[m])] = snap.floorNs[m];
    return nlohmann::json{{"version", RTSCOPE_VERSION},
                          {"experiment", "sleep-floor"},
                          {"config", toJson(snap.config)},
                          {"duration_ns", snap.publishedNs - snap.startNs},
                          {"finished", snap.finished},
                          {"clock_resolution_ns", snap.clockResolutionNs},
                          {"timer_slack_ns", snap.timerSlackNs},
                          {"effective_timer_slack_ns", snap.effectiveSlackNs},
                          {"timer_slack", snap.slackNote},
                          {"floor_ns", floors},
                          {"cpu_clock_overhead_ns", snap.cpuClockOverheadNs},
                          {"samples_done", snap.samplesDone},
                          {"samples_total", snap.samplesTotal},
                          {"cells", cells},
                          {"load_threads", snap.loadThreads},
                          {"load_iterations", snap.loadIterations},
                          {"dropped_samples", snap.drops},
                          {"memory_lock", snap.memoryLock},
                          {"error", snap.error}};
}

std::string sleepFloorCsv(const SleepFloorSnapshot& snap)
{
    CsvWriter csv({"request_ns", "method", "sample", "actual_ns", "overshoot_ns", "cpu_ns"});
    for (const SleepSample& s : snap.rawSamples()) {
        if (s.request >= snap.config.requestsNs.size() || s.method >= snap.config.methods.size())
            continue;
        const int64_t request = snap.config.requestsNs[s.request];
        csv.add(request, sleepMethodName(snap.config.methods[s.method]), s.sample, s.actualNs, s.actualNs - request,
                s.cpuNs);
    }
    return csv.str();
}

} // namespace rtscope
