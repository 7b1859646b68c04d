#include "engine/experiments/timers/drift_experiment.h"

#include "engine/experiments/timers/timer_config_util.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

namespace rtscope {

namespace {

// Between "every worker is armed" and the first deadline t0 + P: enough for each worker to see t0 and arm its
// timer, so the first tick is not reported missed because a thread was still waking up.
constexpr int64_t kStartLeadNs = 5 * kNsPerMs;

// Busy work on the wall clock, so the naive loop's schedule slips by exactly the work it did, whoever else
// shares the CPU. Polls both stop flags: a 900 ms work item must not delay Stop.
bool spinUntil(int64_t endNs, const std::atomic<bool>& stop, const std::atomic<bool>& quit)
{
    while (nowNs() < endNs)
        if (stop.load(std::memory_order_relaxed) || quit.load(std::memory_order_relaxed))
            return false;
    return true;
}

// The config as run: the CPU and the tick count resolved against the topology it was validated against.
DriftConfig driftConfigAsRun(const DriftConfig& requested, const CpuTopology& cpus)
{
    DriftConfig c = requested;
    c.cpu = requested.resolvedCpu(cpus);
    c.ticks = requested.tickCount();
    return c;
}

} // namespace

struct DriftRun::Worker {
    WaiterKind kind = WaiterKind::Absolute;
    std::unique_ptr<SpscRing<DriftSample>> ring;
    RtThread thread;
    std::atomic<int> tid{0};
    std::atomic<bool> ready{false};
    std::atomic<bool> done{false};
    std::atomic<bool> completed{false}; ///< reached the tick count (done may also mean stopped or failed)
    std::atomic<int64_t> slackNs{-1};
    std::string error; ///< written by the worker before it sets done (release)
};

DriftRun::DriftRun(const DriftConfig& config, const RunEnvironment& env)
    : m_config(driftConfigAsRun(config, env.topology))
    , m_env(env)
    , m_aggregator(m_config.methods.size(), m_config.periodNs, size_t(m_config.ticks))
{
    bool locked = true;
    int err = 0;
    for (WaiterKind k : m_config.methods) {
        auto w = std::make_unique<Worker>();
        w->kind = k;
        w->ring = std::make_unique<SpscRing<DriftSample>>(kRingCapacity);
        if (!env.allLocked() && !lockRange(w->ring->storage(), w->ring->storageBytes())) {
            locked = false;
            err = errno;
        }
        m_workers.push_back(std::move(w));
    }
    m_memoryLock = rangeLockStatus(env, locked, err, "the rings and the method threads' stacks");
}

DriftRun::~DriftRun()
{
    stop();
}

Error DriftRun::start()
{
    for (auto& wp : m_workers) {
        Worker& w = *wp;
        const ThreadSpec spec = m_env.threadSpec(m_config.policy, m_config.priority, m_config.cpu, "rtscope-drift");
        if (Error e = w.thread.start(spec, [this, &w](const std::atomic<bool>& stop) { methodLoop(w, stop); }))
            return e; // the host stops what did start
        w.tid.store(w.thread.tid(), std::memory_order_relaxed);
    }
    if (Error e = waitUntilWorkersReady(m_workers, "the drift method threads"))
        return e;

    const int64_t t0 = nowNs() + kStartLeadNs;
    const int64_t nominal = m_config.ticks * (m_config.periodNs + m_config.workNs) + m_config.stallNs;
    // A safety net, not a measurement: the naive loop takes n·(P + W + wake-up) by design, and a starved
    // SCHED_OTHER method can be slower still; only a method that stopped answering gets this far.
    m_runLimitNs = t0 + 4 * nominal + 5 * kNsPerSec;
    m_aggregator.setOrigin(t0); // before the collector starts, which is after start() returns
    m_live.store(true);
    m_t0.store(t0, std::memory_order_release);
    return {};
}

void DriftRun::methodLoop(Worker& w, const std::atomic<bool>& stop)
{
    // Slack is per thread (prctl(2)): set it here, then read back what the kernel actually keeps, which under
    // a real-time policy may be 0 whatever was asked.
    setTimerSlack(m_config.timerSlackNs);
    w.slackNs.store(timerSlack(), std::memory_order_relaxed);
    std::unique_ptr<Waiter> waiter = makeWaiter(w.kind, &stop);
    const int64_t period = m_config.periodNs;
    const int64_t work = m_config.workNs;
    const int64_t ticks = m_config.ticks;
    const int64_t stallTick = m_config.stallTick;
    const int64_t stallNs = m_config.stallNs;
    const bool naive = w.kind == WaiterKind::Relative;
    w.ready.store(true, std::memory_order_release);

    int64_t t0 = 0;
    while ((t0 = m_t0.load(std::memory_order_acquire)) == 0) {
        if (stop.load(std::memory_order_relaxed)) {
            w.done.store(true, std::memory_order_release);
            return;
        }
        const timespec pause{0, 100'000};
        nanosleep(&pause, nullptr);
    }
    if (Error e = waiter->start(t0 + period, period)) {
        w.error = e.message;
        w.done.store(true, std::memory_order_release);
        return;
    }

    int64_t wakes = 0;
    int64_t lastTick = 0;
    while (!stop.load(std::memory_order_relaxed) && !m_quit.load(std::memory_order_relaxed)) {
        const WaitResult r = waiter->waitNext();
        // A wake-up that returns after a stop request is not measured: the thread may have been demoted meanwhile.
        if (r.interrupted || stop.load(std::memory_order_acquire) || m_quit.load(std::memory_order_acquire))
            continue;
        if (r.error) {
            w.error = std::string("wait failed: ") + std::strerror(r.error);
            break;
        }
        ++wakes;
        // The naive loop has no schedule of its own: its k-th wake-up is tick k, however late, and its deadline
        // is "sleep start + P". The other methods aim every wake-up at some t0 + k·P, so the deadline names the
        // tick (and a gap is a miss) -- unless it names a tick that is not even due yet: the itimer waiter
        // counts a tick as skipped when its clock read comes after the next expiry, but ITIMER_REAL is only
        // re-armed when the signal is dequeued (kernel/signal.c), so a thread preempted between the dequeue and
        // the clock read still gets that tick's signal. Then the latest tick due at the wake-up is the one.
        int64_t tick = wakes;
        int64_t deadline = r.deadlineNs;
        if (!naive) {
            const int64_t named = (r.deadlineNs - t0 + period / 2) / period;
            const int64_t due = (r.wakeNs - t0) / period;
            tick = std::max(lastTick + 1, named <= due ? named : due);
            deadline = t0 + tick * period;
        }
        lastTick = tick;
        (void)w.ring->tryPush({r.wakeNs, deadline, tick}); // a full ring counts the drop: the method's drops
        if (tick >= ticks) {
            w.completed.store(true, std::memory_order_relaxed);
            break;
        }
        const int64_t extra = (stallTick > 0 && tick == stallTick) ? stallNs : 0;
        if (work + extra > 0 && !spinUntil(r.wakeNs + work + extra, stop, m_quit))
            break;
    }
    waiter->stop();
    w.done.store(true, std::memory_order_release);
}

void DriftRun::stop()
{
    // Every worker gives up its work at once, before any is joined: the methods share one CPU and one
    // priority, so a SCHED_FIFO worker still spinning through its work would keep the next one from running
    // its exit. No demotion first either: another lab's real-time spinner on this CPU would then starve the
    // exit; RtThread::stop() demotes a thread that overruns its 100 ms.
    m_quit.store(true, std::memory_order_relaxed);
    for (auto& w : m_workers)
        w->thread.stop(kJoinBudgetMs);
    m_live.store(false);
}

bool DriftRun::finished() const
{
    if (m_workers.empty())
        return false;
    bool all = true;
    for (const auto& w : m_workers)
        all = all && w->done.load(std::memory_order_acquire);
    return all || (m_live.load() && nowNs() > m_runLimitNs);
}

size_t DriftRun::drain()
{
    size_t total = 0;
    for (size_t i = 0; i < m_workers.size(); ++i) {
        total += m_drainBatch.drain(*m_workers[i]->ring, [this, i](std::span<const DriftSample> batch) {
            for (const DriftSample& s : batch)
                m_aggregator.add(i, s);
        });
    }
    return total;
}

std::shared_ptr<DriftSnapshot> DriftRun::makeSnapshot(bool running)
{
    auto snap = std::make_shared<DriftSnapshot>();
    snap->config = m_config;
    snap->running = running;
    snap->t0Ns = m_aggregator.originNs();
    snap->publishedNs = nowNs();
    snap->nominalHz = m_aggregator.nominalHz();
    snap->memoryLock = m_memoryLock.detail;

    bool allDone = !m_workers.empty();
    int64_t slackRead = -1;
    for (size_t i = 0; i < m_workers.size(); ++i) {
        const Worker& w = *m_workers[i];
        DriftMethodStats m;
        static_cast<DriftMethodFigures&>(m) = m_aggregator.figures(i);
        m.method = w.kind;
        m.tid = w.tid.load(std::memory_order_relaxed);
        m.timerSlackNs = w.slackNs.load(std::memory_order_relaxed);
        if (slackRead < 0)
            slackRead = m.timerSlackNs;
        m.drops = w.ring->drops();
        m.done = w.done.load(std::memory_order_acquire);
        if (m.done)
            m.error = w.error;
        if (!m.done || !(w.completed.load(std::memory_order_relaxed) || !m.error.empty()))
            allDone = false;
        if (!m.error.empty() && snap->error.empty())
            snap->error = std::string(driftMethodName(w.kind)) + ": " + m.error;
        snap->methods.push_back(std::move(m));
    }
    snap->finished = allDone;
    if (!allDone && snap->publishedNs > m_runLimitNs && snap->error.empty())
        snap->error = "a method stopped answering: the run overran its expected length by far";

    if (isRealtime(m_config.policy)) {
        snap->effectiveSlackNs = 0;
        snap->slackNote = std::string("0 ns: ") + policyKernelName(m_config.policy) +
                          " threads get no timer slack (the kernel ignores it for real-time policies)";
    } else {
        snap->effectiveSlackNs = std::max<int64_t>(slackRead, 0);
        snap->slackNote = slackRead < 0 ? std::string("not read yet")
                                        : formatDuration(slackRead) + (m_config.timerSlackNs == 0
                                                                           ? " (the thread's default)"
                                                                           : " (set with prctl(PR_SET_TIMERSLACK))");
    }
    return snap;
}

} // namespace rtscope
