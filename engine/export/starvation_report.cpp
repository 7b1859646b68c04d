#include "engine/export/starvation_report.h"

#include "engine/experiments/starvation/starvation_experiment.h"
#include "engine/formats/csv_writer.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace rtscope {

namespace {

nlohmann::json optionalValue(const std::optional<int64_t>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json();
}

std::string ms(int64_t ns)
{
    return formatFixed(double(ns) / 1e6, 3);
}

nlohmann::json perCounter(const std::array<uint64_t, kStarvationMaxThreads>& values, size_t n)
{
    nlohmann::json a = nlohmann::json::array();
    for (size_t i = 0; i < n && i < values.size(); ++i)
        a.push_back(values[i]);
    return a;
}

} // namespace

nlohmann::json starvationReportJson(const StarvationSnapshot& s)
{
    using nlohmann::json;
    const size_t n = s.counters.size();
    json j;
    j["experiment"] = "starvation";
    j["version"] = RTSCOPE_VERSION;
    j["config"] = toJson(s.config);
    j["label"] = s.config.label();
    j["spinner"] = {{"cpu", s.config.cpu},
                    {"tid", s.spinnerTid},
                    {"policy", policyName(s.config.policy)},
                    {"priority", s.config.priority}};
    j["controller_cpu"] = s.controllerCpu;
    j["sample_interval_ns"] = StarvationConfig::kSampleIntervalNs;
    j["finished"] = s.finished;
    j["interrupted"] = s.interrupted;
    j["duration_ns"] = (s.endNs ? s.endNs : s.publishedNs) - s.startNs;

    j["kernel"] = {{"release", s.kernel.kernelRelease},
                   {"sched_rt_runtime_us", optionalValue(s.kernel.rtRuntimeUs)},
                   {"sched_rt_period_us", optionalValue(s.kernel.rtPeriodUs)},
                   {"rt_throttling", s.kernel.rtThrottlingText()},
                   {"fair_server",
                    {{"kernel_has_it", s.kernel.fairServerKernel},
                     {"cpu", s.kernel.cpu},
                     {"runtime_ns", optionalValue(s.kernel.fairServerRuntimeNs)},
                     {"period_ns", optionalValue(s.kernel.fairServerPeriodNs)},
                     {"note", s.kernel.fairServerNote}}}};

    json counters = json::array();
    for (const CounterStats& c : s.counters) {
        json series = json::array();
        for (const SeriesPoint& p : c.rate)
            series.push_back({toSeconds(p.tNs - s.startNs), p.maxNs});
        counters.push_back({{"label", c.label},
                            {"cpu", c.cpu},
                            {"control", c.control},
                            {"nice", c.nice},
                            {"tid", c.tid},
                            {"ops", c.ops},
                            {"rate_series", std::move(series)}});
    }
    j["counters"] = std::move(counters);

    json leadInRates = json::array();
    for (size_t i = 0; i < n; ++i)
        leadInRates.push_back(s.leadInNs > 0 ? double(s.leadIn[i]) * 1e9 / double(s.leadInNs) : 0.0);
    j["lead_in"] = {{"duration_ns", s.leadInNs}, {"progress", perCounter(s.leadIn, n)}, {"ops_per_s", leadInRates}};

    json bursts = json::array();
    for (const BurstRecord& b : s.bursts) {
        json windows = json::array();
        for (const ThrottleWindow& w : b.windows)
            windows.push_back({{"offset_ns", w.offsetNs}, {"length_ns", w.lengthNs()}, {"spacing_ns", w.spacingNs}});
        bursts.push_back({{"index", b.index},
                          {"start_s", toSeconds(b.startNs - s.startNs)},
                          {"spinner_ns", b.spinnerNs()},
                          {"gap_ns", b.gapNs()},
                          {"progress_during", perCounter(b.during, n)},
                          {"progress_after", perCounter(b.after, n)},
                          {"starved_during", b.duringSum(s.starvedCounters)},
                          {"starved_after", b.afterSum(s.starvedCounters)},
                          {"windows", std::move(windows)},
                          {"windows_final", b.windowsFinal},
                          {"watchdog_demoted", b.watchdogDemoted},
                          {"interrupted", b.interrupted}});
    }
    j["bursts"] = std::move(bursts);
    j["bursts_dropped"] = s.burstsDropped;

    json trips = json::array();
    for (const WatchdogTrip& t : s.watchdogTrips)
        trips.push_back({{"tid", t.tid},
                         {"deadline_s", toSeconds(t.deadlineNs - s.startNs)},
                         {"overrun_ns", t.overrunNs()},
                         {"demoted", t.demoted},
                         {"at_stop", t.atStop}});
    j["watchdog"] = {{"cpu", s.watchdog.cpu},
                     {"priority", s.watchdog.priority},
                     {"margin_ns", s.watchdog.marginNs},
                     {"poll_ns", s.watchdog.pollNs},
                     {"trips", std::move(trips)}};
    j["drops"] = {{"samples", s.droppedSamples}, {"segments", s.droppedSegments}, {"events", s.droppedEvents}};
    j["memory_lock"] = s.memoryLock;
    j["note"] = s.note;
    return j;
}

std::string starvationBurstCsv(const StarvationSnapshot& s)
{
    CsvWriter csv({"burst", "counter", "cpu", "control", "start_s", "spinner_ms", "progress_during", "gap_ms",
                   "progress_after", "windows", "window_ms_total", "first_window_offset_ms", "watchdog_demoted",
                   "interrupted"});
    for (size_t i = 0; i < s.counters.size(); ++i) {
        const CounterStats& c = s.counters[i];
        csv.add(0, c.label, c.cpu, int(c.control), formatFixed(0.0, 6), ms(0), 0, ms(s.leadInNs), s.leadIn[i], 0, ms(0),
                "", 0, 0);
    }
    for (const BurstRecord& b : s.bursts) {
        int64_t windowNs = 0;
        for (const ThrottleWindow& w : b.windows)
            windowNs += w.lengthNs();
        const std::string firstOffset = b.windows.empty() ? std::string() : ms(b.windows.front().offsetNs);
        for (size_t i = 0; i < s.counters.size(); ++i) {
            const CounterStats& c = s.counters[i];
            // Windows are a property of the starved CPU: the control counter's row leaves them empty.
            csv.add(b.index, c.label, c.cpu, int(c.control), formatFixed(toSeconds(b.startNs - s.startNs), 6),
                    ms(b.spinnerNs()), b.during[i], ms(b.gapNs()), b.after[i],
                    c.control ? std::string() : std::to_string(b.windows.size()),
                    c.control ? std::string() : ms(windowNs), c.control ? std::string() : firstOffset,
                    int(b.watchdogDemoted), int(b.interrupted));
        }
    }
    return csv.str();
}

} // namespace rtscope
