#pragma once
/// @file What the doctor finds and what its trials prove (docs/doctor.md, "Findings" and "Trials"): plain data shared
/// by the diagnosis (diagnosis.h), the trial loop (doctor_run.h), the outputs (doctor_report.h, recipe.h), the CLI and
/// the GUI. Every figure is a measured one; a trial that did not run says why and carries no figures.
#include "engine/doctor/knob.h"
#include "engine/pipeline/histogram.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rtscope::doctor {

/// @brief A latency distribution in the four figures the doctor reports (µs) and its sample count.
struct LatencyFigures {
    double p50Us = 0;
    double p99Us = 0;
    double p99_9Us = 0;
    double maxUs = 0;
    uint64_t samples = 0;
    bool operator==(const LatencyFigures&) const = default;
};
/// @brief The figures of @p histogram (all zero when it is empty).
LatencyFigures figuresOf(const Histogram& histogram);
/// @brief "12.3": microseconds with one decimal, as every doctor text writes a latency.
std::string usText(double us);
/// @brief "38 %": a share 0…1 as a person reads it.
std::string shareText(double share);

/// @brief What a fix changes. Each run-time kind maps to knobs (knob.h); boot-only ones are recipe lines.
enum class FixKind {
    ThreadAffinity,   ///< move a thread off the measured CPU
    ThreadPriority,   ///< lower (or raise) a thread's policy/priority
    IrqAffinity,      ///< move a device interrupt off the measured CPU
    Sysctl,           ///< a sysctl of the doctor's list (timer migration, RT throttling, …)
    Thp,              ///< transparent huge pages and their defragmentation
    WorkqueueCpumask, ///< unbound kworkers off the measured CPU
    CpuDmaLatency,    ///< hold /dev/cpu_dma_latency: no deep idle state
    CpuidleState,     ///< disable one idle state
    PreemptMode,      ///< PREEMPT_DYNAMIC's run-time mode (debugfs)
    CpusetPartition,  ///< the measured CPU in a partition of its own (cgroup cpuset, v1 or v2)
    KernelCmdline,    ///< boot-only: kernel command-line words (isolcpus, nohz_full, rcu_nocbs, …)
};
/// @brief "thread-affinity", "irq-affinity", "sysctl", …, "kernel-cmdline": the JSON `fix.kind`.
const char* fixKindName(FixKind kind);

/// @brief One fix: what it changes, from what to what, and the knobs that make it at run time.
struct Fix {
    FixKind kind = FixKind::Sysctl;
    std::string target;  ///< for a person: "IRQ 36 (virtio1-req.0)", "kernel.timer_migration", "thread 4242 (x)"
    std::string from;    ///< the value now, as read ("1", "0-1", "fifo 90")
    std::string to;      ///< the value the fix sets
    bool runtime = true; ///< can be made and undone without a reboot
    /// The changes that make it, in order (makeKnob(KnobOrigin::New) each time a trial applies it: a knob is used
    /// once). Empty for a boot-only fix.
    std::vector<KnobChange> changes;
    /// For the recipe: the words, lines or commands that make it permanent (a sysctl.d line, a command-line word).
    std::string permanent;
};

enum class Verdict { Helped, NoEffect, Hurt, NotTried };
/// @brief "helped", "no_effect", "hurt", "not_tried": the JSON `trial.verdict`.
const char* verdictName(Verdict verdict);

/// @brief One measured phase of a trial: without the fix (A, the baseline state) or with it (B).
struct PhaseFigures {
    bool withFix = false;
    LatencyFigures figures;
};

/// @brief An alternated trial (A B A B …): the fix applied only during the B phases, the machine put back after each.
struct TrialResult {
    Verdict verdict = Verdict::NotTried;
    std::string why;       ///< the verdict's reason in numbers, or why it was not tried
    LatencyFigures before; ///< the A phases together
    LatencyFigures after;  ///< the B phases together
    std::vector<PhaseFigures> phases;
    Histogram beforeHistogram;
    Histogram afterHistogram;
    bool restored = true; ///< every knob read back as before after the trial
};

/// @brief One cause of lateness the doctor found, with its evidence and its fix.
struct Finding {
    std::string id;       ///< stable within a run: "thread-4242", "irq-36", "idle-exit", "timer-migration", …
    std::string rule;     ///< the rule that found it (docs/doctor.md, "Rules"): "thread-on-cpu", "device-irq", …
    std::string title;    ///< one line naming the culprit
    std::string evidence; ///< the numbers behind it (anatomy and facts)
    /// The share of the measured lateness it explains, 0…1: of the worst wake-ups' (tail) and of all analysed ones.
    double tailShare = 0;
    double share = 0;
    Fix fix;
    TrialResult trial;
};

} // namespace rtscope::doctor
