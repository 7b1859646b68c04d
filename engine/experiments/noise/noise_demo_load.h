#pragma once
/// @file The noise lab's demo load (docs/experiments/noise.md, "Demo load"): one small, bounded source of one kind of
/// noise on the measured CPU, so a class sees each kind appear in the bars and the culprit table. Every load is one
/// thread pinned to that CPU, stopped and joined within kJoinBudgetMs (demoted first if it overstays), on every exit
/// path (stop(), the destructor). None can take the CPU: the real-time one spins a fixed slice of every period.
/// - Disk I/O: writes a small block of a temp file (unlinked as soon as it is opened, so nothing is left behind even
///   after a crash) straight to the disk in a loop (O_DIRECT over blocks written once, so no write waits behind the
///   journal; fdatasync() after each write where the file system refuses O_DIRECT); the block device's completion
///   interrupts and the block softirq land on the CPU the queue's interrupt is routed to — interruptReport() says where
///   they actually landed.
/// - RT thread: a SCHED_FIFO thread spins spinNs every periodNs (300 µs every 20 ms: 1.5 % of the CPU).
/// - Timer storm: many timerfds on the CPU, each firing every timerPeriodNs, staggered: hrtimer interrupts and the
///   thread woken by them.
#include "engine/rt/rt_thread.h"
#include "engine/rt/sched_policy.h"
#include "engine/util/error.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rtscope {

enum class NoiseDemoKind : uint8_t { None, DiskIo, RtThread, TimerStorm };
inline constexpr NoiseDemoKind kNoiseDemoKinds[] = {NoiseDemoKind::None, NoiseDemoKind::DiskIo, NoiseDemoKind::RtThread,
                                                    NoiseDemoKind::TimerStorm};

/// @brief "none", "disk-io", "rt-thread", "timer-storm" (settings and presets).
const char* noiseDemoKindName(NoiseDemoKind kind);
/// @brief "no demo load", "disk I/O (interrupts)", "periodic RT thread", "timer storm".
const char* noiseDemoKindLabel(NoiseDemoKind kind);
/// @brief The kind named @p name as noiseDemoKindName() writes it; None for any other name (@p ok false).
NoiseDemoKind noiseDemoKindFromName(const std::string& name, bool* ok = nullptr);

struct NoiseDemoConfig {
    static constexpr int64_t kMaxDutyPercent = 10; ///< the RT thread never takes more of its CPU than this

    NoiseDemoKind kind = NoiseDemoKind::None;
    int cpu = -1; ///< the measured CPU; every load thread is pinned to it
    /// RT thread: SCHED_FIFO at this priority (above a real-time poller's, or it would never preempt it).
    int rtPriority = 50;
    int64_t spinNs = 300'000;      ///< RT thread: busy time per period
    int64_t periodNs = 20'000'000; ///< RT thread: its period
    int timers = 8;                ///< timer storm: timerfds
    /// Timer storm: each timerfd's interval (8 × 2 ms: 4000 expiries/s; in a virtual machine each costs a VM exit,
    /// so more would take a large share of the CPU)
    int64_t timerPeriodNs = 2'000'000;
    std::string directory = "/var/tmp"; ///< disk I/O: where the temp file is made (tmpfs has no disk: said so)
    int64_t writeBytes = 4096;          ///< disk I/O: one write (a multiple of 4096 B: O_DIRECT's alignment)
    int64_t pauseNs = 1'000'000;        ///< disk I/O: pause between two synced writes

    /// @brief Every problem as a sentence naming the field and its range; empty when valid.
    std::vector<std::string> validate() const;
    /// @brief What the load does, in one sentence: "a SCHED_FIFO 50 thread on CPU 1 spins 300 us every 20 ms
    /// (1.5 % of the CPU)".
    std::string describe() const;
};

/// @brief A running demo load. Not copyable; the destructor stops and joins.
class NoiseDemoLoad {
public:
    NoiseDemoLoad();
    ~NoiseDemoLoad();
    NoiseDemoLoad(const NoiseDemoLoad&) = delete;
    NoiseDemoLoad& operator=(const NoiseDemoLoad&) = delete;

    /// @brief Starts @p config's thread (a None kind starts nothing and succeeds). Refused while one runs; on any
    /// failure nothing runs and no file is left.
    Error start(const NoiseDemoConfig& config);
    /// @brief Stops and joins the thread within kJoinBudgetMs (demoted to SCHED_OTHER if it overstays) and closes the
    /// temp file. Idempotent. Returns false when the join overstayed the budget.
    bool stop();
    /// @brief Asks the thread to stop and returns at once (stop() still joins): a caller that stops several things
    /// asks them all first, so their joins overlap.
    void requestStop();
    bool running() const;
    const NoiseDemoConfig& config() const { return m_config; }
    /// @brief The load thread's kernel tid (0 when none runs).
    int tid() const;
    /// @brief The temp file's path (disk I/O; it was unlinked right after it was opened), or "".
    const std::string& tempPath() const { return m_tempPath; }
    /// @brief Rounds of work done so far: synced writes, RT bursts, timer expiries read.
    uint64_t rounds() const;
    /// @brief What the load did so far ("1234 synced writes", "52 bursts of 300.0 us (SCHED_FIFO 50) on CPU 1"), with
    /// what could not be done (tmpfs: no disk; a write that failed and why).
    std::string status() const;
    /// @brief Disk I/O: the interrupt lines of the temp file's block device and how many times each fired on each
    /// CPU since the load started (/proc/interrupts), e.g. "disk interrupts so far: virtio1-req.0 (IRQ 36): 812 on CPU
    /// 1"; or why they could not be found. "" for the other kinds.
    std::string interruptReport() const;

    struct Shared; ///< what the load thread shares with its owner (noise_demo_load.cpp)

private:
    NoiseDemoConfig m_config;
    std::unique_ptr<RtThread> m_thread;
    std::shared_ptr<Shared> m_shared;
    std::string m_tempPath;
    std::vector<int> m_deviceIrqs;                     ///< the block device's interrupt numbers (disk I/O)
    std::string m_irqNote;                             ///< why they are unknown, when they are
    std::map<int, std::vector<uint64_t>> m_irqAtStart; ///< per IRQ, its per-CPU counts when the load started
};

} // namespace rtscope
