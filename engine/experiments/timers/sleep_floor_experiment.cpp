#include "engine/experiments/timers/sleep_floor_experiment.h"

#include "engine/experiments/timers/timer_config_util.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/waiter.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>

namespace rtscope {

namespace {

constexpr int kMaxLoadThreads = 256;

enum class WaitOutcome { Done, Interrupted, Failed };

// Spins to @p deadlineNs on the vDSO clock. Polls the stop flag: even a 100 ms request must not delay Stop.
WaitOutcome spinTo(int64_t deadlineNs, const std::atomic<bool>& stop)
{
    while (nowNs() < deadlineNs)
        if (stop.load(std::memory_order_relaxed))
            return WaitOutcome::Interrupted;
    return WaitOutcome::Done;
}

WaitOutcome fromSleepResult(int rc)
{
    // EINTR here is the wake signal of a stop request: the sample is dropped, not measured short.
    if (rc == 0)
        return WaitOutcome::Done;
    return rc == EINTR ? WaitOutcome::Interrupted : WaitOutcome::Failed;
}

// One wait of @p requestNs that started at @p startNs. Each kind is the plain system call a program would make:
// these are one-shot sleeps, not the periodic Waiters of the drift and latency experiments.
WaitOutcome waitOnce(SleepMethod method, int64_t startNs, int64_t requestNs, int64_t marginNs,
                     const std::atomic<bool>& stop, int& err)
{
    switch (method) {
    case SleepMethod::Nanosleep: {
        const timespec ts = toTimespec(requestNs);
        if (nanosleep(&ts, nullptr) == 0)
            return WaitOutcome::Done;
        err = errno;
        return fromSleepResult(err);
    }
    case SleepMethod::Relative: {
        const timespec ts = toTimespec(requestNs);
        // clock_nanosleep returns the error number instead of setting errno (clock_nanosleep(2)).
        err = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
        return fromSleepResult(err);
    }
    case SleepMethod::Absolute: {
        const timespec ts = toTimespec(startNs + requestNs);
        err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
        return fromSleepResult(err);
    }
    case SleepMethod::Busy:
        return spinTo(startNs + requestNs, stop);
    case SleepMethod::Hybrid: {
        // Sleep only when the request is longer than the margin: the sleep's own floor would overshoot a
        // shorter one. The margin is what the sleep may overshoot by without making the wait late.
        if (requestNs > marginNs) {
            const timespec ts = toTimespec(startNs + requestNs - marginNs);
            err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
            if (const WaitOutcome o = fromSleepResult(err); o != WaitOutcome::Done)
                return o;
        }
        return spinTo(startNs + requestNs, stop);
    }
    }
    return WaitOutcome::Failed;
}

// Reading CLOCK_THREAD_CPUTIME_ID is a system call, not a vDSO read, and the CPU time between two reads
// includes the end of the first call and the start of the second, which the wall-clock bracket inside them does
// not see. Measured here on an empty bracket (median of many) and subtracted from every sample, so a busy-wait
// reads as CPU time ≈ wall time instead of several times it for the shortest requests.
int64_t cpuClockOverhead()
{
    constexpr int kRounds = 101;
    int64_t excess[kRounds];
    for (int i = 0; i < kRounds; ++i) {
        const int64_t cpu0 = threadCpuNs();
        const int64_t t0 = nowNs();
        const int64_t t1 = nowNs();
        const int64_t cpu1 = threadCpuNs();
        excess[i] = (cpu1 - cpu0) - (t1 - t0);
    }
    std::nth_element(excess, excess + kRounds / 2, excess + kRounds);
    return std::max<int64_t>(excess[kRounds / 2], 0);
}

// The nearest-rank percentile of @p values, through @p scratch so that the collector allocates only as the
// cells grow.
int64_t nearestRank(const std::vector<int64_t>& values, double percent, std::vector<int64_t>& scratch)
{
    if (values.empty())
        return 0;
    scratch.assign(values.begin(), values.end());
    const size_t rank = size_t(std::ceil(percent / 100.0 * double(scratch.size())));
    const size_t k = std::clamp<size_t>(rank, 1, scratch.size()) - 1;
    std::nth_element(scratch.begin(), scratch.begin() + ptrdiff_t(k), scratch.end());
    return scratch[k];
}

} // namespace

// Every sample of a cell is kept for exact percentiles: the log-bucketed Histogram's 0.4 % is 40 µs at 10 ms,
// more than the overshoot being measured.
struct SleepFloorExperiment::Cell {
    std::vector<int64_t> actual;
    std::vector<int64_t> cpu;
    int64_t minNs = 0;
    int64_t maxNs = 0;
    long double wallSum = 0;
    bool dirty = false;
    int64_t computedNs = 0;
    SleepFloorCell figures;
};

SleepFloorExperiment::SleepFloorExperiment()
    : m_loadCounters(new LoadCounter[kMaxLoadThreads])
{}

SleepFloorExperiment::~SleepFloorExperiment()
{
    stop();
}

Error SleepFloorExperiment::start(const SleepFloorConfig& requested)
{
    if (m_running)
        return {ErrorKind::InvalidConfig, "the sleep-floor experiment is already running"};
    const CpuTopology cpus = CpuTopology::current();
    if (auto errors = requested.validate(cpus); !errors.empty())
        return {ErrorKind::InvalidConfig, joinErrors(errors)};

    m_config = requested;
    m_config.cpu = requested.resolvedCpu(cpus);
    timespec res{};
    clock_getres(CLOCK_MONOTONIC, &res);
    m_clockResolutionNs = fromTimespec(res);

    m_ring = std::make_unique<SpscRing<SleepSample>>(kRingCapacity);
    m_log = std::make_shared<AppendLog<SleepSample>>(size_t(m_config.totalSamples()));
    m_cells.assign(m_config.requestsNs.size() * m_config.methods.size(), Cell{});
    for (size_t r = 0; r < m_config.requestsNs.size(); ++r)
        for (size_t m = 0; m < m_config.methods.size(); ++m) {
            Cell& c = m_cells[r * m_config.methods.size() + m];
            c.actual.reserve(size_t(m_config.samples));
            c.cpu.reserve(size_t(m_config.samples));
            SleepFloorCell& f = c.figures;
            f.requestNs = m_config.requestsNs[r];
            f.method = m_config.methods[m];
        }
    m_samplesDone = 0;
    m_currentRequest = -1;
    m_generation = 0;
    m_done.store(false, std::memory_order_relaxed);
    m_completed.store(false, std::memory_order_relaxed);
    m_slackNs.store(-1, std::memory_order_relaxed);
    m_cpuOverheadNs.store(0, std::memory_order_relaxed);
    m_workerError.clear();

    if (m_lockAll)
        m_memoryLock = lockAllMemory();
    if (m_memoryLock.mode != MemoryLockMode::All) {
        if (lockRange(m_ring->storage(), m_ring->storageBytes()))
            m_memoryLock = {MemoryLockMode::Ranges,
                            "mlock of the ring and the measuring thread's stack" +
                                (m_memoryLock.detail.empty() ? std::string() : " (" + m_memoryLock.detail + ")")};
        else
            m_memoryLock = {MemoryLockMode::None,
                            std::string("memory not locked: mlock failed: ") + std::strerror(errno)};
    }

    if (Error e = startLoad(cpus)) {
        stopAll();
        return e;
    }
    m_startNs = nowNs();
    ThreadSpec spec;
    spec.policy = m_config.policy;
    spec.priority = m_config.priority;
    spec.cpu = m_config.cpu;
    spec.name = "rtscope-sleep";
    spec.lockStack = m_memoryLock.mode != MemoryLockMode::All;
    m_running = true;
    if (Error e = m_measuring.start(spec, [this](const std::atomic<bool>& stop) { measuringLoop(stop); })) {
        m_running = false;
        stopAll();
        return e;
    }
    m_tid.store(m_measuring.tid(), std::memory_order_relaxed);
    m_collector.addSource(this);
    // The collector and the load threads share the other CPUs; the measuring CPU stays for the waits alone.
    m_collector.start(1'000'000, 16'000'000, cpus.otherThan({m_config.cpu}));
    return {};
}

Error SleepFloorExperiment::startLoad(const CpuTopology& cpus)
{
    m_load.clear();
    m_loadCpus.clear();
    m_loadThreads.store(0, std::memory_order_relaxed);
    if (!m_config.backgroundLoad)
        return {};
    int index = 0;
    for (int cpu : cpus.allowed) {
        if (!cpus.usable(cpu) || cpu == m_config.cpu || index >= kMaxLoadThreads)
            continue;
        ThreadSpec spec;
        spec.policy = Policy::Other;
        spec.cpu = cpu;
        spec.name = "rtscope-load";
        spec.stackBytes = 64 * 1024;
        spec.prefaultBytes = 0;
        spec.lockStack = false;
        LoadCounter& counter = m_loadCounters[index++];
        counter.iterations.store(0, std::memory_order_relaxed);
        auto thread = std::make_unique<RtThread>();
        Error e = thread->start(spec, [&counter](const std::atomic<bool>& stop) {
            uint64_t local = 0;
            while (!stop.load(std::memory_order_relaxed)) {
                for (int k = 0; k < 4096; ++k)
                    asm volatile("" : "+r"(local));
                local += 4096;
                counter.iterations.store(local, std::memory_order_relaxed);
            }
        });
        if (e)
            return e;
        m_load.push_back(std::move(thread));
        m_loadCpus.push_back(cpu);
        m_loadThreads.store(int(m_load.size()), std::memory_order_relaxed);
    }
    return {};
}

void SleepFloorExperiment::measuringLoop(const std::atomic<bool>& stop)
{
    setTimerSlack(m_config.timerSlackNs);
    m_slackNs.store(timerSlack(), std::memory_order_relaxed);
    const std::vector<int64_t>& requests = m_config.requestsNs;
    const std::vector<SleepMethod>& methods = m_config.methods;
    const int64_t samples = m_config.samples;
    const int64_t margin = m_config.hybridMarginNs;
    const int64_t cpuOverhead = cpuClockOverhead();
    m_cpuOverheadNs.store(cpuOverhead, std::memory_order_relaxed);

    // Request by request, so the view fills in left to right; within a request the methods take turns sample by
    // sample, so a burst of noise from elsewhere lands on all of them alike rather than on one.
    bool failed = false;
    for (size_t r = 0; r < requests.size() && !failed; ++r) {
        for (int64_t s = 0; s < samples && !failed; ++s) {
            for (size_t m = 0; m < methods.size() && !failed; ++m) {
                if (stop.load(std::memory_order_relaxed)) {
                    m_done.store(true, std::memory_order_release);
                    return;
                }
                int err = 0;
                const int64_t cpu0 = threadCpuNs();
                const int64_t t0 = nowNs();
                const WaitOutcome o = waitOnce(methods[m], t0, requests[r], margin, stop, err);
                const int64_t t1 = nowNs();
                const int64_t cpu1 = threadCpuNs();
                // A stop request: the next turn sees the flag. A wait that ended after the request is not
                // measured either, whatever it returned: the thread may have been demoted meanwhile.
                if (o == WaitOutcome::Interrupted || stop.load(std::memory_order_acquire))
                    continue;
                if (o == WaitOutcome::Failed) {
                    m_workerError = std::string(sleepMethodName(methods[m])) + " failed: " + std::strerror(err);
                    failed = true;
                    break;
                }
                SleepSample sample;
                sample.request = uint16_t(r);
                sample.method = uint8_t(m);
                sample.sample = uint32_t(s);
                sample.actualNs = t1 - t0;
                sample.cpuNs = std::max<int64_t>(cpu1 - cpu0 - cpuOverhead, 0);
                (void)m_ring->tryPush(sample); // a full ring counts the drop: the snapshot's drops
            }
        }
    }
    m_completed.store(!failed && !stop.load(std::memory_order_relaxed), std::memory_order_relaxed);
    m_done.store(true, std::memory_order_release);
}

void SleepFloorExperiment::stopAll()
{
    // No demotion first: another lab's real-time spinner on this CPU would then starve the exit of a
    // SCHED_FIFO measuring thread. The spin polls the stop flag and the sleeps return EINTR, and
    // RtThread::stop() demotes a thread that overruns its 100 ms.
    m_measuring.stop(100);
    for (auto& t : m_load)
        t->stop(100);
}

std::vector<int> SleepFloorExperiment::busyCpus() const
{
    if (!m_running)
        return {};
    std::vector<int> cpus = m_loadCpus;
    cpus.push_back(m_config.cpu);
    std::sort(cpus.begin(), cpus.end());
    return cpus;
}

void SleepFloorExperiment::stop()
{
    if (!m_running)
        return;
    stopAll();
    m_running = false;
    m_collector.stop(); // joins, then drains what is left and publishes with running = false
    m_collector.removeSource(this);
}

size_t SleepFloorExperiment::drain()
{
    size_t total = 0;
    const size_t methods = m_config.methods.size();
    for (;;) {
        const size_t n = m_ring->popBatch(m_drainBatch.data(), m_drainBatch.size());
        for (size_t i = 0; i < n; ++i) {
            const SleepSample& s = m_drainBatch[i];
            Cell& c = m_cells[size_t(s.request) * methods + s.method];
            c.minNs = c.actual.empty() ? s.actualNs : std::min(c.minNs, s.actualNs);
            c.maxNs = c.actual.empty() ? s.actualNs : std::max(c.maxNs, s.actualNs);
            c.actual.push_back(s.actualNs);
            c.cpu.push_back(s.cpuNs);
            c.wallSum += s.actualNs;
            c.dirty = true;
            m_log->append(s);
            m_currentRequest = s.request;
        }
        m_samplesDone += n;
        total += n;
        if (n < m_drainBatch.size())
            break;
    }
    return total;
}

void SleepFloorExperiment::publish()
{
    auto snap = std::make_shared<SleepFloorSnapshot>();
    snap->config = m_config;
    snap->generation = ++m_generation;
    snap->running = m_running;
    snap->startNs = m_startNs;
    snap->publishedNs = nowNs();
    snap->clockResolutionNs = m_clockResolutionNs;
    snap->timerSlackNs = m_slackNs.load(std::memory_order_relaxed);
    snap->cpuClockOverheadNs = m_cpuOverheadNs.load(std::memory_order_relaxed);
    snap->tid = m_tid.load(std::memory_order_relaxed);
    snap->samplesDone = m_samplesDone;
    snap->samplesTotal = uint64_t(m_config.totalSamples());
    snap->currentRequest = m_currentRequest;
    snap->memoryLock = m_memoryLock.detail;
    snap->drops = m_ring ? m_ring->drops() : 0;
    const bool done = m_done.load(std::memory_order_acquire);
    snap->finished = done && m_completed.load(std::memory_order_relaxed);
    if (done)
        snap->error = m_workerError;

    // Exact percentiles cost a pass over the cell's samples: only for cells that changed, and for a big cell that
    // is still filling at most every 100 ms (the last publish after stop() computes everything).
    for (Cell& c : m_cells) {
        if (!c.dirty)
            continue;
        const bool complete = int64_t(c.actual.size()) >= m_config.samples;
        if (m_running && !complete && c.actual.size() > 5000 && snap->publishedNs - c.computedNs < 100 * kNsPerMs)
            continue;
        c.dirty = false;
        c.computedNs = snap->publishedNs;
        SleepFloorCell& f = c.figures;
        f.samples = c.actual.size();
        f.minNs = c.minNs;
        f.maxNs = c.maxNs;
        f.p50Ns = nearestRank(c.actual, 50, m_scratch);
        f.p99Ns = nearestRank(c.actual, 99, m_scratch);
        f.meanNs = f.samples ? double(c.wallSum / f.samples) : 0.0;
        f.overshootNs = f.p50Ns - f.requestNs;
        f.overshootRatio = f.requestNs > 0 ? double(f.p50Ns) / double(f.requestNs) : 0.0;
        f.cpuPerWaitNs = double(nearestRank(c.cpu, 50, m_scratch));
        f.cpuShare = f.p50Ns > 0 ? f.cpuPerWaitNs / double(f.p50Ns) : 0.0;
    }
    snap->cells.reserve(m_cells.size());
    for (const Cell& c : m_cells)
        snap->cells.push_back(c.figures);

    if (!m_config.requestsNs.empty()) {
        const size_t smallest = size_t(std::min_element(m_config.requestsNs.begin(), m_config.requestsNs.end()) -
                                       m_config.requestsNs.begin());
        for (size_t m = 0; m < m_config.methods.size(); ++m)
            snap->floorNs.push_back(snap->cell(smallest, m).p50Ns);
    }

    if (isRealtime(m_config.policy)) {
        snap->effectiveSlackNs = 0;
        snap->slackNote = std::string("0 ns: ") + policyKernelName(m_config.policy) +
                          " threads get no timer slack (the kernel ignores it for real-time policies)";
    } else {
        snap->effectiveSlackNs = std::max<int64_t>(snap->timerSlackNs, 0);
        snap->slackNote =
            snap->timerSlackNs < 0
                ? std::string("not read yet")
                : formatDuration(snap->timerSlackNs) +
                      (m_config.timerSlackNs == 0 ? " (the thread's default)" : " (set with prctl(PR_SET_TIMERSLACK))");
    }

    snap->loadThreads = m_loadThreads.load(std::memory_order_relaxed);
    for (int i = 0; i < snap->loadThreads; ++i)
        snap->loadIterations += m_loadCounters[i].iterations.load(std::memory_order_relaxed);
    snap->log = m_log;
    snap->logCount = m_log ? m_log->size() : 0;

    std::lock_guard lock(m_snapshotMutex);
    m_snapshot = std::move(snap);
}

std::shared_ptr<const SleepFloorSnapshot> SleepFloorExperiment::snapshot() const
{
    std::lock_guard lock(m_snapshotMutex);
    return m_snapshot;
}

} // namespace rtscope
