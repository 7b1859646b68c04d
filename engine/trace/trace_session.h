#pragma once
/// @file A private tracefs instance that records the scheduler, interrupt and timer events of the measured CPUs, and
/// the thread that reads them: the kernel's own account of what happened around each wake-up (issue 16, "latency
/// anatomy"; the analysis is engine/pipeline/wakeup_anatomy.h).
///
/// The instance ("rtscope-<pid>-<n>" under <tracefs>/instances) is this session's alone: its trace clock is "mono"
/// (timestamps are CLOCK_MONOTONIC nanoseconds, the clock the measuring threads read), its cpumask the measured CPUs,
/// its events those listed in kTraceEvents that the kernel has. Nothing outside the instance is written: not the
/// top-level buffer, tracer, events, clock or tracing_on. The instance is removed by stop(), by the destructor and
/// by a start() that fails part-way; one left behind by a process that was killed (rtscope-<dead pid>-*) is removed
/// by the next start().
///
/// The reader thread ("rtscope-trace", SCHED_OTHER, pinned to a CPU that is not measured when there is one) drains
/// each measured CPU's trace_pipe_raw every pollMs without blocking, decodes the sub-buffers with libtraceevent into
/// TraceEvents and hands them to the batch handler, on the reader thread. A callback rather than a ring: the
/// kernel's per-CPU buffers (bufferKbPerCpu) already are the bounded queue between the measured CPUs and the
/// reader, with loss detection built in; a second ring would add a second place to drop events and a second copy,
/// and the consumer (matching events to wake-ups) has to keep a time window of its own anyway. A slow handler only
/// delays the next drain; what the kernel then drops is counted (Lost events in the stream, TraceStats), never
/// hidden. The handler must not throw (a throw is caught and counted) and must not call stop().
///
/// Where tracefs is: its mount at kDefaultTracingDir, else any tracefs mount. When there is none, start() mounts it
/// at kDefaultTracingDir as root (what libtracefs' own tracefs_tracing_dir() does, less its fallback of mounting
/// debugfs) and leaves it mounted; without CAP_SYS_ADMIN it fails with the command to run. probe() only looks.
/// start(), stop() and the accessors belong to one thread (the owner); stats() and mark() may be called from any.
#include "engine/pipeline/trace_event.h"
#include "engine/rt/cpu_topology.h"
#include "engine/trace/trace_dat.h"
#include "engine/util/error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// @brief The events a session enables, "system/event", each where the kernel has it (irq_vectors are x86 only).
inline constexpr const char* kTraceEvents[] = {
    "sched/sched_switch",
    "sched/sched_waking",
    "sched/sched_wakeup",
    "sched/sched_migrate_task",
    "irq/irq_handler_entry",
    "irq/irq_handler_exit",
    "irq/softirq_entry",
    "irq/softirq_exit",
    "timer/hrtimer_expire_entry",
    "timer/hrtimer_expire_exit",
    "irq_vectors/local_timer_entry",
    "irq_vectors/local_timer_exit",
    "irq_vectors/reschedule_entry",
    "irq_vectors/reschedule_exit",
    "irq_vectors/call_function_entry",
    "irq_vectors/call_function_exit",
    "irq_vectors/call_function_single_entry",
    "irq_vectors/call_function_single_exit",
    "nmi/nmi_handler",
};

/// @brief Where tracefs is mounted by default, and where a session mounts it when it is not.
inline constexpr const char* kDefaultTracingDir = "/sys/kernel/tracing";

struct TraceConfig {
    std::vector<int> cpus;     ///< the measured CPUs: the instance records these only
    std::string tracingDir;    ///< empty: the mounted tracefs (kDefaultTracingDir first); else exactly this directory
    bool mountIfNeeded = true; ///< with tracingDir empty: mount tracefs at kDefaultTracingDir when it is not mounted
    int bufferKbPerCpu = 4096; ///< the instance's ring buffer per measured CPU
    int pollMs = 10;           ///< how often the reader drains the buffers (1..50: the stop budget is 100 ms)
    /// Also run the timerlat tracer in the instance, where the kernel has it (CONFIG_TIMERLAT_TRACER). Off by
    /// default: it starts a FIFO 95 thread of its own on every CPU it measures, which would compete with ours.
    bool timerlatTracer = false;
    /// Also keep every sub-buffer read, unchanged, for a trace-cmd .dat file (trace_dat.h); null: none. Shared
    /// so that it outlives the session (the file is written after stop()) and spans a restarted one.
    std::shared_ptr<TraceDatCapture> capture;
};

