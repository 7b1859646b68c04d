#pragma once
/// @file A knob: one machine setting the doctor may change for a trial and put back (docs/doctor.md, "Knobs").
///
/// Every knob is described by a KnobChange: its kind, its target (what it is a setting of: an IRQ number, a sysctl
/// name, a thread), the one path it acts on, the value it had (`from`, read from the machine right before the change,
/// never assumed) and the value it is set to (`to`). The undo journal (journal.h) stores exactly these five strings,
/// so a knob rebuilt from a journal is the same knob. makeKnob() is the one door in, for a new knob and for a
/// journal's alike: the target must be one the kind knows (its grammar), the path must be the one the target derives
/// (and lie under the roots the doctor may change, allowedRootsText()), and each value must be one the knob takes.
/// A journal is root-owned state an attacker may have planted: nothing it names is written unless it passed here.
///
/// Why a virtual base class and not a concept (the experiments use one, engine/experiments/experiment_host.h): the
/// session, the journal and the trial loop hold "any knob" in one list and revert them in reverse order; a fix is a
/// list of knobs of different kinds (a cpuset partition is ten). Nothing here is on a hot path.
#include "engine/doctor/expected.h"
#include "engine/doctor/root_fs.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace rtscope::doctor {

enum class KnobKind {
    IrqAffinity,      ///< /proc/irq/N/smp_affinity_list; target "N"; value a CPU list
    Sysctl,           ///< /proc/sys/...; target a name of sysctlNames(); value as that sysctl takes
    Thp,              ///< /sys/kernel/mm/transparent_hugepage/{enabled,defrag,khugepaged/defrag}
    WorkqueueCpumask, ///< /sys/devices/virtual/workqueue/cpumask; target "cpumask"; value a CPU list
    CpuidleState,     ///< /sys/devices/system/cpu/cpuN/cpuidle/stateK/disable; target "cpuN/stateK"; "0" | "1"
    DebugfsMount,     ///< a debugfs on /sys/kernel/debug; target "/sys/kernel/debug"; "mounted" | "unmounted"
    PreemptMode,      ///< /sys/kernel/debug/sched/preempt; target "sched/preempt"; none|voluntary|full|lazy
    CpusetDirectory,  ///< a cpuset directory named rtscope-doctor-*; target its path; "present" | "absent"
    CpusetFile,       ///< a control file of such a directory, or of a cpuset hierarchy's root (cpuset_partition.h)
    ThreadAffinity,   ///< sched_setaffinity of one thread; target "TID@STARTTIME"; value a CPU list
    ThreadScheduling, ///< sched_setscheduler + nice of one thread; target "TID@STARTTIME"; "fifo 80", "other 0"
    CpuDmaLatency,    ///< a PM QoS request held open on /dev/cpu_dma_latency; target "held"; value in µs
};

/// @brief "irq-affinity", "sysctl", …: the kind's name in the journal and in a knob's id.
const char* kindName(KnobKind kind);
std::optional<KnobKind> kindFromName(std::string_view name);

/// @brief One change, as the journal records it and as a person reads it ("from → to").
struct KnobChange {
    KnobKind kind = KnobKind::Sysctl;
    std::string target; ///< what the setting belongs to; its grammar is the kind's
    std::string path;   ///< the file (or directory, or /proc/TID/task/TID) the knob acts on, from the root
    std::string from;   ///< the value before the change, read from the machine; empty until Knob::capture()
    std::string to;     ///< the value the change sets
    bool operator==(const KnobChange&) const = default;
};

/// @brief A machine setting that can be read, applied and reverted. Obtained from makeKnob() or one of the typed
/// factories below; owned by a DoctorSession (session.h) while it is applied.
///
/// Values are strings in one canonical form per kind (a CPU list as "0-1", a THP mode as "madvise"): read() returns
/// it, so "the value read back is the value set" is a string comparison.
class Knob {
public:
    virtual ~Knob();
    Knob(const Knob&) = delete;
    Knob& operator=(const Knob&) = delete;

    const KnobChange& change() const { return m_change; }
    KnobKind kind() const { return m_change.kind; }
    /// @brief "sysctl:kernel.timer_migration": stable across runs; unique among the knobs of one session.
    std::string id() const;
    /// @brief For a person: "IRQ 36 (virtio1-req.0) CPUs", "kernel.timer_migration", "thread 4242 (hog) CPUs".
    virtual std::string label() const = 0;

    /// @brief The value now, as the machine reports it, in the canonical form; or why it cannot be read.
    [[nodiscard]] virtual Expected<std::string> read() const = 0;
    /// @brief Reads the value into change().from. The session calls it right before it journals the change, so
    /// `from` is what the machine had, not what it was expected to have.
    [[nodiscard]] Error capture();
    /// @brief Sets `to` (nothing is written when the machine has it already) and reads it back: an Error when the
    /// kernel refused, with a sentence of why ("IRQ 36 is managed: …"), or when another value reads back.
    [[nodiscard]] virtual Error apply();
    /// @brief Sets `from` back and reads it back. Also what --undo and the guardian do with a journal's knob.
    [[nodiscard]] virtual Error revert();
    /// @brief The shell command that puts `from` back by hand ("echo 1 > /proc/sys/kernel/timer_migration"),
    /// for the sentences of a revert that failed and for docs/doctor.md.
    virtual std::string undoCommand() const = 0;

protected:
    Knob(RootFs& fs, KnobChange change);
    /// @brief Writes @p value (canonical form); the Error is the knob's own sentence.
    [[nodiscard]] virtual Error write(const std::string& value) = 0;
    /// @brief write() unless read() gives @p value already, then read() must give @p value.
    [[nodiscard]] Error setAndCheck(const std::string& value);

