#include "engine/experiments/latency_experiment.h"

#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cstring>

namespace rtscope {

namespace {
constexpr size_t kDrainBatch = 1024;
constexpr size_t kMaxMarkers = 10'000;

std::string joinErrors(const std::vector<std::string>& errors)
{
    std::string out;
    for (const auto& e : errors)
        out += (out.empty() ? "" : "\n") + e;
    return out;
}
} // namespace

LatencyExperiment::LatencyExperiment()
    : m_hogCounters(new HogCounter[LatencyConfig::kMaxHogs])
{
}

LatencyExperiment::~LatencyExperiment() { stop(); }

void LatencyExperiment::setSeriesWindow(int64_t ns)
{
    m_seriesWindowNs = std::clamp<int64_t>(ns, kNsPerSec, 120 * kNsPerSec);
}

Error LatencyExperiment::start(const LatencyConfig& requested)
{
    if (m_running)
        return {ErrorKind::InvalidConfig, "the latency experiment is already running"};
    const CpuTopology cpus = CpuTopology::current();
    if (auto errors = requested.validate(cpus); !errors.empty())
        return {ErrorKind::InvalidConfig, joinErrors(errors)};

    m_config = requested;
    m_config.cpu = requested.resolvedCpu(cpus);
    m_config.hogCpu = requested.resolvedHogCpu(cpus);

    // A fresh ring per run: its push and drop counters then count this run's samples.
    m_ring = std::make_unique<SpscRing<LatencySample>>(kRingCapacity);
    m_dropsAtReset = 0;
    m_agg.clear(size_t(m_config.histogramUs));
    m_markers.clear();
    m_nextSeq = 0;
    m_retiredHogIterations = 0;
    for (int i = 0; i < LatencyConfig::kMaxHogs; ++i)
        m_hogCounters[i].iterations.store(0, std::memory_order_relaxed);
    m_lastHogIterations = 0;
    m_hogRate = 0;
    m_finished.store(false, std::memory_order_release);
    m_workerError.clear();
    m_resetRequested = false;

    if (m_lockAll) {
        m_memoryLock = lockAllMemory();
    }
    if (m_memoryLock.mode != MemoryLockMode::All) {
        if (lockRange(m_ring->storage(), m_ring->storageBytes()))
            m_memoryLock = {MemoryLockMode::Ranges, "mlock of the ring and the measuring thread's stack" +
                                                        (m_memoryLock.detail.empty() ? std::string()
                                                                                     : " (" + m_memoryLock.detail + ")")};
        else
            m_memoryLock = {MemoryLockMode::None, std::string("memory not locked: mlock failed: ") + std::strerror(errno)};
    }
    if (m_config.dmaLatency)
        m_dma.acquire(0);

    m_startNs = nowNs();
    m_resetNs = m_startNs;
    m_lastHogSampleNs = m_startNs;
    m_periodNs.store(m_config.periodNs, std::memory_order_relaxed);
    m_epoch.store(0, std::memory_order_relaxed);

    if (Error e = setHogCount(m_config.hogs)) {
        stopAllHogs();
        m_dma.release();
        return e;
    }
    if (Error e = startMeasuring()) {
        stopAllHogs();
        m_dma.release();
        return e;
    }
    m_running = true;
    configChanged();
    addMarker("start: " + m_config.label());
    m_collector.addSource(this);
    // Keep the collector off the measured CPU, where hogs would starve it and the ring would overflow.
    m_collector.start(1'000'000, 16'000'000, cpus.otherThan({m_config.cpu, m_config.hogCpu}));
    return {};
}

void LatencyExperiment::stop()
{
    if (!m_running)
        return;
    stopMeasuring();
    stopAllHogs();
    m_running = false;
    m_collector.stop(); // drains what is left and publishes
    m_collector.removeSource(this);
    m_dma.release();
    publishNow();
}

Error LatencyExperiment::startMeasuring()
{
    ThreadSpec spec;
    spec.policy = m_config.policy;
    spec.priority = m_config.priority;
    spec.nice = m_config.nice;
    spec.cpu = m_config.cpu;
    spec.name = "rtscope-measure";
    spec.lockStack = m_memoryLock.mode != MemoryLockMode::All;
    const uint64_t firstSeq = m_nextSeq.load(std::memory_order_relaxed);
    Error e = m_measuring.start(spec, [this, firstSeq](const std::atomic<bool>& stop) { measuringLoop(stop, firstSeq); });
    if (!e)
        m_tid.store(m_measuring.tid());
    return e;
}

void LatencyExperiment::stopMeasuring()
{
    m_measuring.demote();
    m_measuring.stop(100);
}

void LatencyExperiment::measuringLoop(const std::atomic<bool>& stop, uint64_t firstSeq)
{
    // Everything allocated here happens before the first measured cycle.
    std::unique_ptr<Waiter> waiter = makeWaiter(m_config.waiter, &stop);
    int64_t period = m_periodNs.load(std::memory_order_relaxed);
    const int64_t endNs = m_config.durationNs > 0 ? m_startNs + m_config.durationNs : INT64_MAX;
    const uint64_t maxSamples = m_config.maxSamples;
    if (Error e = waiter->start(nowNs() + period, period)) {
        m_workerError = e.message;
        m_finished.store(true, std::memory_order_release);
        return;
    }
    uint64_t seq = firstSeq;
    while (!stop.load(std::memory_order_relaxed)) {
        const int64_t p = m_periodNs.load(std::memory_order_relaxed);
        if (p != period) {
            waiter->setPeriod(p);
            period = p;
        }
        const WaitResult r = waiter->waitNext();
        if (r.interrupted)
            continue;
        if (r.error) {
            m_workerError = std::string("wait failed: ") + std::strerror(r.error);
            break;
        }
        LatencySample s;
        s.seq = seq++;
        s.deadlineNs = r.deadlineNs;
        s.wakeNs = r.wakeNs;
        s.latencyNs = r.wakeNs - r.deadlineNs;
        s.skipped = r.skipped;
        s.epoch = m_epoch.load(std::memory_order_relaxed);
        m_ring->tryPush(s);
        if ((maxSamples && seq >= maxSamples) || r.wakeNs >= endNs) {
            m_finished.store(true, std::memory_order_release);
            break;
        }
    }
    m_nextSeq.store(seq, std::memory_order_relaxed);
    waiter->stop();
}

Error LatencyExperiment::setHogCount(int n)
{
    n = std::clamp(n, 0, LatencyConfig::kMaxHogs);
    const int have = int(m_hogs.size());
    if (n < have) {
        // Flag every hog to remove first: each then exits the moment it next runs, instead of one slice
        // round per join.
        for (int i = n; i < have; ++i)
            m_hogCounters[i].retire.store(true, std::memory_order_relaxed);
        for (int i = have - 1; i >= n; --i) {
            m_hogs[i]->stop(100);
            m_retiredHogIterations += m_hogCounters[i].iterations.exchange(0, std::memory_order_relaxed);
            m_hogs.pop_back();
        }
        return {};
    }
    for (int i = have; i < n; ++i) {
        ThreadSpec spec;
        spec.policy = m_config.hogPolicy;
        spec.nice = m_config.hogNice;
        spec.cpu = m_config.hogCpu;
        spec.name = "rtscope-hog";
        spec.stackBytes = 64 * 1024;
        spec.prefaultBytes = 0;
        spec.lockStack = false;
        HogCounter& counter = m_hogCounters[i];
        counter.retire.store(false, std::memory_order_relaxed);
        auto thread = std::make_unique<RtThread>();
        Error e = thread->start(spec, [&counter](const std::atomic<bool>& stop) {
            uint64_t local = counter.iterations.load(std::memory_order_relaxed);
            while (!stop.load(std::memory_order_relaxed) && !counter.retire.load(std::memory_order_relaxed)) {
                // Pure CPU work; the counter is published every 4096 iterations so hogs' progress can be
                // compared across policies ("RT changes when, not how much").
                for (int k = 0; k < 4096; ++k)
                    asm volatile("" : "+r"(local));
                local += 4096;
                counter.iterations.store(local, std::memory_order_relaxed);
            }
        });
        if (e)
            return e;
        m_hogs.push_back(std::move(thread));
    }
    return {};
}

void LatencyExperiment::stopAllHogs()
{
    for (size_t i = 0; i < m_hogs.size(); ++i)
        m_hogCounters[i].retire.store(true, std::memory_order_relaxed);
    setHogCount(0);
}

Error LatencyExperiment::reconfigure(const LatencyConfig& requested)
{
    if (!m_running)
        return {ErrorKind::InvalidConfig, "the latency experiment is not running"};
    const CpuTopology cpus = CpuTopology::current();
    if (auto errors = requested.validate(cpus); !errors.empty())
        return {ErrorKind::InvalidConfig, joinErrors(errors)};
    LatencyConfig next = requested;
    next.cpu = requested.resolvedCpu(cpus);
    next.hogCpu = requested.resolvedHogCpu(cpus);
    // Run limits and histogram size belong to the run, not to a live change.
    next.durationNs = m_config.durationNs;
    next.maxSamples = m_config.maxSamples;
    next.histogramUs = m_config.histogramUs;
    next.dmaLatency = m_config.dmaLatency;
    if (next == m_config)
        return {};

    const LatencyConfig prev = m_config;
    std::vector<std::string> changes;
    const bool restart = next.waiter != prev.waiter || next.cpu != prev.cpu;
    const bool hogsMove = next.hogCpu != prev.hogCpu || next.hogPolicy != prev.hogPolicy || next.hogNice != prev.hogNice;

    if (!restart && (next.policy != prev.policy || next.priority != prev.priority || next.nice != prev.nice)) {
        if (Error e = m_measuring.setScheduling(next.policy, next.priority, next.nice))
            return e;
    }
    if (next.policy != prev.policy || next.priority != prev.priority || next.nice != prev.nice)
        changes.push_back(policyLabel(next.policy, next.priority, next.nice));
    m_config.policy = next.policy;
    m_config.priority = next.priority;
    m_config.nice = next.nice;

    if (next.periodNs != prev.periodNs) {
        m_config.periodNs = next.periodNs;
        m_periodNs.store(next.periodNs, std::memory_order_relaxed);
        changes.push_back("period " + formatDuration(next.periodNs));
    }

    if (hogsMove) {
        stopAllHogs();
        m_config.hogCpu = next.hogCpu;
        m_config.hogPolicy = next.hogPolicy;
        m_config.hogNice = next.hogNice;
        changes.push_back("hogs " + std::string(policyName(next.hogPolicy)) + " on CPU " + std::to_string(next.hogCpu));
    }
    if (next.hogs != int(m_hogs.size())) {
        m_config.hogs = next.hogs;
        if (Error e = setHogCount(next.hogs)) {
            m_config.hogs = int(m_hogs.size());
            return e;
        }
        if (next.hogs != prev.hogs || hogsMove)
            changes.push_back(std::to_string(next.hogs) + (next.hogs == 1 ? " hog" : " hogs"));
    }

    if (restart) {
        stopMeasuring();
        m_config.waiter = next.waiter;
        m_config.cpu = next.cpu;
        if (Error e = startMeasuring()) {
            // Put back the thread that worked, so a refused change does not stop the measurement.
            m_config.waiter = prev.waiter;
            m_config.cpu = prev.cpu;
            m_config.policy = prev.policy;
            m_config.priority = prev.priority;
            m_config.nice = prev.nice;
            startMeasuring();
            return e;
        }
        if (next.waiter != prev.waiter)
            changes.push_back(std::string("waiter ") + waiterName(next.waiter));
        if (next.cpu != prev.cpu)
            changes.push_back("CPU " + std::to_string(next.cpu));
    }
    m_epoch.fetch_add(1, std::memory_order_relaxed);
    configChanged();
    std::string label;
    for (const auto& c : changes)
        label += (label.empty() ? "" : ", ") + c;
    if (!label.empty())
        addMarker(label);
    m_collector.requestPublish();
    return {};
}

void LatencyExperiment::resetStatistics()
{
    std::lock_guard lock(m_controlMutex);
    m_resetRequested = true;
    m_resetNs = nowNs();
    if (m_markers.size() < kMaxMarkers)
        m_markers.push_back({m_resetNs, currentSeq(), "reset"});
}

uint64_t LatencyExperiment::currentSeq() const { return m_ring ? m_ring->pushed() + m_ring->drops() : 0; }

void LatencyExperiment::addMarker(const std::string& label)
{
    std::lock_guard lock(m_controlMutex);
    if (m_markers.size() < kMaxMarkers)
        m_markers.push_back({nowNs(), currentSeq(), label});
}

void LatencyExperiment::configChanged()
{
    std::lock_guard lock(m_controlMutex);
    m_publishedConfig = m_config;
}

size_t LatencyExperiment::drain()
{
    {
        std::lock_guard lock(m_controlMutex);
        if (m_resetRequested) {
            m_resetRequested = false;
            m_agg.resetStatistics();
            m_dropsAtReset = m_ring->drops();
        }
    }
    LatencySample batch[kDrainBatch];
    size_t total = 0;
    for (;;) {
        const size_t n = m_ring->popBatch(batch, kDrainBatch);
        for (size_t i = 0; i < n; ++i)
            m_agg.add(batch[i]);
        total += n;
        if (n < kDrainBatch)
            break;
    }
    return total;
}

void LatencyExperiment::publish()
{
    auto snap = std::make_shared<LatencySnapshot>();
    snap->generation = ++m_generation;
    snap->running = m_running;
    snap->finished = m_finished.load(std::memory_order_acquire);
    snap->startNs = m_startNs;
    snap->publishedNs = nowNs();
    {
        std::lock_guard lock(m_controlMutex);
        snap->config = m_publishedConfig;
        snap->resetNs = m_resetNs;
        snap->markers = m_markers;
    }
    LatencyThreadStats t = m_agg.stats(snap->publishedNs - m_seriesWindowNs);
    t.cpu = snap->config.cpu;
    t.tid = m_tid.load();
    t.drops = m_ring ? m_ring->drops() - m_dropsAtReset : 0;
    snap->threads.push_back(std::move(t));

    uint64_t hog = m_retiredHogIterations.load(std::memory_order_relaxed);
    for (int i = 0; i < LatencyConfig::kMaxHogs; ++i)
        hog += m_hogCounters[i].iterations.load(std::memory_order_relaxed);
    const int64_t dt = snap->publishedNs - m_lastHogSampleNs;
    if (dt >= 250 * kNsPerMs) {
        m_hogRate = double(hog - std::min(hog, m_lastHogIterations)) * 1e9 / double(dt);
        m_lastHogIterations = hog;
        m_lastHogSampleNs = snap->publishedNs;
    }
    snap->hogIterations = hog;
    snap->hogIterationsPerSec = m_hogRate;
    snap->memoryLock = m_memoryLock.detail;
    snap->dmaLatencyHeld = m_dma.held();
    snap->dmaLatencyNote = snap->config.dmaLatency ? (m_dma.held() ? "held at 0 us" : m_dma.reason()) : "not requested";
    if (!m_running)
        snap->error = m_workerError;

    std::lock_guard lock(m_snapshotMutex);
    m_snapshot = std::move(snap);
}

void LatencyExperiment::publishNow()
{
    if (m_collector.running()) {
        m_collector.requestPublish();
        return;
    }
    if (m_ring)
        while (drain() > 0) {
        }
    publish();
}

std::shared_ptr<const LatencySnapshot> LatencyExperiment::snapshot() const
{
    std::lock_guard lock(m_snapshotMutex);
    return m_snapshot;
}

} // namespace rtscope
