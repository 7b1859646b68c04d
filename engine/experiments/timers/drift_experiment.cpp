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

constexpr int64_t kReadyTimeoutNs = 2 * kNsPerSec;
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

// The figures the least-squares slope needs, in long double: k² reaches 4·10¹⁰ and k·drift 10¹⁸.
struct SlopeSums {
    long double n = 0, k = 0, kk = 0, d = 0, kd = 0;

    void add(int64_t tick, int64_t drift)
    {
        const long double x = tick, y = drift;
        n += 1;
        k += x;
        kk += x * x;
        d += y;
        kd += x * y;
    }
    double slope() const
    {
        const long double den = n * kk - k * k;
        return n >= 2 && den != 0 ? double((n * kd - k * d) / den) : 0.0;
    }
};

} // namespace

struct DriftExperiment::Worker {
    WaiterKind kind = WaiterKind::Absolute;
    std::unique_ptr<SpscRing<DriftSample>> ring;
    std::shared_ptr<AppendLog<DriftTick>> log;
    RtThread thread;
    std::atomic<int> tid{0};
    std::atomic<bool> ready{false};
    std::atomic<bool> done{false};
    std::atomic<bool> completed{false}; ///< reached the tick count (done may also mean stopped or failed)
    std::atomic<int64_t> slackNs{-1};
    std::string error; ///< written by the worker before it sets done (release)

    // Collector-side aggregates.
    Histogram lateness;
    SlopeSums sums;
    uint64_t wakes = 0;
    uint64_t missed = 0;
    int64_t lastTick = 0;
    int64_t lastDrift = 0;
    int64_t minDrift = 0;
    int64_t maxDrift = 0;
    int64_t lastWake = 0;
};

DriftExperiment::DriftExperiment() = default;

DriftExperiment::~DriftExperiment()
{
    stop();
}

Error DriftExperiment::start(const DriftConfig& requested)
{
    if (m_running)
        return {ErrorKind::InvalidConfig, "the drift experiment is already running"};
    const CpuTopology cpus = CpuTopology::current();
    if (auto errors = requested.validate(cpus); !errors.empty())
        return {ErrorKind::InvalidConfig, joinErrors(errors)};

    m_config = requested;
    m_config.cpu = requested.resolvedCpu(cpus);
    m_config.ticks = requested.tickCount();
    m_t0.store(0, std::memory_order_relaxed);
    m_quit.store(false, std::memory_order_relaxed);
    m_workers.clear();
    for (WaiterKind k : m_config.methods) {
        auto w = std::make_unique<Worker>();
        w->kind = k;
        w->ring = std::make_unique<SpscRing<DriftSample>>(kRingCapacity);
        w->log = std::make_shared<AppendLog<DriftTick>>(size_t(m_config.ticks));
        m_workers.push_back(std::move(w));
    }

    if (m_lockAll)
        m_memoryLock = lockAllMemory();
    if (m_memoryLock.mode != MemoryLockMode::All) {
        bool locked = true;
        for (auto& w : m_workers)
            locked = lockRange(w->ring->storage(), w->ring->storageBytes()) && locked;
        if (locked)
            m_memoryLock = {MemoryLockMode::Ranges,
                            "mlock of the rings and the method threads' stacks" +
                                (m_memoryLock.detail.empty() ? std::string() : " (" + m_memoryLock.detail + ")")};
        else
            m_memoryLock = {MemoryLockMode::None,
                            std::string("memory not locked: mlock failed: ") + std::strerror(errno)};
    }

    for (auto& wp : m_workers) {
        Worker& w = *wp;
        ThreadSpec spec;
        spec.policy = m_config.policy;
        spec.priority = m_config.priority;
        spec.cpu = m_config.cpu;
        spec.name = "rtscope-drift";
        spec.lockStack = m_memoryLock.mode != MemoryLockMode::All;
        if (Error e = w.thread.start(spec, [this, &w](const std::atomic<bool>& stop) { methodLoop(w, stop); })) {
            stopWorkers();
            m_workers.clear();
            return e;
        }
        w.tid.store(w.thread.tid(), std::memory_order_relaxed);
    }
    if (Error e = waitUntilReady()) {
        stopWorkers();
        m_workers.clear();
        return e;
    }

    const int64_t t0 = nowNs() + kStartLeadNs;
    const int64_t nominal = m_config.ticks * (m_config.periodNs + m_config.workNs) + m_config.stallNs;
    // A safety net, not a measurement: the naive loop takes n·(P + W + wake-up) by design, and a starved
    // SCHED_OTHER method can be slower still; only a method that stopped answering gets this far.
    m_runLimitNs = t0 + 4 * nominal + 5 * kNsPerSec;
    m_generation = 0;
    m_running = true;
    m_t0.store(t0, std::memory_order_release);
    m_collector.addSource(this);
    // Keep the collector off the measured CPU: the methods' work would delay it and the rings would fill.
    m_collector.start(1'000'000, 16'000'000, cpus.otherThan({m_config.cpu}));
    return {};
}

