#include "engine/export/report_json.h"

#include "engine/experiments/latency/latency_experiment.h"
#include "engine/formats/cyclictest_format.h"
#include "engine/pipeline/anatomy_figures.h"
#include "engine/rt/system_probe.h"
#include "engine/util/printable.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

namespace rtscope {

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

namespace {

// A part of a wake-up: its nanoseconds, or null where it is unknown (never a made-up number).
nlohmann::json reportJsonPart(const std::optional<int64_t>& ns)
{
    return ns ? nlohmann::json(*ns) : nlohmann::json(nullptr);
}

// Names come from the kernel (a comm cut at 15 bytes may end inside a UTF-8 character) and JSON takes only valid
// UTF-8: printable() writes every byte that is not (and every control character) as \xNN.
std::string reportJsonName(const std::string& name)
{
    return printable(name);
}

// An interrupt or culprit: its kind, id and name; an hrtimer's id is its callback's kernel address, which as a
// signed id reads as a negative number, so it also gets the address in hex.
nlohmann::json reportJsonHandler(CulpritKind kind, int64_t id, const std::string& name)
{
    nlohmann::json j{{"kind", culpritKindName(kind)}, {"id", id}, {"name", reportJsonName(name)}};
    if (kind == CulpritKind::Hrtimer) {
        char hex[24];
        std::snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)uint64_t(id));
        j["address"] = hex;
    }
    return j;
}

} // namespace

nlohmann::json tracedWakeupJson(const TracedWakeup& w, int64_t startNs)
{
    const WakeupAnatomy& a = w.anatomy;
    nlohmann::json interrupts = nlohmann::json::array();
    for (const AnatomyInterrupt& i : a.interrupts) {
        nlohmann::json j = reportJsonHandler(i.kind, i.id, i.name);
        j["own_timer"] = i.ownTimer;
        j["ns"] = i.ns;
        j["count"] = i.count;
        interrupts.push_back(std::move(j));
    }
    nlohmann::json tasks = nlohmann::json::array();
    for (const AnatomySlice& t : a.tasks)
        tasks.push_back({{"pid", t.pid},
                         {"comm", reportJsonName(t.comm)},
                         {"prio", t.prio == -2 ? nlohmann::json(nullptr) : nlohmann::json(t.prio)},
                         {"prio_text", t.prio == -2 ? std::string() : describeKernelPrio(t.prio)},
                         {"idle", t.idle()},
                         {"from_ns", t.fromNs - startNs},
                         {"to_ns", t.toNs - startNs},
                         {"ns", t.ns},
                         {"switch_in_seen", t.switchInSeen}});
    return nlohmann::json{{"seq", w.seq},
                          {"thread", w.thread},
                          {"tid", a.query.tid},
                          {"cpu", a.runCpu},
                          {"timer_cpu", a.timerCpu},
                          {"deadline_ns", a.query.deadlineNs - startNs},
                          {"latency_ns", a.latencyNs},
                          {"parts",
                           {{"timer_irq_delay_ns", reportJsonPart(a.timerIrqDelayNs)},
                            {"interrupts_ns", reportJsonPart(a.irqNs)},
                            {"scheduling_delay_ns", reportJsonPart(a.schedulingNs)},
                            {"return_to_user_ns", reportJsonPart(a.returnToUserNs)},
                            {"unaccounted_ns", a.unaccountedNs}}},
                          {"complete", a.complete()},
                          {"consistent", a.consistent},
                          {"events_lost", a.eventsLost},
                          {"idle_at_timer", a.idleAtTimer},
                          {"runnable_at_deadline", a.runnableAtDeadline},
                          {"interrupts", interrupts},
                          {"tasks", tasks},
                          {"note", reportJsonName(a.note)},
                          {"verdict", reportJsonName(anatomyVerdict(a))},
                          {"events", w.events.size()},
                          {"events_omitted", w.eventsOmitted}};
}

