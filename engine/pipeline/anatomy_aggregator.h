#pragma once
/// @file Matches a traced latency run's measured wake-ups to the kernel's events and explains them, live
/// (docs/experiments/anatomy.md): the collector feeds it the trace reader's event batches and the measuring threads'
/// samples, in whatever order they come; it keeps a bounded, sorted time window of events, analyses each wake-up
/// (analyzeWakeup) once its CPU's events past the wake time have arrived, and keeps the culprit table, the N worst
/// wake-ups and the latest ones over a threshold, each with the events of its window. Thread-free: one thread
/// (the collector) calls everything.
///
/// When a wake-up is analysed. The reader hands on each CPU's events in the order the CPU recorded them, one poll
/// period or so behind (trace_session.h), so once an event of the wake-up's CPU later than its wake time (plus
/// kAnatomyToleranceNs) is in, every event of that CPU inside its window is too. A wake-up whose window starts
/// (lookback before its deadline) before the oldest event still held — discarded, or before tracing began — is
/// counted as not analysed and never guessed at.
///
/// Memory, bounded: at most Limits::maxEvents events in the window (kept: what the pending wake-ups need, and at
/// least Limits::retainNs behind the newest event, for samples that reach the collector after their events; the
/// oldest go first when the bound is hit, and are counted), at most Limits::maxPending wake-ups waiting for their
/// events (the oldest go first, counted as not analysed), the top N worst and Limits::maxOverThreshold
/// over-threshold wake-ups, each with at most Limits::maxWindowEvents events (the earliest of a longer window are
/// left out, counted in TracedWakeup::eventsOmitted). With the defaults: 18.9 MB of window, 3.7 MB of pending
/// wake-ups, at most 200 kept wake-ups (top 100 and 100 over the threshold) of at most 2048 events each (29.5 MB at
/// the very worst; tens to hundreds of events each in practice).
#include "engine/pipeline/anatomy_figures.h"
#include "engine/pipeline/latency_aggregator.h"
#include "engine/pipeline/trace_event.h"
#include "engine/pipeline/wakeup_anatomy.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

namespace rtscope {

/// @brief How far before its deadline a wake-up's window starts for a period of @p periodNs: three periods (the
/// thread's previous wake-up, its switch-out to sleep and the last switch before its timer are in it), at least
/// 1 ms and at most 100 ms (a 10 s period does not need 30 s of events: the anatomy names a task it meets only in
/// events' common_pid, wakeup_anatomy.h).
int64_t anatomyLookbackNs(int64_t periodNs);

class AnatomyAggregator {
public:
    struct Limits {
        size_t maxEvents = size_t(1) << 18;  ///< events in the window (72 bytes each: 18.9 MB)
        size_t maxPending = size_t(1) << 16; ///< wake-ups waiting for their events (65.5 s at 1 kHz)
        size_t maxOverThreshold = 100;       ///< the latest over-threshold wake-ups kept
        size_t maxWindowEvents = 2048;       ///< events kept with one wake-up (the latest of its window)
        int64_t retainNs = 250'000'000;      ///< events held behind the newest at least (the collector's lag)
    };

    AnatomyAggregator();
    explicit AnatomyAggregator(const Limits& limits);

    /// @brief What to keep: the @p top worst (0 … any), every wake-up later than @p thresholdNs (0: none), each
    /// analysed with a window from @p lookbackNs before its deadline. A smaller top drops the least bad of the kept;
    /// a new threshold starts its list and count afresh (those kept were chosen by the old one).
    void configure(int64_t thresholdNs, int top, int64_t lookbackNs);
    /// @brief Names hrtimer callbacks in the anatomies (TraceSession::functionName).
    void setOptions(AnatomyOptions options) { m_options = std::move(options); }

    /// @brief Tracing starts (again) at @p sinceNs: clears everything (window, pending, figures, counts) and marks
    /// every time before @p sinceNs as not recorded (its events are ignored, a wake-up whose window reaches into it
    /// is not analysed). A new aggregator has recorded since the beginning of time.
    void start(int64_t sinceNs);

    /// @brief A batch of the reader, sorted by time (TraceBatchHandler); it may hold events older than earlier
    /// batches' (another CPU's late sub-buffer). Analyses what became ready.
    void addEvents(std::span<const TraceEvent> batch);
    /// @brief Measured wake-ups of measuring thread @p thread (its index in the snapshot), @p tid, on @p cpu, in
    /// sequence order. Analyses what is ready.
    void addWakeups(size_t thread, int32_t tid, int cpu, std::span<const LatencySample> samples);
    /// @brief Tracing stopped and every event it recorded is in: analyses what is ready and counts the rest as not
    /// analysed (their CPU recorded nothing after them). Idempotent.
    void finish();

    /// @brief Clears the figures, the counts and the pending wake-ups (measured before the reset); the event window
    /// stays, for the wake-ups after it.
    void resetStatistics();
    /// @brief Everything, as new (the window's start: the beginning of time again).
    void clear();

    /// @brief The figures now (copies the kept wake-ups and their events).
    AnatomyFigures figures() const;
    /// @brief Increases whenever figures() would give something else.
    uint64_t version() const { return m_version; }

    // What it holds and what it had to drop.
    size_t eventsHeld() const { return m_events.size() - m_first; }
    size_t pendingWakeups() const { return m_pending.size(); }
    /// @brief Every event at or after this was kept (as long as it is held); those before it are gone.
    int64_t horizonNs() const { return m_horizonNs; }
    int64_t lookbackNs() const { return m_lookbackNs; }
    const Limits& limits() const { return m_limits; }

private:
    struct Pending {
        size_t thread;
        int32_t tid;
        int cpu;
        LatencySample sample;
    };
    void analyseReady(bool final);
    void analyse(const Pending& p);
    size_t dropBefore(int64_t ns); ///< returns how many went
    void trim();
    std::span<const TraceEvent> window() const;
    int64_t newestOn(int cpu) const;

    Limits m_limits;
    AnatomyOptions m_options;
    int64_t m_thresholdNs = 0;
    int m_top = 10;
    int64_t m_lookbackNs = 3'000'000;

    std::vector<TraceEvent> m_events; ///< sorted by ts; [m_first, end) held
    size_t m_first = 0;
    int64_t m_horizonNs = INT64_MIN;
    int64_t m_startNs = INT64_MIN; ///< start(): what came before is ignored, not counted as dropped
    int64_t m_newestNs = INT64_MIN;
    std::vector<int64_t> m_cpuNewest; ///< by CPU: the newest event's ts (INT64_MIN: none)
    std::deque<Pending> m_pending;

    CulpritTable m_culprits;
    std::vector<TracedWakeup> m_worst; ///< worst first
    std::deque<TracedWakeup> m_over;   ///< oldest first
    AnatomyFigures m_counts;           ///< the counts only (its lists stay empty)
    uint64_t m_version = 0;
};

} // namespace rtscope
