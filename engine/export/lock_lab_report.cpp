#include "engine/export/lock_lab_report.h"

#include "engine/experiments/locks/contention_experiment.h"
#include "engine/experiments/locks/inversion_experiment.h"
#include "engine/export/report_json.h"
#include "engine/formats/csv_writer.h"
#include "engine/util/units.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace rtscope {

namespace {

nlohmann::json countsJson(const AcquisitionCounts& c)
{
    return nlohmann::json{{"acquisitions", c.acquisitions},
                          {"uncontended", c.uncontended},
                          {"spun", c.spun},
                          {"slept", c.slept},
                          {"slept_owner_not_running", c.sleptOwnerNotRunning},
                          {"slept_owner_on_this_cpu", c.sleptOwnerOnThisCpu},
                          {"slept_spin_limit", c.sleptSpinLimit},
                          {"spin_iterations", c.spinIterations},
                          {"futex_sleeps", c.futexSleeps}};
}

nlohmann::json bucketsJson(const Histogram& h)
{
    nlohmann::json out = nlohmann::json::array();
    h.forEachBucket([&](int64_t low, int64_t high, uint64_t count) { out.push_back({low, high, count}); });
    return out;
}

double perThousand(uint64_t events, uint64_t acquisitions)
{
    return acquisitions ? double(events) * 1000.0 / double(acquisitions) : 0.0;
}

} // namespace

double throughputVsMutex(const ContentionSnapshot& s, const ContentionKindResult& r)
{
    const ContentionKindResult* mutex = s.result(LockKind::Mutex);
    if (!mutex || mutex->acquisitionsPerSec <= 0)
        return 0;
    return r.acquisitionsPerSec / mutex->acquisitionsPerSec;
}

nlohmann::json contentionReportJson(const ContentionSnapshot& s)
{
    nlohmann::json kinds = nlohmann::json::array();
    for (const auto& rp : s.kinds) {
        if (!rp)
            continue;
        const ContentionKindResult& r = *rp;
        nlohmann::json threads = nlohmann::json::array();
        for (const auto& t : r.threads)
            threads.push_back({{"index", t.index},
                               {"cpu", t.cpu},
                               {"tid", t.tid},
                               {"paths", countsJson(t.counts)},
                               {"voluntary_switches", t.voluntarySwitches},
                               {"involuntary_switches", t.involuntarySwitches},
                               {"cpu_ns", t.cpuNs},
                               {"samples_dropped", t.samplesDropped}});
        kinds.push_back({{"kind", lockKindName(r.kind)},
                         {"label", lockKindLabel(r.kind)},
                         {"state", kindRunStateName(r.state)},
                         {"elapsed_ns", r.elapsedNs},
                         {"acquisitions", r.counts.acquisitions},
                         {"acquisitions_per_s", r.acquisitionsPerSec},
                         {"ratio_vs_mutex", throughputVsMutex(s, r)},
                         {"wait", histogramSummaryJson(r.wait)},
                         {"wait_buckets", bucketsJson(r.wait)},
                         {"samples_dropped", r.samplesDropped},
                         {"voluntary_switches", r.voluntarySwitches},
                         {"involuntary_switches", r.involuntarySwitches},
                         {"switches_per_1k_acquisitions",
                          perThousand(r.voluntarySwitches + r.involuntarySwitches, r.counts.acquisitions)},
                         {"cpu_ns_per_acquisition", r.cpuNsPerAcquisition},
                         {"fairness", {{"jain", r.fairness}, {"min_share", r.minShare}, {"max_share", r.maxShare}}},
                         {"paths", countsJson(r.counts)},
                         {"threads", threads},
                         {"error", r.error}});
    }
    return nlohmann::json{{"version", RTSCOPE_VERSION},
                          {"experiment", "locks"},
                          {"config", toJson(s.config)},
                          {"worker_cpus", s.workerCpus},
                          {"finished", s.finished},
                          {"duration_ns", s.publishedNs - s.startNs},
                          {"kinds", kinds},
                          {"memory_lock", s.memoryLock},
                          {"error", s.error}};
}