    RootFs& m_fs;
    KnobChange m_change;
};

/// @brief Where a KnobChange comes from: a new knob has no `from` yet (capture() reads it) and may leave `path`
/// empty (it is derived); a journal's must have both, and its path must be the derived one.
enum class KnobOrigin { New, Journal };

/// @brief The one door in: checks @p change as described at the top of this file and builds its knob. The Error
/// (InvalidConfig) is one sentence naming the field: "target 'kernel.core_pattern' is not a sysctl the doctor may
/// change (…)", "path '/etc/passwd' is outside the paths the doctor may change (…)".
[[nodiscard]] Expected<std::unique_ptr<Knob>> makeKnob(RootFs& fs, KnobChange change, KnobOrigin origin);

/// @brief The roots a knob's path may lie under, for sentences: "/proc/sys, /proc/irq, …".
std::string allowedRootsText();
/// @brief Whether @p path lies under one of those roots: absolute, no "." or ".." component, no empty component.
/// makeKnob() checks it before anything else, so a journal's path is judged before it is even compared.
bool pathAllowed(std::string_view path);

/// @brief The sysctls the doctor may change (kernel.timer_migration, kernel.sched_rt_runtime_us, the watchdogs, …):
/// a list, not every /proc/sys path, because a sysctl such as kernel.core_pattern or kernel.modprobe names a
/// program the kernel runs as root, and a planted journal must not be able to set one. Adding one is one row in
/// knob_rules.cpp with the values it takes.
std::vector<std::string> sysctlNames();

// The typed factories the trial loop uses: makeKnob(New) with the change built from typed arguments.
[[nodiscard]] Expected<std::unique_ptr<Knob>> irqAffinityKnob(RootFs& fs, int irq, const std::vector<int>& cpus);
[[nodiscard]] Expected<std::unique_ptr<Knob>> sysctlKnob(RootFs& fs, const std::string& name, const std::string& value);
/// @brief @p setting is "enabled", "defrag" or "khugepaged/defrag".
[[nodiscard]] Expected<std::unique_ptr<Knob>> thpKnob(RootFs& fs, const std::string& setting, const std::string& value);
[[nodiscard]] Expected<std::unique_ptr<Knob>> workqueueCpumaskKnob(RootFs& fs, const std::vector<int>& cpus);
/// @brief Disables (or enables) idle state @p state of @p cpu. Unavailable, with the reason, when the CPU has no
/// idle states (no cpuidle driver, as in most virtual machines).
[[nodiscard]] Expected<std::unique_ptr<Knob>> cpuidleStateKnob(RootFs& fs, int cpu, int state, bool disabled);
/// @brief A debugfs on /sys/kernel/debug (mounted when the knob is applied, unmounted when reverted if it was not
/// mounted before): what the preemption mode needs.
[[nodiscard]] Expected<std::unique_ptr<Knob>> debugfsMountKnob(RootFs& fs);
/// @brief The PREEMPT_DYNAMIC mode; debugfs must be mounted (debugfsMountKnob first, in the same fix).
[[nodiscard]] Expected<std::unique_ptr<Knob>> preemptModeKnob(RootFs& fs, const std::string& mode);

/// @brief A thread as the doctor names it: its TID and the start time /proc gives it (field 22 of stat, clock ticks
/// since boot). A TID is reused once its thread has gone; the start time tells the two apart, so a thread that has
/// exited, or whose TID now belongs to another, is never touched.
struct ThreadIdentity {
    pid_t tid = 0;
    unsigned long long startTime = 0;
    /// @brief "TID@STARTTIME", the target of the thread knobs.
    std::string target() const;
    static std::optional<ThreadIdentity> fromTarget(std::string_view target);
    bool operator==(const ThreadIdentity&) const = default;
};
/// @brief The identity of thread @p tid now (through @p fs's /proc); Unavailable when it does not exist.
[[nodiscard]] Expected<ThreadIdentity> threadIdentity(const RootFs& fs, pid_t tid);
/// @brief Moves the thread to @p cpus (sched_setaffinity). Refused, with a sentence, when the thread is not the one
/// @p thread names any more.
[[nodiscard]] Expected<std::unique_ptr<Knob>> threadAffinityKnob(RootFs& fs, const ThreadIdentity& thread,
                                                                 const std::vector<int>& cpus);
/// @brief Sets the thread's policy and priority: @p value "fifo 80", "rr 10", "other 0" (the number is the nice
/// value for other, batch and idle). SCHED_DEADLINE threads are refused (their runtime/deadline/period are not a
/// priority the doctor may trade).
[[nodiscard]] Expected<std::unique_ptr<Knob>> threadSchedulingKnob(RootFs& fs, const ThreadIdentity& thread,
                                                                   const std::string& value);
/// @brief A request of @p microseconds on /dev/cpu_dma_latency (Documentation/power/pm_qos_interface.rst): applied,
/// the knob holds the device open, and the kernel keeps every CPU out of idle states slower to leave than that;
/// reverted, it closes it. The request lives as long as the descriptor: when the doctor dies, the kernel drops it,
/// so neither the guardian nor --undo has anything to write for it (they read it back).
[[nodiscard]] Expected<std::unique_ptr<Knob>> cpuDmaLatencyKnob(RootFs& fs, int microseconds);

} // namespace rtscope::doctor
