#include "engine/experiments/latency/latency_run.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_threads.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <unistd.h>
#include <utility>

namespace rtscope {

namespace {

std::string latencyRunHogsLabel(int n)
{
    return std::to_string(n) + (n == 1 ? " hog" : " hogs");
}

std::string latencyRunTraceLabel(const LatencyConfig& c, const LatencyConfig& prev)
{
    std::string label;
    if (c.traceThresholdNs != prev.traceThresholdNs)
        label = "trace threshold " + (c.traceThresholdNs > 0 ? formatDuration(c.traceThresholdNs) : "none");
    if (c.traceTop != prev.traceTop)
        label += (label.empty() ? "trace top " : ", top ") + std::to_string(c.traceTop);
    return label;
}

} // namespace

LatencyRun::LatencyRun(const LatencyConfig& config, const RunEnvironment& env)
    : m_config(config)
    , m_env(env)
    , m_cpus(config.resolvedCpus(env.topology))
    , m_hogs(LatencyConfig::kMaxHogThreads)
{
    m_hogs.place({config.resolvedHogCpus(env.topology), config.hogPolicy, config.hogNice});
    m_config.cpu = m_cpus.front();
    m_periodNs.store(m_config.periodNs, std::memory_order_relaxed);
    // Keep the collector off the measured and hog CPUs, where hogs would starve it and the rings overflow.
    std::vector<int> busy = m_cpus;
    busy.insert(busy.end(), m_hogs.placement().cpus.begin(), m_hogs.placement().cpus.end());
    m_quietCpu = env.topology.otherThan(busy);
}

LatencyRun::~LatencyRun()
{
    stop();
}

Error LatencyRun::start()
{
    // Made here, not in the constructor: their size follows setCompact() and the series window, set after it.
    m_workers = makeWorkers(m_cpus, m_memoryLock);
    m_workerCount.store(int(m_workers.size()));
    if (m_config.dmaLatency)
        m_dma.acquire(0);
    m_dmaHeld = m_config.dmaLatency && m_dma.acquired();
    m_dmaNote = m_config.dmaLatency ? m_dma.note() : "not requested";

    m_startNs = nowNs();
    m_resetNs = m_startNs;
    m_hogRate = CounterRate(m_startNs);

    // A stop request is honoured between every step (RunEnvironment::interrupted), and between any two hogs.
    Error e = m_hogs.setPerCpu(m_config.hogs, m_env.interrupted);
    if (!e)
        e = m_env.checkInterrupted("the run was starting");
    if (!e && m_config.trace)
        m_tracer.start(
            m_cpus, m_env.topology,
            m_config); // before the measuring threads, so their first wake-ups are traced; a failure is reported
    for (auto& w : m_workers)
        if (!e && !(e = m_env.checkInterrupted("the run was starting")))
            e = startWorker(*w);
    if (e)
        return e; // the host stops and joins what started
    if (m_sink) {
        // Nothing has been drained yet (the collector is not running), so the sink sees the run from sample 0.
        m_dropsSent.reset(m_workers.size());
        m_sink->onRunStart({m_config, m_startNs, m_cpus, m_quietCpu});
        m_sinkActive = true;
    }
    configChanged();
    addMarker("start: " + m_config.label());
    return {};
}

void LatencyRun::stop()
{
    if (m_stopped)
        return;
    m_stopped = true;
    // Every measuring thread learns of the stop first: a wake-up after the request is never counted (late behind
    // the hogs, it would be a false sample at the end of every stopped run).
    const int64_t requestNs = nowNs();
    m_stopRequestedNs.store(requestNs);
    for (auto& w : m_workers)
        requestWorkerStop(*w, requestNs);
    // Then the hogs leave, before any measuring thread is waited for: a SCHED_OTHER measuring thread among 32 hogs
    // per CPU waited 50-115 ms for the turn in which it sees its flag; every hog exits the moment it next runs.
    m_hogs.stopAll();
    stopAllWorkers();
    // The measuring threads are joined: the events of their last wake-ups (and of their exit, which tells the
    // anatomy each CPU got past them) are recorded. The collector's last drain analyses them.
    m_tracer.stop();
    // Nothing measures any more. The last snapshot still says whether the device was held (m_dmaHeld): the host
    // publishes it after this, so a view that sees the run stopped also finds the device let go.
    m_dma.release();
}

void LatencyRun::ended(int64_t stoppedNs)
{
    if (m_sinkActive) {
        m_sinkActive = false;
        // The collector has stopped: this is what the last snapshot carried (it had none without config.trace).
        bool traced = false;
        {
            std::lock_guard lock(m_controlMutex);
            traced = m_publishedConfig.trace;
        }
        const std::shared_ptr<const LatencyTracing> tracing = traced ? m_tracer.lastPublished() : nullptr;
        if (tracing)
            m_sink->onTracing(*tracing);
        m_sink->onRunEnd(stoppedNs);
    }
}

std::vector<int> LatencyRun::busyCpus() const
{
    std::vector<int> cpus = m_cpus;
    if (m_config.hogs > 0)
        for (int cpu : m_hogs.placement().cpus)
            if (std::find(cpus.begin(), cpus.end(), cpu) == cpus.end())
                cpus.push_back(cpu);
    return cpus;
}

LatencyRun::Workers LatencyRun::makeWorkers(const std::vector<int>& cpus, MemoryLockStatus& lock) const
{
    Workers workers;
    for (int cpu : cpus) {
        // A compact run's timeline keeps its series window (and a bucket either side), not 120 s.
        const size_t series = m_compact ? size_t(m_seriesWindowNs.load() / LatencyAggregator::kSeriesBucketNs) + 2
                                        : LatencyAggregator::kSeriesCapacity;
        auto w = std::make_unique<Worker>(size_t(m_config.histogramUs), series);
        w->cpu = cpu;
        // A fresh ring per worker and run: its push and drop counters then count this run's samples.
        w->ring = std::make_unique<SpscRing<LatencySample>>(m_compact ? compactRingCapacity(m_config.periodNs)
                                                                      : kRingCapacity);
        workers.push_back(std::move(w));
    }
    // mlockall was not asked for or not allowed: lock what the RT path touches (the stacks are locked by RtThread),
    // and say which, with the reason mlockall failed if it did.
    bool locked = true;
    int err = 0;
    if (!m_env.allLocked())
        for (auto& w : workers)
            if (!lockRange(w->ring->storage(), w->ring->storageBytes())) {
                locked = false;
                err = errno;
            }
    lock = rangeLockStatus(m_env, locked, err, "the rings and the measuring threads' stacks");
    return workers;
}

Error LatencyRun::startAllWorkers(const std::vector<int>& cpus)
{
    MemoryLockStatus lock;
    Workers fresh = makeWorkers(cpus, lock);
    Workers old;
    // The trace session follows the threads to their CPUs (and its figures start again, like their aggregates).
    const bool traced = m_tracer.sessionRunning();
    m_tracer.stop();
    {
        // The collector must not iterate the workers while the set changes.
        std::lock_guard guard(m_workersMutex);
        if (m_sinkActive)
            drainLocked(); // the sink gets the replaced threads' last samples (their threads are joined)
        old = std::exchange(m_workers, std::move(fresh));
        m_workerCount.store(int(m_workers.size()));
        m_memoryLock = std::move(lock);
        if (m_sinkActive) {
            m_dropsSent.reset(m_workers.size());
            m_sink->onRestart(nowNs(), cpus);
        }
    }
    old.clear(); // every thread of the old set was joined before this call
    if (m_config.trace)
        m_tracer.start(m_cpus, m_env.topology, m_config);
    else if (traced)
        m_tracer.drop();
    Error result;
    for (auto& w : m_workers)
        if (!result)
            result = startWorker(*w);
    return result;
}

void LatencyRun::stopAllWorkers()
{
    for (auto& w : m_workers)
        stopWorker(*w);
}

Error LatencyRun::startWorker(Worker& w)
{
    ThreadSpec spec = m_env.threadSpec(m_config.policy, m_config.priority, w.cpu, kMeasuringThreadName);
    spec.nice = m_config.nice;
    if (isDeadline(m_config.policy)) {
        spec.deadline = m_config.deadlineParams();
        spec.overruns = &w.overruns;
    }
    // Every waiter but the busy one blocks each period, so it may take real-time priority from rtkit, whose
    // RLIMIT_RTTIME kills a thread that spins (docs/rt-privileges.md, "rtkit").
    spec.grantable = m_config.waiter != WaiterKind::Busy;
    const uint64_t firstSeq = w.nextSeq.load(std::memory_order_relaxed);
    w.error.clear();
    w.stopRequestNs.store(kNoStopRequest, std::memory_order_relaxed);
    Error e =
        w.thread.start(spec, [this, &w, firstSeq](const std::atomic<bool>& stop) { measuringLoop(w, stop, firstSeq); });
    if (!e)
        w.tid.store(w.thread.tid());
    return e;
}

Error LatencyRun::restartWorkers(const std::vector<int>& cpus, bool sameCpus)
{
    if (!sameCpus)
        return startAllWorkers(cpus);
    if (m_tracer.sessionRunning()) {
        std::lock_guard guard(m_workersMutex);
        drainLocked();
    }
    for (auto& w : m_workers)
        if (Error e = startWorker(*w))
            return e;
    return {};
}

void LatencyRun::requestWorkerStop(Worker& w, int64_t requestNs)
{
    // The time first, then the flag: the loop drops a wake-up at or after the time even if it has not seen the
    // flag yet, and one that sees the flag whatever its time.
    int64_t expected = kNoStopRequest;
    w.stopRequestNs.compare_exchange_strong(expected, requestNs, std::memory_order_acq_rel);
    w.thread.requestStop();
}

void LatencyRun::stopWorker(Worker& w)
{
    requestWorkerStop(w, nowNs());
    // Not demoted before the join: a real-time thread that sees its flag leaves at once, while a demoted one
    // waits behind the hogs for a turn (tens of milliseconds). RtThread::stop demotes one that overstays.
    w.thread.stop(kJoinBudgetMs);
}

void LatencyRun::measuringLoop(Worker& w, const std::atomic<bool>& stop, uint64_t firstSeq)
{
    // The thread names itself before its first sample: the anatomy matches each drained sample to the kernel's
    // events by this tid, also for a thread that replaced another on the same worker.
    w.tid.store(int(gettid()), std::memory_order_release);
    // Everything allocated here happens before the first measured cycle.
    std::unique_ptr<Waiter> waiter = makeWaiter(m_config.waiter, &stop);
    SpscRing<LatencySample>& ring = *w.ring;
    int64_t period = m_periodNs.load(std::memory_order_relaxed);
    // The duration counts from this thread's first period, not from start(): setting up the thread (stack
    // prefault, locking) takes milliseconds, and `-D 10s` at 1 ms should give 10 000 samples, as cyclictest does.
    // A restarted thread (new waiter or CPU) keeps the run's original end.
    const int64_t firstNs = nowNs();
    const int64_t endNs =
        m_config.durationNs > 0 ? (firstSeq == 0 ? firstNs : m_startNs) + m_config.durationNs : INT64_MAX;
    const uint64_t maxSamples = m_config.maxSamples;
    uint64_t seq = firstSeq;
    bool done = false;
    if (Error e = waiter->start(firstNs + period, period)) {
        w.error = e.message;
        done = true;
    }
    while (!done && !stop.load(std::memory_order_relaxed)) {
        const int64_t p = m_periodNs.load(std::memory_order_relaxed);
        if (p != period) {
            waiter->setPeriod(p);
            period = p;
        }
        const WaitResult r = waiter->waitNext();
        // Nothing that returns after a stop request is measured: from the request on the thread may be demoted
        // (so that it cannot keep its CPU while it is joined), and its wake-up would then wait behind the hogs.
        if (r.interrupted || stop.load(std::memory_order_acquire) ||
            r.wakeNs >= w.stopRequestNs.load(std::memory_order_acquire))
            continue;
        if (r.error) {
            w.error = std::string("wait failed: ") + std::strerror(r.error);
            done = true;
            break;
        }
        LatencySample s;
        s.seq = seq++;
        s.deadlineNs = r.deadlineNs;
        s.wakeNs = r.wakeNs;
        s.latencyNs = r.wakeNs - r.deadlineNs;
        s.skipped = r.skipped;
        s.epoch = m_epoch.load(std::memory_order_relaxed);
        (void)ring.tryPush(s); // a full ring counts the drop, reported as the thread's drops
        done = (maxSamples && seq >= maxSamples) || r.wakeNs >= endNs;
    }
    w.nextSeq.store(seq, std::memory_order_relaxed);
    waiter->stop();
    if (done && m_workersDone.fetch_add(1) + 1 == m_workerCount.load())
        m_finished.store(true, std::memory_order_release);
}

size_t LatencyRun::compactRingCapacity(int64_t periodNs)
{
    const int64_t twoSeconds = periodNs > 0 ? 2 * kNsPerSec / periodNs : int64_t(kRingCapacity);
    return size_t(std::clamp<int64_t>(twoSeconds, kMinCompactRing, kRingCapacity));
}

LatencyRun::Change LatencyRun::reconfigure(const LatencyConfig& requested, const CpuTopology& topo)
{
    if (m_compact)
        return {{ErrorKind::InvalidConfig, "A command-line run does not change while it runs; start another."}};
    if (auto errors = requested.validate(topo); !errors.empty())
        return {{ErrorKind::InvalidConfig, joinErrors(errors)}};
    LatencyConfig next = requested;
    const std::vector<int> nextCpus = requested.resolvedCpus(topo);
    const std::vector<int> nextHogCpus = requested.resolvedHogCpus(topo);
    next.cpu = nextCpus.front();
    // Run limits and histogram size belong to the run, not to a live change.
    next.durationNs = m_config.durationNs;
    next.maxSamples = m_config.maxSamples;
    next.histogramUs = m_config.histogramUs;
    next.dmaLatency = m_config.dmaLatency;
    if (next == m_config)
        return {};

    const LatencyConfig prev = m_config;
    std::vector<std::string> changes;
    const bool hogsMove =
        nextHogCpus != m_hogs.placement().cpus || next.hogPolicy != prev.hogPolicy || next.hogNice != prev.hogNice;
    const bool schedChanged = next.policy != prev.policy || next.priority != prev.priority || next.nice != prev.nice ||
                              (isDeadline(next.policy) && next.deadlineParams() != prev.deadlineParams());
    // Into, out of or within SCHED_DEADLINE the threads are replaced: a deadline thread is started unpinned (the
    // root-domain rule, docs/rt-privileges.md), a pinned one cannot become one in place.
    const bool deadlineChange = schedChanged && (isDeadline(next.policy) || isDeadline(prev.policy));
    const bool restart = next.waiter != prev.waiter || nextCpus != m_cpus || deadlineChange;

    if (!restart && schedChanged) {
        for (size_t i = 0; i < m_workers.size(); ++i) {
            if (Error e = m_workers[i]->thread.setScheduling(next.policy, next.priority, next.nice)) {
                Error restored; // all threads or none
                for (size_t k = 0; k < i; ++k) {
                    Error r = m_workers[k]->thread.setScheduling(prev.policy, prev.priority, prev.nice);
                    if (r && !restored)
                        restored = r;
                }
                if (restored)
                    return endAfterFailedRestore(e, restored);
                return {e};
            }
        }
    }
    if (schedChanged)
        changes.push_back(policyLabel(next.policy, next.priority, next.nice) +
                          (isDeadline(next.policy) ? " " + deadlineText(next.deadlineParams()) : std::string()));
    m_config.policy = next.policy;
    m_config.priority = next.priority;
    m_config.nice = next.nice;
    m_config.runtimeNs = next.runtimeNs;
    m_config.deadlineNs = next.deadlineNs;

    if (next.periodNs != prev.periodNs) {
        m_config.periodNs = next.periodNs;
        m_periodNs.store(next.periodNs, std::memory_order_relaxed);
        changes.push_back("period " + formatDuration(next.periodNs));
    }

    if (hogsMove) {
        m_hogs.place({nextHogCpus, next.hogPolicy, next.hogNice});
        m_config.hogCpu = next.hogCpu;
        m_config.hogPolicy = next.hogPolicy;
        m_config.hogNice = next.hogNice;
        changes.push_back("hogs " + std::string(policyName(next.hogPolicy)) + " on CPU " + formatCpuList(nextHogCpus));
    }
    if (next.hogs != prev.hogs || hogsMove) {
        m_config.hogs = next.hogs;
        if (Error e = m_hogs.setPerCpu(next.hogs)) {
            m_config.hogs = m_hogs.perCpu();
            configChanged();
            return {e};
        }
        if (next.hogs != prev.hogs)
            changes.push_back(latencyRunHogsLabel(next.hogs));
    }

    // Tracing: on, off, or new settings. With a CPU change the restart below starts it on the new CPUs.
    const bool cpusChange = restart && nextCpus != m_cpus;
    m_config.trace = next.trace;
    m_config.traceThresholdNs = next.traceThresholdNs;
    m_config.traceTop = next.traceTop;
    if (next.trace != prev.trace) {
        if (!next.trace)
            m_tracer.drop();
        else if (!cpusChange)
            m_tracer.start(m_cpus, m_env.topology, m_config);
        changes.push_back(next.trace ? "trace on" : "trace off");
    } else if (next.trace) {
        if (next.periodNs != prev.periodNs || next.traceThresholdNs != prev.traceThresholdNs ||
            next.traceTop != prev.traceTop)
            m_tracer.configure(m_config);
        if (const std::string t = latencyRunTraceLabel(next, prev); !t.empty())
            changes.push_back(t);
    }

    if (restart) {
        stopAllWorkers();
        const std::vector<int> prevCpus = m_cpus;
        m_config.waiter = next.waiter;
        m_config.cpu = next.cpu;
        m_config.cpus = next.cpus;
        m_cpus = nextCpus;
        const Error e = restartWorkers(nextCpus, nextCpus == prevCpus);
        if (e) {
            // Put back what worked, so a refused change does not stop the measurement.
            stopAllWorkers();
            m_config.waiter = prev.waiter;
            m_config.cpu = prev.cpu;
            m_config.cpus = prev.cpus;
            m_config.policy = prev.policy;
            m_config.priority = prev.priority;
            m_config.nice = prev.nice;
            m_config.runtimeNs = prev.runtimeNs;
            m_config.deadlineNs = prev.deadlineNs;
            if (deadlineChange) { // the period is the deadline period: the restored threads declare the old one
                m_config.periodNs = prev.periodNs;
                m_periodNs.store(prev.periodNs, std::memory_order_relaxed);
            }
            m_config.trace = prev.trace;
            m_config.traceThresholdNs = prev.traceThresholdNs;
            m_config.traceTop = prev.traceTop;
            m_cpus = prevCpus;
            if (nextCpus == prevCpus) {
                // The tracing part of the change is undone too (a CPU change's: by the restart below).
                if (prev.trace && !m_tracer.sessionRunning())
                    m_tracer.start(m_cpus, m_env.topology, m_config);
                else if (!prev.trace && m_tracer.sessionRunning())
                    m_tracer.drop();
                else if (prev.trace)
                    m_tracer.configure(m_config);
            }
            if (const Error restored = restartWorkers(prevCpus, nextCpus == prevCpus))
                return endAfterFailedRestore(e, restored);
            configChanged();
            return {e};
        }
        if (next.waiter != prev.waiter)
            changes.push_back(std::string("waiter ") + waiterName(next.waiter));
        if (nextCpus != prevCpus)
            changes.push_back((nextCpus.size() > 1 ? "CPUs " : "CPU ") + formatCpuList(nextCpus));
    }
    m_epoch.fetch_add(1, std::memory_order_relaxed);
    configChanged();
    std::string label;
    for (const auto& c : changes)
        label += (label.empty() ? "" : ", ") + c;
    if (!label.empty())
        addMarker(label);
    return {{}, true};
}

LatencyRun::Change LatencyRun::endAfterFailedRestore(const Error& refused, const Error& restore)
{
    // Neither the change nor the setting before it runs: a run without its measuring threads must not look like one
    // that is measuring. It ends, and says why in its last snapshot.
    const std::string why = refused.message + " Putting back the previous setting failed too (" + restore.message +
                            "), so the run was stopped.";
    {
        std::lock_guard lock(m_controlMutex);
        m_runError = why;
    }
    return {{refused.kind, why}, false, true};
}

void LatencyRun::resetStatistics()
{
    std::lock_guard lock(m_controlMutex);
    m_resetRequested = true;
    m_resetNs = nowNs();
    if (m_markers.size() < kMaxMarkers)
        m_markers.push_back({m_resetNs, currentSeq(), "reset"});
    if (m_sinkActive)
        m_sinkEvents.push_back({true, {m_resetNs, 0, "reset"}, {}});
}

uint64_t LatencyRun::currentSeq() const
{
    // The first thread's sequence: markers are drawn on a shared time axis, the seq is for reference only. Read on
    // the control thread, the only one that changes the workers.
    if (m_workers.empty() || !m_workers.front()->ring)
        return 0;
    const auto& ring = *m_workers.front()->ring;
    return ring.pushed() + ring.drops();
}

void LatencyRun::addMarker(const std::string& label)
{
    std::lock_guard lock(m_controlMutex);
    if (m_markers.size() < kMaxMarkers) {
        m_markers.push_back({nowNs(), currentSeq(), label});
        if (m_sinkActive)
            m_sinkEvents.push_back({false, m_markers.back(), m_config});
    }
}

void LatencyRun::configChanged()
{
    std::lock_guard lock(m_controlMutex);
    m_publishedConfig = m_config;
}

void LatencyRun::sendDrops(size_t thread, uint64_t total)
{
    if (m_dropsSent.changed(thread, total))
        m_sink->onDrops(thread, total);
}

size_t LatencyRun::drain()
{
    std::lock_guard guard(m_workersMutex);
    return drainLocked();
}

size_t LatencyRun::drainLocked()
{
    bool reset = false;
    std::vector<SinkEvent> events;
    {
        std::lock_guard lock(m_controlMutex);
        reset = std::exchange(m_resetRequested, false);
        if (m_sinkActive)
            events.swap(m_sinkEvents);
    }
    // The sink sees the reset where the aggregators apply it (before this pass's samples), with the drop count
    // the snapshots subtract from then on: a replay of what it got gives the same figures.
    if (reset) {
        for (size_t i = 0; i < m_workers.size(); ++i) {
            Worker& w = *m_workers[i];
            w.agg.resetStatistics();
            w.dropsAtReset = w.ring->drops();
            if (m_sinkActive)
                sendDrops(i, w.dropsAtReset);
        }
        m_tracer.resetStatistics();
    }
    for (const SinkEvent& e : events) {
        if (e.reset)
            m_sink->onReset(e.marker.tNs);
        else
            m_sink->onMarker(e.marker, e.config);
    }
    size_t total = 0;
    for (size_t k = 0; k < m_workers.size(); ++k) {
        Worker& w = *m_workers[k];
        total += m_drainBatch.drain(*w.ring, [this, k, &w](std::span<const LatencySample> batch) {
            for (const LatencySample& s : batch)
                w.agg.add(s);
            if (!batch.empty() && m_sinkActive)
                m_sink->onSamples(k, batch);
            if (!batch.empty())
                m_tracer.addWakeups(k, w.tid.load(std::memory_order_acquire), w.cpu, batch);
        });
        if (m_sinkActive)
            sendDrops(k, w.ring->drops());
    }
    m_tracer.takeEvents();
    return total;
}

std::shared_ptr<LatencySnapshot> LatencyRun::makeSnapshot(bool running)
{
    auto snap = std::make_shared<LatencySnapshot>();
    snap->running = running;
    snap->finished = m_finished.load(std::memory_order_acquire);
    snap->startNs = m_startNs;
    snap->stopRequestedNs = running ? 0 : m_stopRequestedNs.load();
    snap->publishedNs = nowNs();
    {
        std::lock_guard lock(m_controlMutex);
        snap->config = m_publishedConfig;
        snap->resetNs = m_resetNs;
        snap->markers = m_markers;
        snap->error = m_runError;
    }
    std::lock_guard guard(m_workersMutex);
    const int64_t since = snap->publishedNs - m_seriesWindowNs.load(std::memory_order_relaxed);
    for (const auto& w : m_workers) {
        LatencyThreadStats t = w->agg.stats(since);
        t.cpu = w->cpu;
        t.tid = w->tid.load();
        t.drops = w->ring->drops() - w->dropsAtReset;
        snap->threads.push_back(std::move(t));
        if (isDeadline(snap->config.policy))
            snap->overruns.push_back(figureOf(w->overruns));
        // Not running: every measuring thread was joined (the host stops the run first), so its error is settled.
        if (!running && !w->error.empty() && snap->error.empty())
            snap->error = "CPU " + std::to_string(w->cpu) + ": " + w->error;
    }

    const uint64_t hog = m_hogs.iterations();
    const bool resampled = m_hogRate.sample(snap->publishedNs, hog);
    if (m_sinkActive && (resampled || !running)) // and the final count, after the hogs stopped
        m_sink->onHogWork(snap->publishedNs, hog, m_hogRate.perSecond());
    snap->hogIterations = hog;
    snap->hogIterationsPerSec = m_hogRate.perSecond();
    snap->memoryLock = m_memoryLock.detail;
    // What the run had, not what is open now: stop() lets go of the device before the last publish.
    snap->dmaLatencyHeld = m_dmaHeld;
    snap->dmaLatencyNote = m_dmaNote;
    if (snap->config.trace)
        snap->tracing = m_tracer.snapshot(snap->config, running, snap->publishedNs);
    return snap;
}

} // namespace rtscope
