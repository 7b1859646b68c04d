#pragma once
/// @file The doctor's diagnosis (docs/doctor.md, "Rules"): pure functions from what a traced baseline measured (the
/// latency anatomy, engine/pipeline/anatomy_figures.h) and the machine's facts (machine_facts.h) to findings ranked
/// by the share of the measured lateness each explains, each with its fix. No I/O: tests feed them fixtures.
#include "engine/doctor/findings.h"
#include "engine/doctor/machine_facts.h"
#include "engine/experiments/noise/noise_snapshot.h"
#include "engine/pipeline/anatomy_figures.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rtscope::doctor {

/// @brief One culprit of the anatomy with its share of the worst wake-ups' lateness.
struct CulpritShare {
    CulpritKind kind = CulpritKind::Task;
    int64_t id = 0;       ///< TID, IRQ number, softirq vector, vector, hrtimer callback
    std::string name;     ///< comm or handler
    int32_t prio = -2;    ///< tasks: the kernel prio (0..98 real-time: 99 − rt_priority; 100..139 normal)
    uint64_t wakeups = 0; ///< wake-ups it delayed, of all analysed
    int64_t totalNs = 0;  ///< its time in them
    int64_t worstNs = 0;
    uint64_t tailWakeups = 0; ///< of the worst wake-ups
    int64_t tailNs = 0;       ///< its time in the worst wake-ups
};

/// @brief The measured lateness the findings are shares of, from the anatomy.
struct MeasuredLateness {
    uint64_t analysed = 0;            ///< wake-ups analysed (the culprit table's)
    int64_t analysedNs = 0;           ///< their lateness together (mean of the run × analysed)
    uint64_t tailWakeups = 0;         ///< the worst wake-ups kept with their anatomy
    int64_t tailNs = 0;               ///< their lateness together
    int64_t tailThresholdNs = 0;      ///< the least late of them
    uint64_t tailIdleExits = 0;       ///< of them, those whose timer interrupted the idle task
    int64_t tailIdleTimerDelayNs = 0; ///< their timer IRQ delays together (the exit from idle is in them)
    int64_t tailTimerDelayNs = 0;     ///< the timer IRQ delays of the others together
    std::vector<CulpritShare> culprits;
    /// The figures are a busy poller's gaps (summarizeNoise), not wake-ups: the evidence says so.
    bool noise = false;
};

/// @brief The lateness of a traced run: @p figures' culprit table and worst wake-ups, @p meanNs its mean latency.
MeasuredLateness summarizeLateness(const AnatomyFigures& figures, double meanNs);
/// @brief The noise lab's attribution of CPU @p cpu as the diagnosis's evidence (`doctor --noise`): every gap is
/// "analysed" and in the tail, the noise is the lateness, and each named culprit (device IRQ, x86 vector, softirq,
/// thread) has its time as its share. Unexplained and untraced time stays in the total, so no share is inflated.
MeasuredLateness summarizeNoise(const NoiseSnapshot& snap, int cpu);

/// @brief What the diagnosis needs to know of the measurement itself.
struct DiagnosisContext {
    int cpu = -1;
    Policy policy = Policy::Fifo;
    int priority = 80;
    std::vector<int> measuringTids; ///< the doctor's own measuring threads: never culprits
    std::vector<int> onlineCpus;
    bool loadHogs = false; ///< the run's own hogs share the CPU (--load hogs)
};

/// @brief The findings, ranked: tail share first, then the share of all lateness, then the rules' order. Each has its
/// fix (FixKind and its knob changes); a culprit that no rule can act on still appears, its fix boot-only.
std::vector<Finding> diagnose(const MachineFacts& facts, const MeasuredLateness& lateness, const DiagnosisContext& ctx);

/// @brief "kworker/1:2" → 1, "ksoftirqd/0" → 0, "kworker/u8:3" → -1: the CPU a per-CPU kernel thread is bound to.
int perCpuKthreadCpu(const std::string& comm);

} // namespace rtscope::doctor
