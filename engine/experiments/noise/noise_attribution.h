#pragma once
/// @file The noise lab's attribution (docs/experiments/noise.md): who took each gap of a busy-polling thread, from
/// the kernel's trace events of its CPU. No thread of its own and no tracing library: the run feeds it the pollers'
/// gaps and the trace reader's batches on the collector thread, tests feed it TraceEvents built by hand.
///
/// Every nanosecond of a gap [start, end] is charged to the innermost traced context active at that instant, on the
/// gap's CPU: an interrupt handler (irq_handler_entry/exit, by name), an x86 vector (local_timer, the reschedule and
/// call-function IPIs), a softirq (by name), or a thread that was switched in instead of the poller (sched_switch:
/// comm, pid, kernel prio). What no traced context covers is Unexplained (hardware, firmware, a hypervisor, or the
/// kernel's own entry and exit paths around the traced handlers). An NMI is recorded once, when its handler ends
/// (nmi:nmi_handler, with how long it ran): its time inside the gap is taken back from whatever it interrupted (the
/// innermost context then, or the unexplained time) and charged to NoiseKind::Nmi. The poller was running at the gap's
/// start (it had just read the clock), so each gap starts with nothing nested: only the events inside the gap matter,
/// and a gap is charged the same whatever events before it were lost.
///
/// Events arrive late: sorted within a batch, but a later batch may hold events up to one reader poll older than the
/// previous batch's newest. Gaps are therefore buffered and settled only once the events of their time have surely
/// arrived (settle(): up to a watermark well behind the newest event, and never past what the poller has reported),
/// and all at finish(). Time inside a span the kernel lost events for (a Lost event) is Unexplained, whatever the
/// events around it say, and counted in lostNs. Memory is bounded: events and gaps are let go once settled, and at
/// most kMaxEventsPerCpu events wait per CPU (beyond that the oldest are let go and their span treated as lost).
#include "engine/experiments/noise/noise_snapshot.h"
#include "engine/pipeline/trace_event.h"

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace rtscope {

/// @brief A gap between two clock reads of a poller: [startNs, endNs], CLOCK_MONOTONIC (the trace clock "mono").
struct NoiseGap {
    int64_t startNs = 0;
    int64_t endNs = 0;
};

/// @brief What the settled gaps of one measured CPU add up to.
struct NoiseCpuAttribution {
    int cpu = -1;
    int tid = 0;                ///< the poller: its time is nobody's noise
    int64_t settledNs = 0;      ///< every gap that ends at or before this is in the figures below (0: none yet)
    uint64_t gaps = 0;          ///< settled gaps
    int64_t noiseNs = 0;        ///< their total length
    int64_t maxSingleNs = 0;    ///< the longest
    int64_t lostNs = 0;         ///< gap time inside spans with lost events (charged to Unexplained)
    uint64_t untouchedGaps = 0; ///< gaps no traced work touched at all (all Unexplained)
    /// Time and count per kind (index NoiseKind): the times add up to noiseNs exactly. A count is how many times
    /// traced work of that kind ran inside a gap; Unexplained counts untouchedGaps; Untraced counts gaps.
    std::array<int64_t, kNoiseKindCount> kindNs{};
    std::array<uint64_t, kNoiseKindCount> kindCount{};
};

class NoiseAttribution {
public:
    /// @brief How far behind the newest event the watermark of settle() trails: ten reader polls (a later batch
    /// holds events up to one poll older than the previous one's newest).
    static constexpr int64_t kSettleLagNs = 100'000'000;
    /// @brief Events waiting per CPU before the oldest are let go (their span then counts as lost): 18.9 MB.
    static constexpr size_t kMaxEventsPerCpu = size_t(1) << 18;
    /// @brief Gaps waiting per CPU before the oldest is settled with the events there are.
    static constexpr size_t kMaxPendingGapsPerCpu = size_t(1) << 16;
    /// @brief Distinct culprits kept; beyond, new ones are summed into one "(others)" entry per CPU and kind.
    static constexpr size_t kMaxCulpritEntries = 8192;

    /// @brief A measured CPU and its poller's tid (0: not known yet, setTid()).
    struct Target {
        int cpu = -1;
        int tid = 0;
    };

    /// @param traced false: no trace events will come; every gap is settled at once as NoiseKind::Untraced.
    NoiseAttribution(const std::vector<Target>& targets, bool traced);

    void setTid(size_t index, int tid);
    /// @brief A batch of the trace reader, sorted by time (events of CPUs not measured are ignored).
    void addEvents(std::span<const TraceEvent> batch);
    /// @brief A gap of poller @p index; gaps of one poller come in order.
    void addGap(size_t index, const NoiseGap& gap);
    /// @brief Poller @p index has added every gap that starts before @p ns (its latest clock read).
    void setProgress(size_t index, int64_t ns);
    /// @brief Settles the gaps that end at or before both @p watermarkNs and their poller's progress. Untraced: the
    /// watermark does not matter.
    void settle(int64_t watermarkNs);
    /// @brief settle() at the default watermark: kSettleLagNs behind the newest event.
    void settle() { settle(defaultWatermarkNs()); }
    /// @brief Settles every gap (the run is over: every event has arrived).
    void finish();

    int64_t newestEventNs() const { return m_newestNs; }
    int64_t defaultWatermarkNs() const;
    bool traced() const { return m_traced; }
    size_t cpuCount() const { return m_cpus.size(); }
    const NoiseCpuAttribution& cpu(size_t index) const { return m_cpus[index].figures; }

    /// @brief Every CPU's culprits, by totalNs (longest first; ties by name), at most @p max; percent of
    /// @p runtimeNs[index of its CPU] (0 where that is 0 or missing). Unexplained and Untraced time appear as one
    /// culprit per CPU each, named by noiseKindLabel(); its count is the gaps with such time, its maxNs the most in
    /// one gap.
    std::vector<NoiseCulprit> culprits(std::span<const int64_t> runtimeNs, size_t max) const;

    uint64_t lostEvents() const { return m_lostEvents; }   ///< the kernel's (and the queue's) count of lost events
    uint64_t lossReports() const { return m_lossReports; } ///< Lost events seen
    uint64_t lateEvents() const { return m_lateEvents; }   ///< arrived after their time was settled (ignored)
    uint64_t shedEvents() const { return m_shedEvents; }   ///< let go over kMaxEventsPerCpu
    /// @brief Events waiting to be settled, over every CPU (the bound's witness).
    size_t bufferedEvents() const;

private:
    struct Frame {
        NoiseKind kind = NoiseKind::Thread;
        int match = 0;      ///< which exit closes it: (source << 24) | number; -1 for a thread
        size_t culprit = 0; ///< index into m_culprits
        int64_t ns = 0;     ///< time charged to it in this gap
    };
    struct Span {
        int64_t fromNs = 0;
        int64_t toNs = 0;
    };
    struct Cpu {
        NoiseCpuAttribution figures;
        std::deque<TraceEvent> events; ///< sorted by time
        std::deque<NoiseGap> pending;
        std::vector<Span> lost; ///< spans of lost events not yet behind every pending gap
        int64_t progressNs = 0;
        int64_t keptFromNs = INT64_MIN;       ///< events before this were let go
        int64_t lastSettledEndNs = INT64_MIN; ///< the end of the latest settled gap
        std::vector<Frame> frames;            ///< scratch for one gap: frames[0] the thread switched in, if any
    };

    void insertEvents(Cpu& c, std::span<const TraceEvent> sorted);
    void settleCpu(size_t index, int64_t limitNs);
    void attribute(size_t index, const NoiseGap& gap);
    /// Applies event @p e of the gap that started at @p gapStartNs; an NMI takes its time back from the innermost
    /// frame or from @p unexplained (what has been charged so far).
    void apply(size_t index, const TraceEvent& e, int64_t gapStartNs, bool& touched, int64_t& unexplained);
    /// Charges [fromNs, toNs) to the innermost frame (or to @p unexplained), less what lies in lost spans.
    void charge(Cpu& c, int64_t fromNs, int64_t toNs, int64_t& unexplained);
    void close(Cpu& c, size_t frameIndex); ///< closes that frame and every frame above it
    void trim(Cpu& c, int64_t keepFromNs);
    /// The culprit entry of @p name on CPU @p index (made on first use, with @p id, @p vector and @p prio as
    /// NoiseCulprit has them; @p sched and @p prio the latest seen).
    size_t culpritIndex(size_t index, NoiseKind kind, const std::string& name, int pid, const std::string& sched,
                        int64_t id = -1, bool vector = false, int prio = -2);
    void addRemainder(size_t index, NoiseKind kind, int64_t ns, bool countKind);

    std::vector<Cpu> m_cpus;
    std::vector<int> m_indexOfCpu; ///< by CPU number: index into m_cpus, −1 when not measured
    bool m_traced = true;
    int64_t m_newestNs = 0;
    uint64_t m_lostEvents = 0;
    uint64_t m_lossReports = 0;
    uint64_t m_lateEvents = 0;
    uint64_t m_shedEvents = 0;
    std::vector<NoiseCulprit> m_culprits;
    std::map<std::tuple<size_t, NoiseKind, std::string, int>, size_t> m_culpritIndex;
    std::vector<TraceEvent> m_merge; ///< scratch for a late batch
};

} // namespace rtscope