Error DriftExperiment::waitUntilReady()
{
    const int64_t end = nowNs() + kReadyTimeoutNs;
    for (;;) {
        bool all = true;
        for (auto& w : m_workers)
            all = all && (w->ready.load(std::memory_order_acquire) || w->done.load(std::memory_order_acquire));
        if (all)
            return {};
        if (nowNs() > end)
            return {ErrorKind::System, "the drift method threads did not start within 2 s"};
        const timespec pause{0, 200'000};
        nanosleep(&pause, nullptr);
    }
}

void DriftExperiment::methodLoop(Worker& w, const std::atomic<bool>& stop)
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

void DriftExperiment::stopWorkers()
{
    // Every worker gives up its work at once, before any is joined: the methods share one CPU and one
    // priority, so a SCHED_FIFO worker still spinning through its work would keep the next one from running
    // its exit. No demotion first either: another lab's real-time spinner on this CPU would then starve the
    // exit; RtThread::stop() demotes a thread that overruns its 100 ms.
    m_quit.store(true, std::memory_order_relaxed);
    for (auto& w : m_workers)
        w->thread.stop(100);
}

void DriftExperiment::stop()
{
    if (!m_running)
        return;
    stopWorkers();
    m_running = false;
    m_collector.stop(); // joins, then drains what is left and publishes with running = false
    m_collector.removeSource(this);
}

bool DriftExperiment::finished() const
{
    if (m_workers.empty())
        return false;
    bool all = true;
    for (const auto& w : m_workers)
        all = all && w->done.load(std::memory_order_acquire);
    return all || (m_running.load() && nowNs() > m_runLimitNs);
}

size_t DriftExperiment::drain()
{
    const int64_t t0 = m_t0.load(std::memory_order_acquire);
    const int64_t period = m_config.periodNs;
    size_t total = 0;
    for (auto& wp : m_workers) {
        Worker& w = *wp;
        for (;;) {
            const size_t n = w.ring->popBatch(m_drainBatch.data(), m_drainBatch.size());
            for (size_t i = 0; i < n; ++i) {
                const DriftSample& s = m_drainBatch[i];
                DriftTick t;
                t.tick = s.tick;
                t.driftNs = s.wakeNs - (t0 + s.tick * period);
                t.latenessNs = s.wakeNs - s.deadlineNs;
                t.missed =
                    s.tick > w.lastTick + 1 ? uint32_t(std::min<int64_t>(s.tick - w.lastTick - 1, UINT32_MAX)) : 0;
                w.missed += t.missed;
                w.lastTick = std::max(w.lastTick, s.tick);
                w.lastDrift = t.driftNs;
                w.minDrift = w.wakes == 0 ? t.driftNs : std::min(w.minDrift, t.driftNs);
                w.maxDrift = w.wakes == 0 ? t.driftNs : std::max(w.maxDrift, t.driftNs);
                w.lastWake = s.wakeNs;
                ++w.wakes;
                w.sums.add(t.tick, t.driftNs);
                w.lateness.record(t.latenessNs);
                w.log->append(t);
            }
            total += n;
            if (n < m_drainBatch.size())
                break;
        }
    }
    return total;
}

void DriftExperiment::publish()
{
    auto snap = std::make_shared<DriftSnapshot>();
    snap->config = m_config;
    snap->generation = ++m_generation;
    snap->running = m_running;
    snap->t0Ns = m_t0.load(std::memory_order_acquire);
    snap->publishedNs = nowNs();
    snap->nominalHz = 1e9 / double(m_config.periodNs);
    snap->memoryLock = m_memoryLock.detail;

    bool allDone = !m_workers.empty();
    int64_t slackRead = -1;
    for (const auto& wp : m_workers) {
        const Worker& w = *wp;
        DriftMethodStats m;
        m.method = w.kind;
        m.tid = w.tid.load(std::memory_order_relaxed);
        m.wakes = w.wakes;
        m.lastTick = w.lastTick;
        m.missedTicks = w.missed;
        m.driftNs = w.lastDrift;
        m.minDriftNs = w.minDrift;
        m.maxDriftNs = w.maxDrift;
        m.slopeNsPerTick = w.sums.slope();
        if (w.wakes > 0 && w.lastWake > snap->t0Ns) {
            m.rateHz = double(w.wakes) * 1e9 / double(w.lastWake - snap->t0Ns);
            m.ratePercent = 100.0 * m.rateHz / snap->nominalHz;
        }
        m.latenessP50Ns = w.lateness.percentile(50);
        m.latenessP99Ns = w.lateness.percentile(99);
        m.latenessMaxNs = w.lateness.max();
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
        m.log = w.log;
        m.logCount = w.log->size();
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

    std::lock_guard lock(m_snapshotMutex);
    m_snapshot = std::move(snap);
}

std::shared_ptr<const DriftSnapshot> DriftExperiment::snapshot() const
{
    std::lock_guard lock(m_snapshotMutex);
    return m_snapshot;
}

} // namespace rtscope