std::string contentionCsv(const ContentionSnapshot& s)
{
    CsvWriter csv({"kind",
                   "state",
                   "threads",
                   "hold_ns",
                   "work_ns",
                   "elapsed_s",
                   "acquisitions",
                   "acquisitions_per_s",
                   "ratio_vs_mutex",
                   "wait_p50_ns",
                   "wait_p99_ns",
                   "wait_max_ns",
                   "voluntary_switches",
                   "involuntary_switches",
                   "switches_per_1k_acquisitions",
                   "cpu_ns_per_acquisition",
                   "fairness_jain",
                   "min_share",
                   "max_share",
                   "uncontended",
                   "spun",
                   "slept",
                   "slept_owner_not_running",
                   "slept_owner_on_this_cpu",
                   "slept_spin_limit",
                   "samples_dropped"});
    for (const auto& rp : s.kinds) {
        if (!rp)
            continue;
        const ContentionKindResult& r = *rp;
        csv.add(lockKindName(r.kind), kindRunStateName(r.state), s.config.threads, s.config.holdNs, s.config.workNs,
                formatFixed(toSeconds(r.elapsedNs), 3), r.counts.acquisitions, formatFixed(r.acquisitionsPerSec, 0),
                formatFixed(throughputVsMutex(s, r), 3), r.wait.percentile(50), r.wait.percentile(99), r.wait.max(),
                r.voluntarySwitches, r.involuntarySwitches,
                perThousand(r.voluntarySwitches + r.involuntarySwitches, r.counts.acquisitions), r.cpuNsPerAcquisition,
                r.fairness, r.minShare, r.maxShare, r.counts.uncontended, r.counts.spun, r.counts.slept,
                r.counts.sleptOwnerNotRunning, r.counts.sleptOwnerOnThisCpu, r.counts.sleptSpinLimit, r.samplesDropped);
    }
    return csv.str();
}

nlohmann::json inversionReportJson(const InversionSnapshot& s)
{
    nlohmann::json periods = nlohmann::json::array();
    for (const InversionPeriod& p : s.periods)
        periods.push_back({{"release_s", toSeconds(p.releaseNs - s.t0Ns)},
                           {"wake_delay_ns", p.wakeNs - p.releaseNs},
                           {"wait_ns", p.waitNs()},
                           {"held_ns", p.doneNs - p.acquiredNs},
                           {"contended", p.contended},
                           {"missed", p.missed},
                           {"skipped", p.skipped}});
    nlohmann::json timeline = nlohmann::json::array();
    for (const TimelineSegment& seg : s.timeline)
        timeline.push_back({{"lane", inversionLaneName(seg.lane)},
                            {"state", segmentStateName(seg.state)},
                            {"start_s", toSeconds(seg.startNs - s.t0Ns)},
                            {"end_s", toSeconds(seg.endNs - s.t0Ns)}});
    nlohmann::json trips = nlohmann::json::array();
    for (const WatchdogTrip& t : s.watchdogTrips)
        trips.push_back({{"slot", t.slot},
                         {"tid", t.tid},
                         {"overrun_ns", t.overrunNs()},
                         {"demoted", t.demoted},
                         {"at_stop", t.atStop}});
    const uint64_t contended = s.highContended;
    return nlohmann::json{{"version", RTSCOPE_VERSION},
                          {"experiment", "inversion"},
                          {"config", toJson(s.config)},
                          {"cpu", s.config.cpu},
                          {"watchdog_cpu", s.watchdogCpu},
                          {"tids", {{"low", s.tids[0]}, {"medium", s.tids[1]}, {"high", s.tids[2]}}},
                          {"finished", s.finished},
                          {"duration_ns", s.publishedNs - s.startNs},
                          {"high",
                           {{"periods", s.highPeriods},
                            {"contended", contended},
                            {"missed", s.highMissed},
                            {"skipped", s.highSkipped},
                            {"wait", histogramSummaryJson(s.highWait)},
                            {"wait_total_ns", s.highWaitTotalNs}}},
                          {"low_sections", s.lowSections},
                          {"medium_bursts", s.mediumBursts},
                          {"medium_ran_while_high_waited_ns", s.mediumRanWhileHighWaitedNs},
                          {"low_ran_while_high_waited_ns", s.lowRanWhileHighWaitedNs},
                          {"periods", periods},
                          {"timeline", timeline},
                          {"timeline_truncated", s.timelineTruncated},
                          {"ring_drops", s.ringDrops},
                          {"watchdog_trips", trips},
                          {"memory_lock", s.memoryLock},
                          {"error", s.error}};
}

std::string inversionTimelineCsv(const InversionSnapshot& s)
{
    CsvWriter csv({"lane", "state", "start_s", "end_s", "duration_us"});
    for (const TimelineSegment& seg : s.timeline)
        csv.add(inversionLaneName(seg.lane), segmentStateName(seg.state),
                formatFixed(toSeconds(seg.startNs - s.t0Ns), 7), formatFixed(toSeconds(seg.endNs - s.t0Ns), 7),
                formatFixed(double(seg.endNs - seg.startNs) / 1e3, 1));
    return csv.str();
}

} // namespace rtscope