nlohmann::json anatomyJson(const LatencyTracing& t, int64_t startNs, int64_t durationNs)
{
    const TraceStats& st = t.stats;
    const double seconds = double(durationNs) / 1e9;
    nlohmann::json missing = nlohmann::json::array();
    for (const auto& e : t.missingEvents)
        missing.push_back(reportJsonName(e));
    nlohmann::json culprits = nlohmann::json::array();
    for (const CulpritRow& r : t.figures.culprits) {
        nlohmann::json j = reportJsonHandler(r.kind, r.id, r.name);
        j["prio"] = r.prio == -2 ? nlohmann::json(nullptr) : nlohmann::json(r.prio);
        j["prio_text"] = r.prio == -2 ? std::string() : describeKernelPrio(r.prio);
        j["wakeups"] = r.wakeups;
        j["total_ns"] = r.totalNs;
        j["worst_ns"] = r.worstNs;
        culprits.push_back(std::move(j));
    }
    nlohmann::json worst = nlohmann::json::array();
    for (const TracedWakeup& w : t.figures.worst)
        worst.push_back(tracedWakeupJson(w, startNs));
    nlohmann::json over = nlohmann::json::array();
    for (const TracedWakeup& w : t.figures.overThreshold)
        over.push_back(tracedWakeupJson(w, startNs));
    const AnatomyFigures& f = t.figures;
    return nlohmann::json{
        {"status", t.active ? "active" : "unavailable"},
        {"unavailable_reason", reportJsonName(t.unavailable)},
        {"missing_events", missing},
        {"stop_error", reportJsonName(t.stopError)},
        {"stats",
         {{"events", st.events},
          {"events_per_second", seconds > 0 ? double(st.events) / seconds : 0.0},
          {"lost_events", st.lostEvents},
          {"loss_reports", st.lossReports},
          {"sub_buffers", st.subBuffers},
          {"bytes", st.bytes},
          {"batches", st.batches},
          {"undecoded", st.undecoded},
          {"handler_errors", st.handlerErrors},
          {"kernel_overrun", st.kernelOverrun},
          {"kernel_dropped", st.kernelDropped},
          {"unread_at_stop", st.unreadAtStop},
          {"reader_stop_ns", st.readerStopNs},
          {"queue_dropped_events", t.queueDroppedEvents},
          {"queue_dropped_batches", t.queueDroppedBatches}}},
        {"wakeups",
         {{"seen", f.wakeupsSeen},
          {"analysed", f.wakeupsAnalysed},
          {"complete", f.wakeupsComplete},
          {"with_lost_events", f.wakeupsWithLoss},
          {"not_analysed", f.wakeupsNotAnalysed},
          {"pending", f.wakeupsPending},
          {"events_dropped", f.eventsDropped}}},
        {"top", t.top},
        {"culprits", culprits},
        {"worst", worst},
        {"threshold", {{"threshold_ns", t.thresholdNs}, {"total", f.overThresholdTotal}, {"wakeups", over}}}};
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
    nlohmann::json report{{"version", RTSCOPE_VERSION},
                          {"experiment", "latency"},
                          {"config", toJson(snap.config)},
                          {"duration_ns", snap.publishedNs - snap.startNs},
                          {"threads", threads},
                          {"markers", markers},
                          {"hog_iterations", snap.hogIterations},
                          {"memory_lock", snap.memoryLock},
                          {"cpu_dma_latency", snap.dmaLatencyNote},
                          {"error", snap.error}};
    if (snap.tracing) // only when tracing was asked for: an untraced report keeps exactly its keys
        // Events per second over the time the stats were taken at (updatedNs), which a replay keeps from the live run.
        report["anatomy"] =
            anatomyJson(*snap.tracing, snap.startNs,
                        (snap.tracing->updatedNs > 0 ? snap.tracing->updatedNs : snap.publishedNs) - snap.startNs);
    return report;
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
