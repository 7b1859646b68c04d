#pragma once
// The field lists of the snapshots that snapshot_json.cpp writes and reads (docs/remote.md, "Snapshot"): one
// fields(visitor, struct) per struct, walked by both the writer and the reader, and the last value of each enum that
// travels as an integer. Internal to engine/remote: used by snapshot_json.cpp only.
#include "engine/experiments/deadline/deadline_experiment.h"
#include "engine/experiments/latency/latency_snapshot.h"
#include "engine/experiments/locks/contention_experiment.h"
#include "engine/experiments/locks/inversion_experiment.h"
#include "engine/experiments/noise/noise_snapshot.h"
#include "engine/experiments/starvation/starvation_experiment.h"
#include "engine/experiments/sweep/sweep_experiment.h"
#include "engine/experiments/timers/drift_experiment.h"
#include "engine/experiments/timers/sleep_floor_experiment.h"

namespace rtscope::snapshot_fields {

// Each struct's fields are listed once, in a fields(visitor, struct) function that both the writer and the reader
// walk: a field added to a struct and to its list is written and read, and a field missing from a list shows in
// the round-trip test (tests/engine/tst_snapshot_json.cpp) only if it is set there, so every list follows the
// struct's declaration order to be checked by eye.
//
// v(key, member) is a plain field; v(key, member, maxItems) a list with its own bound; v.log(key, log, count) an
// AppendLog prefix (the tick and sample logs, shared with the aggregator in the live snapshot).

// The common header of every snapshot (engine/experiments/run_status.h), after its config.
template <class V> void fields(V& v, RunStatus& s)
{
    v("generation", s.generation);
    v("running", s.running);
    v("finished", s.finished);
    v("start_ns", s.startNs);
    v("published_ns", s.publishedNs);
    v("memory_lock", s.memoryLock);
    v("error", s.error);
}

// What every snapshot starts with (SnapshotOf<Config>): its config, then the common header.
template <class V, class S> void snapshotHeader(V& v, S& s)
{
    SnapshotOf<typename S::ConfigType>& h = s;
    v("config", h.config);
    fields(v, static_cast<RunStatus&>(h));
}

template <class V> void fields(V& v, SeriesPoint& s)
{
    v("t_ns", s.tNs);
    v("min_ns", s.minNs);
    v("max_ns", s.maxNs);
    v("count", s.count);
}

template <class V> void fields(V& v, CounterStats& s)
{
    v("label", s.label);
    v("cpu", s.cpu);
    v("control", s.control);
    v("nice", s.nice);
    v("tid", s.tid);
    v("ops", s.ops);
    v("ops_per_sec", s.opsPerSec);
    v("rate", s.rate);
}

template <class V> void fields(V& v, ThrottleWindow& s)
{
    v("start_ns", s.startNs);
    v("end_ns", s.endNs);
    v("offset_ns", s.offsetNs);
    v("spacing_ns", s.spacingNs);
}

template <class V> void fields(V& v, BurstRecord& s)
{
    v("index", s.index);
    v("start_ns", s.startNs);
    v("end_ns", s.endNs);
    v("gap_end_ns", s.gapEndNs);
    v("during", s.during);
    v("after", s.after);
    v("windows", s.windows);
    v("windows_final", s.windowsFinal);
    v("watchdog_demoted", s.watchdogDemoted);
    v("interrupted", s.interrupted);
}

template <class V> void fields(V& v, ThrottleSettings& s)
{
    v("rt_runtime_us", s.rtRuntimeUs);
    v("rt_period_us", s.rtPeriodUs);
    v("kernel_release", s.kernelRelease);
    v("fair_server_kernel", s.fairServerKernel);
    v("cpu", s.cpu);
    v("fair_server_runtime_ns", s.fairServerRuntimeNs);
    v("fair_server_period_ns", s.fairServerPeriodNs);
    v("fair_server_note", s.fairServerNote);
}

template <class V> void fields(V& v, WatchdogConfig& s)
{
    v("cpu", s.cpu);
    v("priority", s.priority);
    v("margin_ns", s.marginNs);
    v("poll_ns", s.pollNs);
    v("cpu_time_overrun", s.cpuTimeOverrun);
}

template <class V> void fields(V& v, WatchdogTrip& s)
{
    v("slot", s.slot);
    v("tid", s.tid);
    v("deadline_ns", s.deadlineNs);
    v("demoted_ns", s.demotedNs);
    v("demoted", s.demoted);
    v("at_stop", s.atStop);
    v("ran_past_deadline_ns", s.ranPastDeadlineNs);
}

template <class V> void fields(V& v, StarvationSnapshot& s)
{
    snapshotHeader(v, s);
    v("controller_cpu", s.controllerCpu);
    v("spinner_tid", s.spinnerTid);
    v("interrupted", s.interrupted);
    v("end_ns", s.endNs);
    v("lead_in_ns", s.leadInNs);
    v("lead_in", s.leadIn);
    v("starved_counters", s.starvedCounters);
    v("counters", s.counters, size_t(kStarvationMaxThreads));
    v("bursts", s.bursts);
    v("bursts_dropped", s.burstsDropped);
    v("kernel", s.kernel);
    v("watchdog", s.watchdog);
    v("watchdog_trips", s.watchdogTrips);
    v("dropped_samples", s.droppedSamples);
    v("dropped_segments", s.droppedSegments);
    v("dropped_events", s.droppedEvents);
    v("note", s.note);
}

template <class V> void fields(V& v, DriftTick& s)
{
    v("tick", s.tick);
    v("drift_ns", s.driftNs);
    v("lateness_ns", s.latenessNs);
    v("missed", s.missed);
}

template <class V> void fields(V& v, DriftMethodStats& s)
{
    v("method", s.method);
    v("wakes", s.wakes);
    v("last_tick", s.lastTick);
    v("missed_ticks", s.missedTicks);
    v("drift_ns", s.driftNs);
    v("min_drift_ns", s.minDriftNs);
    v("max_drift_ns", s.maxDriftNs);
    v("slope_ns_per_tick", s.slopeNsPerTick);
    v("rate_hz", s.rateHz);
    v("rate_percent", s.ratePercent);
    v("lateness_p50_ns", s.latenessP50Ns);
    v("lateness_p99_ns", s.latenessP99Ns);
    v("lateness_max_ns", s.latenessMaxNs);
    v.log("ticks", s.log, s.logCount);
    v("tid", s.tid);
    v("timer_slack_ns", s.timerSlackNs);
    v("drops", s.drops);
    v("done", s.done);
    v("error", s.error);
}

template <class V> void fields(V& v, DriftSnapshot& s)
{
    snapshotHeader(v, s);
    v("t0_ns", s.t0Ns);
    v("nominal_hz", s.nominalHz);
    v("effective_slack_ns", s.effectiveSlackNs);
    v("slack_note", s.slackNote);
    v("methods", s.methods);
}

template <class V> void fields(V& v, SleepSample& s)
{
    v("request", s.request);
    v("method", s.method);
    v("sample", s.sample);
    v("actual_ns", s.actualNs);
    v("cpu_ns", s.cpuNs);
}

template <class V> void fields(V& v, SleepFloorCell& s)
{
    v("method", s.method);
    v("request_ns", s.requestNs);
    v("samples", s.samples);
    v("min_ns", s.minNs);
    v("p50_ns", s.p50Ns);
    v("p99_ns", s.p99Ns);
    v("max_ns", s.maxNs);
    v("mean_ns", s.meanNs);
    v("overshoot_ns", s.overshootNs);
    v("overshoot_ratio", s.overshootRatio);
    v("cpu_per_wait_ns", s.cpuPerWaitNs);
    v("cpu_share", s.cpuShare);
}

template <class V> void fields(V& v, SleepFloorSnapshot& s)
{
    snapshotHeader(v, s);
    v("clock_resolution_ns", s.clockResolutionNs);
    v("timer_slack_ns", s.timerSlackNs);
    v("effective_slack_ns", s.effectiveSlackNs);
    v("slack_note", s.slackNote);
    v("cpu_clock_overhead_ns", s.cpuClockOverheadNs);
    v("tid", s.tid);
    v("samples_done", s.samplesDone);
    v("samples_total", s.samplesTotal);
    v("current_request", s.currentRequest);
    v("cells", s.cells);
    v("floor_ns", s.floorNs);
    v("load_threads", s.loadThreads);
    v("load_iterations", s.loadIterations);
    v("drops", s.drops);
    v.log("samples", s.log, s.logCount);
}

template <class V> void fields(V& v, TimelineSegment& s)
{
    v("start_ns", s.startNs);
    v("end_ns", s.endNs);
    v("lane", s.lane);
    v("state", s.state);
}

template <class V> void fields(V& v, InversionPeriod& s)
{
    v("release_ns", s.releaseNs);
    v("wake_ns", s.wakeNs);
    v("acquired_ns", s.acquiredNs);
    v("done_ns", s.doneNs);
    v("skipped", s.skipped);
    v("contended", s.contended);
    v("missed", s.missed);
}

template <class V> void fields(V& v, InversionSnapshot& s)
{
    v("high_wait", s.highWait);
    v("high_periods", s.highPeriods);
    v("high_contended", s.highContended);
    v("high_missed", s.highMissed);
    v("high_skipped", s.highSkipped);
    v("high_wait_total_ns", s.highWaitTotalNs);
    v("medium_ran_while_high_waited_ns", s.mediumRanWhileHighWaitedNs);
    v("low_ran_while_high_waited_ns", s.lowRanWhileHighWaitedNs);
    v("periods", s.periods);
    v("timeline", s.timeline);
    v("timeline_from_ns", s.timelineFromNs);
    v("timeline_truncated", s.timelineTruncated);
    snapshotHeader(v, s);
    v("watchdog_cpu", s.watchdogCpu);
    v("t0_ns", s.t0Ns);
    v("low_sections", s.lowSections);
    v("medium_bursts", s.mediumBursts);
    v("ring_drops", s.ringDrops);
    v("watchdog_trips", s.watchdogTrips);
    v("tids", s.tids);
}

template <class V> void fields(V& v, AcquisitionCounts& s)
{
    v("acquisitions", s.acquisitions);
    v("uncontended", s.uncontended);
    v("spun", s.spun);
    v("slept", s.slept);
    v("slept_owner_not_running", s.sleptOwnerNotRunning);
    v("slept_owner_on_this_cpu", s.sleptOwnerOnThisCpu);
    v("slept_spin_limit", s.sleptSpinLimit);
    v("spin_iterations", s.spinIterations);
    v("futex_sleeps", s.futexSleeps);
}

template <class V> void fields(V& v, ContentionThreadStats& s)
{
    v("index", s.index);
    v("cpu", s.cpu);
    v("tid", s.tid);
    v("counts", s.counts);
    v("voluntary_switches", s.voluntarySwitches);
    v("involuntary_switches", s.involuntarySwitches);
    v("cpu_ns", s.cpuNs);
    v("samples_dropped", s.samplesDropped);
}

template <class V> void fields(V& v, ContentionKindResult& s)
{
    v("kind", s.kind);
    v("state", s.state);
    v("start_ns", s.startNs);
    v("elapsed_ns", s.elapsedNs);
    v("counts", s.counts);
    v("acquisitions_per_sec", s.acquisitionsPerSec);
    v("wait", s.wait);
    v("samples_dropped", s.samplesDropped);
    v("voluntary_switches", s.voluntarySwitches);
    v("involuntary_switches", s.involuntarySwitches);
    v("cpu_ns_per_acquisition", s.cpuNsPerAcquisition);
    v("fairness", s.fairness);
    v("min_share", s.minShare);
    v("max_share", s.maxShare);
    v("threads", s.threads, size_t(ContentionConfig::kMaxThreads));
    v("error", s.error);
}

template <class V> void fields(V& v, ContentionSnapshot& s)
{
    snapshotHeader(v, s);
    v("worker_cpus", s.workerCpus, size_t(ContentionConfig::kMaxThreads));
    v("current_kind", s.currentKind);
    v("kinds", s.kinds);
}

template <class V> void fields(V& v, DeadlineParams& s)
{
    v("runtime_ns", s.runtimeNs);
    v("deadline_ns", s.deadlineNs);
    v("period_ns", s.periodNs);
}

template <class V> void fields(V& v, DeadlineBudget& s)
{
    v("per_cpu_limit", s.perCpuLimit);
    v("cpus", s.cpus);
    v("fair_servers", s.fairServers);
    v("fair_server_kernel", s.fairServerKernel);
    v("others_at_start", s.othersAtStart);
}

template <class V> void fields(V& v, DeadlineAdmissionStep& s)
{
    v("action", s.action);
    v("task", s.task);
    v("runtime_ns", s.runtimeNs);
    v("period_ns", s.periodNs);
    v("admitted", s.admitted);
    v("attempts", s.attempts);
    v("answer", s.answer);
}

template <class V> void fields(V& v, DeadlineAdmissionRow& s)
{
    v("step", s.step);
    v("own_total", s.ownTotal);
    v("predicted", s.predicted);
}

template <class V> void fields(V& v, DeadlineTaskStats& s)
{
    v("jobs", s.jobs);
    v("misses", s.misses);
    v("total_ran_ns", s.totalRanNs);
    v("max_ran_ns", s.maxRanNs);
    v("total_gap_ns", s.totalGapNs);
    v("max_gap_ns", s.maxGapNs);
    v("max_late_ns", s.maxLateNs);
    v("jobs_per_cpu", s.jobsPerCpu, size_t(DeadlineAggregator::kMaxCpus));
    v("first_ns", s.firstNs);
    v("last_ns", s.lastNs);
    v("overruns", s.overruns);
    v("overruns_counted", s.overrunsCounted);
    v("overruns_note", s.overrunsNote);
}

template <class V> void fields(V& v, DeadlineCounterStats& s)
{
    v("windows", s.windows);
    v("stalled_windows", s.stalledWindows);
    v("min_ops", s.minOps);
    v("max_ops", s.maxOps);
    v("total_ops", s.totalOps);
    v("max_window_ns", s.maxWindowNs);
    v("total_window_ns", s.totalWindowNs);
    v("cpu_ns", s.cpuNs);
    v("cpu_wall_ns", s.cpuWallNs);
}

template <class V> void fields(V& v, DeadlineJob& s)
{
    v("slot", s.slot);
    v("cpu", s.cpu);
    v("start_ns", s.startNs);
    v("end_ns", s.endNs);
    v("ran_ns", s.ranNs);
    v("gap_ns", s.gapNs);
    v("late_ns", s.lateNs);
    v("missed", s.missed);
}

template <class V> void fields(V& v, DeadlineSnapshot& s)
{
    snapshotHeader(v, s);
    v("tick_ns", s.tickNs);
    v("slot_names", s.slotNames, size_t(DeadlineAggregator::kMaxSlots));
    v("slot_declared", s.slotDeclared, size_t(DeadlineAggregator::kMaxSlots));
    v("budget", s.budget);
    v("admission", s.admission);
    v("tasks", s.tasks, size_t(DeadlineAggregator::kMaxSlots));
    v("counter", s.counter);
    v("jobs", s.jobs, DeadlineAggregator::kMaxJobRecords);
    v("jobs_not_kept", s.jobsNotKept);
    v("counter_cpu", s.counterCpu);
    v("counter_verdict", s.counterVerdict);
    v("throttling", s.throttling);
    v("controller_cpu", s.controllerCpu);
    v("fifo_cpu", s.fifoCpu);
    v("deadline_phase_ran", s.deadlinePhaseRan);
    v("deadline_phase_note", s.deadlinePhaseNote);
    v("watchdog", s.watchdog);
    v("watchdog_trips", s.watchdogTrips);
    v("dropped_jobs", s.droppedJobs);
}

// The sweep (docs/remote.md, "Snapshot"): its results and the running setting's latency snapshot. That snapshot's
// tracing is not a field: a sweep never traces (SweepConfig::validate refuses base.trace), so it is always null.
template <class V> void fields(V& v, LatencyThreadStats& s)
{
    v("cpu", s.cpu);
    v("tid", s.tid);
    v("histogram", s.histogram);
    v("samples", s.samples);
    v("skipped", s.skipped);
    v("drops", s.drops);
    v("seq_gaps", s.seqGaps);
    v("last_ns", s.lastNs);
    v("overflow_seqs", s.overflowSeqs);
    v("series", s.series, LatencyAggregator::kSeriesCapacity);
}

template <class V> void fields(V& v, DeadlineOverrunFigure& s)
{
    v("counted", s.counted);
    v("overruns", s.overruns);
    v("not_counted", s.notCounted);
}

template <class V> void fields(V& v, Marker& s)
{
    v("t_ns", s.tNs);
    v("seq", s.seq);
    v("label", s.label);
}

// A measuring thread per CPU at most.
constexpr size_t kSnapshotMaxLatencyThreads = CPU_SETSIZE;

template <class V> void fields(V& v, LatencySnapshot& s)
{
    snapshotHeader(v, s);
    v("reset_ns", s.resetNs);
    v("stop_requested_ns", s.stopRequestedNs);
    v("threads", s.threads, kSnapshotMaxLatencyThreads);
    v("overruns", s.overruns, kSnapshotMaxLatencyThreads);
    v("markers", s.markers);
    v("hog_iterations", s.hogIterations);
    v("hog_iterations_per_sec", s.hogIterationsPerSec);
    v("dma_latency_held", s.dmaLatencyHeld);
    v("dma_latency_note", s.dmaLatencyNote);
}

template <class V> void fields(V& v, SweepSetting& s)
{
    v("policy", s.policy);
    v("priority", s.priority);
    v("runtime_ns", s.runtimeNs);
    v("deadline_ns", s.deadlineNs);
}

template <class V> void fields(V& v, SweepResult& s)
{
    v("setting", s.setting);
    v("stats", s.stats);
    v("duration_ns", s.durationNs);
    v("error", s.error);
}

template <class V> void fields(V& v, SweepSnapshot& s)
{
    snapshotHeader(v, s);
    v("results", s.results, SweepConfig::kMaxSettings);
    v("current", s.current);
    v("total", s.total);
    v("live", s.live);
    v("cancelled", s.cancelled);
    v("load_status", s.loadStatus);
}

template <class V> void fields(V& v, NoiseCulprit& s)
{
    v("kind", s.kind);
    v("name", s.name);
    v("cpu", s.cpu);
    v("pid", s.pid);
    v("id", s.id);
    v("vector", s.vector);
    v("prio", s.prio);
    v("sched", s.sched);
    v("count", s.count);
    v("total_ns", s.totalNs);
    v("max_ns", s.maxNs);
    v("percent", s.percent);
}

template <class V> void fields(V& v, NoiseCpuStats& s)
{
    v("cpu", s.cpu);
    v("tid", s.tid);
    v("runtime_ns", s.runtimeNs);
    v("noise_ns", s.noiseNs);
    v("available_percent", s.availablePercent);
    v("max_single_ns", s.maxSingleNs);
    v("loops", s.loops);
    v("gaps", s.gaps);
    v("drops", s.drops);
    v("kind_ns", s.kindNs);
    v("kind_count", s.kindCount);
    v("histogram", s.histogram, kNoiseHistogramBuckets);
    v("min_loop_ns", s.minLoopNs);
    v("max_loop_ns", s.maxLoopNs);
    v("mean_loop_ns", s.meanLoopNs);
    v("heat", s.heat, kNoiseHeatWindows);
    v("heat_first_window", s.heatFirstWindow);
    v("steal_ns", s.stealNs);
    v("smi_count", s.smiCount);
    v("error", s.error);
}

template <class V> void fields(V& v, NoiseSnapshot& s)
{
    snapshotHeader(v, s);
    v("elapsed_ns", s.elapsedNs);
    v("cpus", s.cpus, size_t(NoiseConfig::kMaxCpus));
    v("culprits", s.culprits, NoiseSnapshot::kMaxCulprits);
    v("traced", s.traced);
    v("trace_note", s.traceNote);
    v("trace_lost_events", s.traceLostEvents);
    v("steal_tick_ns", s.stealTickNs);
    v("steal_note", s.stealNote);
    v("smi_note", s.smiNote);
    v("osnoise_tracer", s.osnoiseTracer);
    v("osnoise_note", s.osnoiseNote);
    v("loop_clock", s.loopClock);
}

// The enums travel as their engine order (an integer), bounded by their last value on read.
template <class E> inline constexpr E kSnapshotEnumLast = E{};
template <> inline constexpr WaiterKind kSnapshotEnumLast<WaiterKind> = WaiterKind::Busy;
template <> inline constexpr Policy kSnapshotEnumLast<Policy> = Policy::Deadline;
template <> inline constexpr NoiseKind kSnapshotEnumLast<NoiseKind> = NoiseKind::Untraced;
template <> inline constexpr SleepMethod kSnapshotEnumLast<SleepMethod> = SleepMethod::Hybrid;
template <> inline constexpr LockKind kSnapshotEnumLast<LockKind> = LockKind::Ceiling;
template <> inline constexpr KindRunState kSnapshotEnumLast<KindRunState> = KindRunState::Failed;
template <> inline constexpr InversionLane kSnapshotEnumLast<InversionLane> = InversionLane::High;
template <> inline constexpr SegmentState kSnapshotEnumLast<SegmentState> = SegmentState::WaitingForLock;
template <>
inline constexpr DeadlineAdmissionStep::Action kSnapshotEnumLast<DeadlineAdmissionStep::Action> =
    DeadlineAdmissionStep::Action::Retry;

} // namespace rtscope::snapshot_fields