/// @brief Whether tracing can work here, and if not, why and what to do.
struct TraceProbe {
    bool kernelHasTracefs =
        false;               ///< /proc/filesystems lists tracefs (CONFIG_TRACING): nothing else can fix its absence
    bool usable = false;     ///< start() can work (possibly after mounting tracefs itself: needsMount)
    bool needsMount = false; ///< tracefs is not mounted; start() will mount it at kDefaultTracingDir
    std::string tracingDir;  ///< where tracefs is (or will be) mounted
    std::string reason;      ///< not usable: the exact reason and the fix; usable: empty, or what start() will do
    std::vector<std::string> missingEvents; ///< of kTraceEvents, those this kernel lacks (known once mounted)
    bool timerlatTracer = false;            ///< available_tracers lists timerlat
    bool osnoiseTracer = false;             ///< available_tracers lists osnoise
};

/// @brief What the reader did. Losses are never hidden: every sub-buffer that came after a loss is also a Lost event
/// in the stream, at the place of the gap.
struct TraceStats {
    uint64_t events = 0;        ///< decoded and handed on (Lost markers included)
    uint64_t subBuffers = 0;    ///< sub-buffers (pages) read
    uint64_t bytes = 0;         ///< bytes read
    uint64_t batches = 0;       ///< handler calls
    uint64_t lostEvents = 0;    ///< events the kernel said it dropped
    uint64_t lossReports = 0;   ///< sub-buffers that followed a loss (whether or not the kernel said how many)
    uint64_t undecoded = 0;     ///< records of an event type the decoder does not know (skipped)
    uint64_t handlerErrors = 0; ///< exceptions thrown by the handler (caught)
    // At stop, from per_cpu/cpuN/stats (the kernel's own count, summed over the measured CPUs):
    uint64_t kernelOverrun = 0; ///< events overwritten before the reader got to them
    uint64_t kernelDropped = 0; ///< events dropped because the buffer was full
    uint64_t unreadAtStop = 0;  ///< events still in the buffer when the reader stopped (not handed on)
    int64_t readerStopNs = 0;   ///< stop(): from the stop request to the reader joined (final drain included)
};

/// @brief Called on the reader thread with the events of one drain, sorted by timestamp within the batch (a CPU's
/// sub-buffer committed late can hold events older than the previous batch's newest, by up to one poll period).
using TraceBatchHandler = std::function<void(std::span<const TraceEvent> batch)>;

class TraceSession {
public:
    TraceSession();
    ~TraceSession(); ///< stops (the instance is removed)
    TraceSession(const TraceSession&) = delete;
    TraceSession& operator=(const TraceSession&) = delete;

    /// @brief Whether a session can start here; @p tracingDir as TraceConfig::tracingDir. Changes nothing (it does
    /// not mount).
    static TraceProbe probe(const std::string& tracingDir = {});

    /// @brief Creates and configures the instance, starts the reader. On an error nothing is left behind (no
    /// instance, no thread); the message names the step and the fix. @p topology gives the reader's CPU.
    Error start(const TraceConfig& config, const CpuTopology& topology, TraceBatchHandler onBatch);
    /// @brief Stops recording, lets the reader hand on what is left (for at most half the join budget), joins it
    /// within kJoinBudgetMs, removes the instance. Safe to call twice. An error says what could not be removed.
    Error stop();
    bool running() const;

    std::string instanceName() const; ///< "rtscope-<pid>-<n>"; empty when not running
    std::string instanceDir() const;  ///< "<tracefs>/instances/<name>"; empty when not running
    std::string tracingDir() const;   ///< the tracefs in use; empty when not running
    bool mountedTracefs() const;      ///< this session mounted tracefs (it is left mounted, as systemd would have it)
    std::vector<std::string> enabledEvents() const; ///< "system/event"
    std::vector<std::string> missingEvents() const; ///< of kTraceEvents (and "timerlat tracer" when asked), absent
    int readerCpu() const;                          ///< −1: not pinned (every usable CPU is measured)
    TraceStats stats() const;                       ///< live while running; final after stop()

    /// @brief Writes @p text into the instance's trace_marker: it comes back as a Marker event, stamped by the trace
    /// clock on the writer's CPU (recorded only when that CPU is traced). Any thread; not for a real-time path.
    Error mark(std::string_view text);

    /// @brief The kernel function at @p address ("hrtimer_wakeup"), from /proc/kallsyms read on first use; empty when
    /// unknown (addresses hidden by kptr_restrict read as 0). Any thread; not for the reader's handler.
    static std::string functionName(uint64_t address);

    /// @brief Removes the instances "rtscope-<pid>-<n>" under @p tracingDir whose process is gone; returns how many.
    static int removeStaleInstances(const std::string& tracingDir);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace rtscope
