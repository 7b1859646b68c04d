#include "engine/experiments/timers/sleep_floor_experiment.h"

#include "engine/experiments/timers/timer_config_util.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/waiter.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cerrno>
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

// The config as run: the CPU resolved against the topology it was validated against.
SleepFloorConfig sleepFloorConfigAsRun(const SleepFloorConfig& requested, const CpuTopology& cpus)
{
    SleepFloorConfig c = requested;
    c.cpu = requested.resolvedCpu(cpus);
    return c;
}

} // namespace

SleepFloorRun::SleepFloorRun(const SleepFloorConfig& config, const RunEnvironment& env)
    : m_config(sleepFloorConfigAsRun(config, env.topology))
    , m_env(env)
    , m_ring(std::make_unique<SpscRing<SleepSample>>(kRingCapacity))
    , m_load(kMaxLoadThreads)
    , m_aggregator(m_config.requestsNs, m_config.methods.size(), size_t(m_config.samples))
{
    timespec res{};
    clock_getres(CLOCK_MONOTONIC, &res);
    m_clockResolutionNs = fromTimespec(res);
    const bool locked = env.allLocked() || lockRange(m_ring->storage(), m_ring->storageBytes());
    m_memoryLock = rangeLockStatus(env, locked, locked ? 0 : errno, "the ring and the measuring thread's stack");
}

SleepFloorRun::~SleepFloorRun()
{
    stop();
}

Error SleepFloorRun::start()
{
    if (Error e = startLoad())
        return e; // the host stops the load threads that did start
    m_startNs = nowNs();
    const ThreadSpec spec = m_env.threadSpec(m_config.policy, m_config.priority, m_config.cpu, "rtscope-sleep");
    if (Error e = m_measuring.start(spec, [this](const std::atomic<bool>& stop) { measuringLoop(stop); }))
        return e;
    m_tid.store(m_measuring.tid(), std::memory_order_relaxed);
    return {};
}

Error SleepFloorRun::startLoad()
{
    if (!m_config.backgroundLoad)
        return {};
    const CpuTopology& cpus = m_env.topology;
    HogPlacement placement; // SCHED_OTHER, nice 0
    placement.name = "rtscope-load";
    for (int cpu : cpus.allowed)
        if (cpus.usable(cpu) && cpu != m_config.cpu && int(placement.cpus.size()) < kMaxLoadThreads)
            placement.cpus.push_back(cpu);
    m_load.place(std::move(placement));
    const Error e = m_load.setPerCpu(1);
    m_loadThreads = int(m_load.threadCount());
    return e;
}

void SleepFloorRun::measuringLoop(const std::atomic<bool>& stop)
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

void SleepFloorRun::stop()
{
    // No demotion first: another lab's real-time spinner on this CPU would then starve the exit of a
    // SCHED_FIFO measuring thread. The spin polls the stop flag and the sleeps return EINTR, and
    // RtThread::stop() demotes a thread that overruns its 100 ms.
    m_measuring.stop(kJoinBudgetMs);
    m_load.stopAll();
}

std::vector<int> SleepFloorRun::busyCpus() const
{
    std::vector<int> cpus = m_loadThreads > 0 ? m_load.placement().cpus : std::vector<int>{};
    cpus.push_back(m_config.cpu);
    std::sort(cpus.begin(), cpus.end());
    return cpus;
}

size_t SleepFloorRun::drain()
{
    return m_drainBatch.drain(*m_ring, [this](std::span<const SleepSample> batch) {
        for (const SleepSample& s : batch)
            m_aggregator.add(s);
    });
}

std::shared_ptr<SleepFloorSnapshot> SleepFloorRun::makeSnapshot(bool running)
{
    auto snap = newRunSnapshot<SleepFloorSnapshot>(m_config, running, m_startNs, nowNs());
    snap->clockResolutionNs = m_clockResolutionNs;
    snap->timerSlackNs = m_slackNs.load(std::memory_order_relaxed);
    snap->cpuClockOverheadNs = m_cpuOverheadNs.load(std::memory_order_relaxed);
    snap->tid = m_tid.load(std::memory_order_relaxed);
    snap->samplesDone = m_aggregator.samplesDone();
    snap->samplesTotal = uint64_t(m_config.totalSamples());
    snap->currentRequest = m_aggregator.currentRequest();
    snap->memoryLock = m_memoryLock.detail;
    snap->drops = m_ring->drops();
    const bool done = m_done.load(std::memory_order_acquire);
    snap->finished = done && m_completed.load(std::memory_order_relaxed);
    if (done)
        snap->error = m_workerError;

    // Exact percentiles cost a pass over the cell's samples: the aggregator recomputes only the cells that changed,
    // a big one still filling at most every 100 ms while the run lasts; the last snapshot gets everything.
    m_aggregator.update(snap->publishedNs, running);
    const size_t methods = m_config.methods.size();
    snap->cells.reserve(m_config.requestsNs.size() * methods);
    for (size_t r = 0; r < m_config.requestsNs.size(); ++r)
        for (size_t m = 0; m < methods; ++m) {
            SleepFloorCell c;
            static_cast<SleepCellFigures&>(c) = m_aggregator.cell(r, m);
            c.method = m_config.methods[m];
            snap->cells.push_back(c);
        }
    snap->floorNs = m_aggregator.floorNs();

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

    snap->loadThreads = m_loadThreads;
    snap->loadIterations = m_load.iterations();
    const std::shared_ptr<const AppendLog<SleepSample>> log = m_aggregator.log();
    snap->logCount = log->size();
    snap->log = log;
    return snap;
}

} // namespace rtscope
