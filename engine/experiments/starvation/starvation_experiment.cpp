#include "engine/experiments/starvation/starvation_experiment.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_environment.h"
#include "engine/rt/waiter.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <sys/resource.h>
#include <unistd.h>

namespace rtscope {

namespace {

constexpr size_t kEventRingCapacity = 1024;
constexpr size_t kSampleRingCapacity = 4096;  // 40 s of samples: far more than the collector ever lags
constexpr size_t kSegmentRingCapacity = 8192; // a counter closes a few hundred segments a second at most

// The highest SCHED_FIFO priority this process may use, so that the watchdog sits above as much as possible.
int highestAllowedFifoPriority()
{
    const int top = priorityMax(Policy::Fifo);
    if (hasEffectiveCapability(kCapSysNice))
        return top;
    const Limit l = resourceLimit(RLIMIT_RTPRIO);
    return l.soft < 0 ? top : int(std::min<int64_t>(l.soft, top));
}

} // namespace

const BurstRecord* StarvationSnapshot::spinningBurst() const
{
    return !bursts.empty() && bursts.back().spinning() ? &bursts.back() : nullptr;
}

StarvationRun::StarvationRun(const StarvationConfig& requested, const RunEnvironment& env)
    : m_config(requested)
    , m_counters(new CounterSlot[kStarvationMaxThreads])
{
    const CpuTopology& cpus = env.topology;
    m_config.cpu = requested.resolvedCpu(cpus);
    m_controllerCpu = requested.resolvedControllerCpu(cpus);
    m_config.controlCpu = requested.controlCounter ? requested.resolvedControlCpu(cpus) : -1;
    m_threads = m_config.counters + (m_config.controlCounter ? 1 : 0);
    m_kernel = readThrottleSettings(m_config.cpu);

    // Rings of this run only: their drop counters count this run.
    m_events = std::make_unique<SpscRing<StarvationSpinnerEvent>>(kEventRingCapacity);
    m_samples = std::make_unique<SpscRing<StarvationProgressSample>>(kSampleRingCapacity);
    for (int i = 0; i < m_threads; ++i)
        m_segmentRings.push_back(std::make_unique<SpscRing<RunSegment>>(kSegmentRingCapacity));
    m_segmentBatch.reserve(kSegmentRingCapacity);

    m_memoryLock = env.memoryLock;
    if (!env.allLocked()) {
        bool locked = lockRange(m_events->storage(), m_events->storageBytes()) &&
                      lockRange(m_samples->storage(), m_samples->storageBytes());
        for (const auto& r : m_segmentRings)
            locked = locked && lockRange(r->storage(), r->storageBytes());
        m_memoryLock = rangeLockStatus(env, locked, locked ? 0 : errno, "the rings and the threads' stacks");
    }
}

StarvationRun::~StarvationRun()
{
    stop();
}

Error StarvationRun::start()
{
    const int watchdogPriority = highestAllowedFifoPriority();
    if (watchdogPriority >= 1 && watchdogPriority <= m_config.priority)
        return {ErrorKind::Permission,
                "priority " + std::to_string(m_config.priority) +
                    " leaves no room for the watchdog above it: this process may use SCHED_FIFO priorities up to " +
                    std::to_string(watchdogPriority) + " (RLIMIT_RTPRIO); choose a priority of at most " +
                    std::to_string(watchdogPriority - 1) + ", or raise the limit"};

    // Sized from the series window the host set after construction (configureRun); allocated before any thread.
    m_agg = StarvationAggregator(m_threads, m_config.counters, m_seriesWindowNs.load(std::memory_order_relaxed),
                                 StarvationConfig::kSampleIntervalNs);
    m_startNs = nowNs();

    // Whatever starts below and is left behind by a failure, an exception included, is stopped by stop(): the
    // host calls it after a failed start(), and the destructor does.
    // A burst can end inside a throttling window (~50 ms, docs/experiments/starvation.md): the spinner then resumes
    // late without having run, and must not be blamed for the kernel's pause.
    if (Error e = m_watchdog.start(throttledSpinnerWatchdog<StarvationConfig>(
            m_controllerCpu, watchdogPriority >= 1 ? watchdogPriority : StarvationConfig::kWatchdogPriority)))
        return e;
    m_watchdogSlot = m_watchdog.addSlot();

    if (Error e = startCounters())
        return e;

    ThreadSpec sampler;
    sampler.policy = m_config.samplerPriority > 0 ? Policy::Fifo : Policy::Other;
    sampler.priority = m_config.samplerPriority;
    sampler.cpu = m_controllerCpu;
    sampler.name = "rtscope-sampler";
    sampler.stackBytes = 128 * 1024;
    sampler.prefaultBytes = 32 * 1024;
    if (Error e = m_sampler.start(sampler, [this](const std::atomic<bool>& stop) { samplerLoop(stop); }))
        return e;

    // Last, so that everything that watches and measures it is already in place. Its first burst comes a whole
    // gap (at least 10 ms) later: the collector the host starts next is in place long before.
    ThreadSpec spinner;
    spinner.policy = m_config.policy;
    spinner.priority = m_config.priority;
    spinner.cpu = m_config.cpu;
    spinner.name = "rtscope-spinner";
    spinner.stackBytes = 64 * 1024;
    spinner.prefaultBytes = 16 * 1024;
    if (Error e = m_spinner.start(spinner, [this](const std::atomic<bool>& stop) { spinnerLoop(stop); }))
        return e;
    return {};
}

Error StarvationRun::startCounters()
{
    for (int i = 0; i < m_threads; ++i) {
        const bool control = i >= m_config.counters;
        ThreadSpec spec;
        spec.policy = Policy::Other;
        spec.nice = m_config.counterNice;
        spec.cpu = control ? m_config.controlCpu : m_config.cpu;
        spec.name = control ? "rtscope-control" : "rtscope-counter";
        spec.stackBytes = 64 * 1024;
        spec.prefaultBytes = 16 * 1024;
        auto thread = std::make_unique<RtThread>();
        if (Error e = thread->start(spec, [this, i](const std::atomic<bool>& stop) { counterLoop(i, stop); }))
            return e;
        m_counterThreads.push_back(std::move(thread));
    }
    return {};
}

void StarvationRun::stop()
{
    if (m_stopped)
        return;
    m_stopped = true;
    // The spinner is asked to leave its burst first, so that it records the burst's end while it still owns the
    // CPU (demoted first, it would share the CPU for a moment and the starved counters would seem to advance).
    // It sees the flag within microseconds; the demotion follows regardless, then the join.
    m_leaveBurst.store(true, std::memory_order_relaxed);
    for (int i = 0; i < 100 && m_spinning.load(std::memory_order_acquire); ++i) {
        const timespec hundredMicroseconds{0, 100'000};
        nanosleep(&hundredMicroseconds, nullptr);
    }
    m_spinner.demote();
    m_spinner.stop(kJoinBudgetMs);
    m_retireCounters.store(true, std::memory_order_relaxed);
    for (auto& t : m_counterThreads)
        t->stop(kJoinBudgetMs);
    m_counterThreads.clear();
    m_sampler.stop(kJoinBudgetMs);
    m_watchdog.stop();
    // The host stops the collector next: it drains what is left and publishes.
}

bool StarvationRun::sleepUntil(int64_t tNs, const std::atomic<bool>& stop)
{
    const timespec ts = toTimespec(tNs);
    while (!stop.load(std::memory_order_relaxed) && !m_leaveBurst.load(std::memory_order_relaxed)) {
        const int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
        if (rc == 0)
            return true;
        if (rc != EINTR) // cannot happen with a valid timespec; never turn it into a spin
            return false;
    }
    return false;
}

void StarvationRun::pushEvent(StarvationSpinnerEvent::Kind kind, int burst, int64_t tNs, bool demoted, bool interrupted)
{
    StarvationSpinnerEvent ev{.kind = kind, .demoted = demoted, .interrupted = interrupted, .burst = burst, .tNs = tNs};
    for (int i = 0; i < m_threads; ++i)
        ev.counts[i] = m_counters[i].ops.load(std::memory_order_relaxed);
    (void)m_events->tryPush(ev); // a full ring counts the drop: the snapshot's droppedEvents
}

void StarvationRun::spinnerLoop(const std::atomic<bool>& stop)
{
    // Setup: the only syscall besides the sleeps and clock reads, made before any burst.
    const pid_t tid = gettid();
    m_spinnerTid.store(tid, std::memory_order_relaxed);
    m_watchdog.bindThread(m_watchdogSlot, tid);
    const int64_t burstNs = m_config.burstNs;
    const int64_t gapNs = m_config.gapNs;
    const int64_t overrunNs = m_testOverrunNs;
    const int total = m_config.bursts;

    int64_t now = nowNs();
    pushEvent(StarvationSpinnerEvent::RunStart, 0, now, false, false);
    int64_t nextStart = now + gapNs;
    bool demoted = false;
    for (int b = 1; (total == 0 || b <= total) && !demoted; ++b) {
        if (!sleepUntil(nextStart, stop))
            break;
        const int64_t start = nowNs();
        pushEvent(StarvationSpinnerEvent::BurstStart, b, start, false, false);
        const int64_t deadline = start + burstNs;
        const int64_t spinUntil = deadline + overrunNs;
        const uint32_t tripsBefore = m_watchdog.tripCount(m_watchdogSlot);
        m_watchdog.arm(m_watchdogSlot, deadline);
        m_spinning.store(true, std::memory_order_release);
        // The trap itself: never blocks, never yields. Only a clock read (vDSO) and two flag loads every
        // kSpinBatch iterations bound it; no lock, no allocation, no log.
        uint64_t work = 0;
        now = start;
        while (now < spinUntil && !stop.load(std::memory_order_relaxed) &&
               !m_leaveBurst.load(std::memory_order_relaxed)) {
            for (int k = 0; k < kSpinBatch; ++k)
                asm volatile("" : "+r"(work));
            now = nowNs();
        }
        m_watchdog.disarm(m_watchdogSlot);
        demoted = m_watchdog.tripCount(m_watchdogSlot) != tripsBefore;
        const bool interrupted = now < spinUntil;
        pushEvent(StarvationSpinnerEvent::BurstEnd, b, now, demoted, interrupted);
        m_spinning.store(false, std::memory_order_release);
        if (interrupted)
            break;
        // Never shorter than a full gap, even after a late burst: the gap is the starved CPU's guaranteed rest.
        nextStart = std::max(start + burstNs + gapNs, now + gapNs);
    }
    // The trailing gap measures how the counters recover; a stop request skips it. After a watchdog trip
    // the spinner stays demoted and no further burst runs.
    if (!stop.load(std::memory_order_relaxed) && !m_leaveBurst.load(std::memory_order_relaxed))
        sleepUntil(nextStart, stop);
    pushEvent(StarvationSpinnerEvent::RunEnd, 0, nowNs(), demoted,
              stop.load(std::memory_order_relaxed) || m_leaveBurst.load(std::memory_order_relaxed));
    m_finished.store(true, std::memory_order_release);
}

void StarvationRun::counterLoop(int index, const std::atomic<bool>& stop)
{
    CounterSlot& c = m_counters[index];
    SpscRing<RunSegment>& ring = *m_segmentRings[size_t(index)];
    c.tid.store(gettid(), std::memory_order_relaxed);
    uint64_t local = c.ops.load(std::memory_order_relaxed);
    int64_t segmentStart = nowNs();
    int64_t last = segmentStart;
    c.lastSeenNs.store(last, std::memory_order_release);
    c.openStartNs.store(segmentStart, std::memory_order_release);
    while (!stop.load(std::memory_order_relaxed) && !m_retireCounters.load(std::memory_order_relaxed)) {
        // Published after every operation: whoever reads the counter (the spinner at a burst's edges, the
        // sampler) sees exactly the work done, not the last batch boundary.
        for (int k = 0; k < kCounterBatch; ++k)
            c.ops.store(++local, std::memory_order_relaxed);
        const int64_t now = nowNs();
        if (now - last > kStallNs) {
            // Push the closed segment before announcing the new one: the collector relies on this order to know
            // that a segment closed before the announcement is already in the ring. A full ring counts the drop
            // (droppedSegments).
            (void)ring.tryPush({segmentStart, last});
            segmentStart = now;
            c.openStartNs.store(now, std::memory_order_release);
        }
        last = now;
        c.lastSeenNs.store(now, std::memory_order_release);
    }
    (void)ring.tryPush({segmentStart, last});
    c.openStartNs.store(INT64_MAX, std::memory_order_release);
}

void StarvationRun::samplerLoop(const std::atomic<bool>& stop)
{
    std::unique_ptr<Waiter> waiter = makeWaiter(WaiterKind::Absolute, &stop);
    const int64_t period = StarvationConfig::kSampleIntervalNs;
    if (waiter->start(nowNs() + period, period))
        return;
    StarvationProgressSample s;
    while (!stop.load(std::memory_order_relaxed)) {
        const WaitResult r = waiter->waitNext();
        if (r.interrupted)
            continue;
        if (r.error)
            break;
        s.tNs = r.wakeNs;
        for (int i = 0; i < m_threads; ++i)
            s.counts[i] = m_counters[i].ops.load(std::memory_order_relaxed);
        (void)m_samples->tryPush(s); // a full ring counts the drop: the snapshot's droppedSamples
    }
    waiter->stop();
}

size_t StarvationRun::drain()
{
    size_t n = 0;
    StarvationSpinnerEvent ev;
    while (m_events->tryPop(ev)) {
        m_agg.addEvent(ev);
        ++n;
    }
    constexpr size_t kBatch = 64;
    StarvationProgressSample batch[kBatch];
    for (;;) {
        const size_t got = m_samples->popBatch(batch, kBatch);
        for (size_t i = 0; i < got; ++i)
            m_agg.addSample(batch[i]);
        n += got;
        if (got < kBatch)
            break;
    }
    return n + drainSegments();
}

size_t StarvationRun::drainSegments()
{
    size_t n = 0;
    RunSegment seg;
    for (size_t i = 0; i < m_segmentRings.size(); ++i) {
        m_segmentBatch.clear();
        while (m_segmentRings[i]->tryPop(seg))
            m_segmentBatch.push_back(seg);
        m_agg.addSegments(int(i), m_segmentBatch.data(), m_segmentBatch.size());
        n += m_segmentBatch.size();
    }
    return n;
}

std::shared_ptr<StarvationSnapshot> StarvationRun::makeSnapshot(bool running)
{
    const int starved = m_agg.starved();
    // The open segments are read before the rings are drained: a counter announces a new open segment only
    // after pushing the one it closed, so every segment closed before these loads is in its ring now.
    std::array<RunSegment, kStarvationMaxThreads> open{};
    for (int i = 0; i < starved; ++i) {
        open[size_t(i)].endNs = m_counters[i].lastSeenNs.load(std::memory_order_acquire);
        open[size_t(i)].startNs = m_counters[i].openStartNs.load(std::memory_order_acquire);
    }
    drainSegments();
    const int64_t now = nowNs();
    m_agg.updateWindows(now, open);

    auto snap = std::make_shared<StarvationSnapshot>();
    snap->config = m_config;
    snap->controllerCpu = m_controllerCpu;
    snap->spinnerTid = m_spinnerTid.load(std::memory_order_relaxed);
    snap->running = running;
    snap->finished = m_finished.load(std::memory_order_acquire);
    snap->interrupted = m_agg.interrupted();
    snap->startNs = m_startNs;
    snap->publishedNs = now;
    snap->endNs = m_agg.runEndNs();
    const StarvationLeadIn leadIn = m_agg.leadIn();
    snap->leadInNs = leadIn.ns;
    snap->leadIn = leadIn.counts;
    snap->starvedCounters = starved;

    snap->counters = m_agg.counterStats(now - m_seriesWindowNs.load(std::memory_order_relaxed));
    for (size_t i = 0; i < snap->counters.size(); ++i) {
        CounterStats& c = snap->counters[i];
        c.cpu = c.control ? m_config.controlCpu : m_config.cpu;
        c.nice = m_config.counterNice;
        c.tid = m_counters[i].tid.load(std::memory_order_relaxed);
        // The live count may be ahead of the latest sample.
        c.ops = std::max(c.ops, m_counters[i].ops.load(std::memory_order_relaxed));
    }
    snap->bursts = m_agg.bursts();
    snap->burstsDropped = m_agg.burstsDropped();
    snap->kernel = m_kernel;
    snap->watchdog = m_watchdog.config();
    snap->watchdogTrips = m_watchdog.trips();
    snap->droppedSamples = m_samples->drops();
    snap->droppedEvents = m_events->drops();
    for (const auto& r : m_segmentRings)
        snap->droppedSegments += r->drops();
    snap->memoryLock = m_memoryLock.detail;
    for (const BurstRecord& b : snap->bursts)
        if (b.watchdogDemoted) {
            snap->note = "the watchdog had to demote the spinner to SCHED_OTHER in burst " + std::to_string(b.index) +
                         " (it ran past its deadline by more than " +
                         formatDuration(StarvationConfig::kWatchdogMarginNs) + "); no further burst was run";
            break;
        }
    return snap;
}

void StarvationExperiment::setSeriesWindow(int64_t ns)
{
    m_seriesWindowNs = std::clamp<int64_t>(ns, kNsPerSec, 120 * kNsPerSec);
    if (StarvationRun* r = run())
        r->setSeriesWindow(m_seriesWindowNs);
}

void StarvationExperiment::setTestDeadlineOverrun(int64_t ns)
{
    m_testOverrunNs = std::clamp<int64_t>(ns, 0, kMaxTestOverrunNs);
}

void StarvationExperiment::configureRun(StarvationRun& run)
{
    run.setSeriesWindow(m_seriesWindowNs);
    run.setTestDeadlineOverrun(m_testOverrunNs);
}

} // namespace rtscope
