#include "engine/experiments/starvation_experiment.h"

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
constexpr size_t kMaxSegmentsKept = 200'000;
constexpr int64_t kSegmentKeepNs = 1'000'000'000;
constexpr int kLiveRateSamples = 10; // 100 ms of sampler intervals
constexpr int64_t kDrainIntervalNs = 2'000'000;
constexpr int64_t kPublishIntervalNs = 20'000'000;

// The highest SCHED_FIFO priority this process may use, so that the watchdog sits above as much as possible.
int highestAllowedFifoPriority()
{
    const int top = priorityMax(Policy::Fifo);
    if (hasEffectiveCapability(kCapSysNice))
        return top;
    const Limit l = resourceLimit(RLIMIT_RTPRIO);
    return l.soft < 0 ? top : int(std::min<int64_t>(l.soft, top));
}

template <class A> A difference(const uint64_t* now, const A& before, int n)
{
    A out{};
    for (int i = 0; i < n; ++i)
        out[size_t(i)] = now[i] >= before[size_t(i)] ? now[i] - before[size_t(i)] : 0;
    return out;
}

} // namespace

std::vector<ThrottleWindow> findThrottleWindows(int64_t burstStartNs, int64_t burstEndNs,
                                                std::vector<RunSegment> segments, int64_t mergeGapNs)
{
    std::vector<RunSegment> inside;
    for (const RunSegment& s : segments) {
        if (s.endNs < s.startNs)
            continue;
        // Strict at the start: a counter the spinner preempted read its clock for the last time before the
        // spinner read the burst's start, so its last segment ends before the burst and must not count.
        if (s.endNs <= burstStartNs || s.startNs >= burstEndNs)
            continue;
        inside.push_back({std::max(s.startNs, burstStartNs), std::min(s.endNs, burstEndNs)});
    }
    std::sort(inside.begin(), inside.end(), [](const RunSegment& a, const RunSegment& b) {
        return a.startNs < b.startNs || (a.startNs == b.startNs && a.endNs < b.endNs);
    });
    std::vector<ThrottleWindow> windows;
    for (const RunSegment& s : inside) {
        if (!windows.empty() && s.startNs - windows.back().endNs < mergeGapNs) {
            windows.back().endNs = std::max(windows.back().endNs, s.endNs);
            continue;
        }
        ThrottleWindow w;
        w.startNs = s.startNs;
        w.endNs = s.endNs;
        windows.push_back(w);
    }
    for (size_t i = 0; i < windows.size(); ++i) {
        windows[i].offsetNs = windows[i].startNs - burstStartNs;
        windows[i].spacingNs = i ? windows[i].startNs - windows[i - 1].startNs : 0;
    }
    return windows;
}

uint64_t BurstRecord::duringSum(int n) const
{
    uint64_t sum = 0;
    for (int i = 0; i < n && i < kStarvationMaxThreads; ++i)
        sum += during[size_t(i)];
    return sum;
}

uint64_t BurstRecord::afterSum(int n) const
{
    uint64_t sum = 0;
    for (int i = 0; i < n && i < kStarvationMaxThreads; ++i)
        sum += after[size_t(i)];
    return sum;
}

const BurstRecord* StarvationSnapshot::spinningBurst() const
{
    return !bursts.empty() && bursts.back().spinning() ? &bursts.back() : nullptr;
}

StarvationExperiment::StarvationExperiment()
    : m_counters(new CounterSlot[kStarvationMaxThreads])
{}

StarvationExperiment::~StarvationExperiment()
{
    stop();
}

void StarvationExperiment::setSeriesWindow(int64_t ns)
{
    m_seriesWindowNs = std::clamp<int64_t>(ns, kNsPerSec, 120 * kNsPerSec);
}

void StarvationExperiment::setTestDeadlineOverrun(int64_t ns)
{
    m_testOverrunNs = std::clamp<int64_t>(ns, 0, kMaxTestOverrunNs);
}

Error StarvationExperiment::start(const StarvationConfig& requested)
{
    if (m_running)
        return {ErrorKind::InvalidConfig, "the starvation experiment is already running"};
    const CpuTopology cpus = StarvationConfig::placementTopology();
    if (auto errors = requested.validate(cpus); !errors.empty())
        return {ErrorKind::InvalidConfig, joinErrors(errors)};

    const int watchdogPriority = highestAllowedFifoPriority();
    if (watchdogPriority >= 1 && watchdogPriority <= requested.priority)
        return {ErrorKind::Permission,
                "priority " + std::to_string(requested.priority) +
                    " leaves no room for the watchdog above it: this process may use SCHED_FIFO priorities up to " +
                    std::to_string(watchdogPriority) + " (RLIMIT_RTPRIO); choose a priority of at most " +
                    std::to_string(watchdogPriority - 1) + ", or raise the limit"};

    m_config = requested;
    m_config.cpu = requested.resolvedCpu(cpus);
    m_controllerCpu = requested.resolvedControllerCpu(cpus);
    m_config.controlCpu = requested.controlCounter ? requested.resolvedControlCpu(cpus) : -1;
    m_threads = m_config.counters + (m_config.controlCounter ? 1 : 0);
    m_kernel = readThrottleSettings(m_config.cpu);

    // Fresh rings and aggregates per run: their counters then count this run only.
    m_events = std::make_unique<SpscRing<SpinnerEvent>>(kEventRingCapacity);
    m_samples = std::make_unique<SpscRing<ProgressSample>>(kSampleRingCapacity);
    m_segmentRings.clear();
    for (int i = 0; i < m_threads; ++i)
        m_segmentRings.push_back(std::make_unique<SpscRing<RunSegment>>(kSegmentRingCapacity));
    const size_t seriesPoints = size_t(m_seriesWindowNs.load() / StarvationConfig::kSampleIntervalNs) + 16;
    m_agg.clear();
    for (int i = 0; i < m_threads; ++i) {
        CounterAggregate a;
        // One point per sample: 1 ms buckets never merge two samples 10 ms apart, whatever their jitter.
        a.rate = DecimatedSeries(kNsPerMs, seriesPoints);
        m_agg.push_back(std::move(a));
    }
    m_historyCount = 0;
    m_bursts.clear();
    m_burstsDropped = 0;
    m_runStartCounts = {};
    m_burstStartCounts = {};
    m_burstEndCounts = {};
    m_leadIn = {};
    m_runStartNs = 0;
    m_leadInEndNs = 0;
    m_runEndNs = 0;
    m_interrupted = false;
    m_finished.store(false, std::memory_order_release);
    m_spinnerTid.store(0);
    m_retireCounters.store(false);
    m_leaveBurst.store(false);
    m_spinning.store(false);
    for (int i = 0; i < kStarvationMaxThreads; ++i) {
        m_counters[i].ops.store(0, std::memory_order_relaxed);
        m_counters[i].openStartNs.store(INT64_MAX, std::memory_order_relaxed);
        m_counters[i].lastSeenNs.store(0, std::memory_order_relaxed);
        m_counters[i].tid.store(0, std::memory_order_relaxed);
    }

    if (m_lockAll)
        m_memoryLock = lockAllMemory();
    if (m_memoryLock.mode != MemoryLockMode::All) {
        bool locked = lockRange(m_events->storage(), m_events->storageBytes()) &&
                      lockRange(m_samples->storage(), m_samples->storageBytes());
        for (const auto& r : m_segmentRings)
            locked = locked && lockRange(r->storage(), r->storageBytes());
        m_memoryLock = locked
                           ? MemoryLockStatus{MemoryLockMode::Ranges, "mlock of the rings and the threads' stacks"}
                           : MemoryLockStatus{MemoryLockMode::None,
                                              std::string("memory not locked: mlock failed: ") + std::strerror(errno)};
    }
    m_startNs = nowNs();

    // Every exit from here on, an exception included, goes through teardown(): a half-started lab must not
    // leave a spinner or a watchdog behind.
    struct Rollback {
        StarvationExperiment* self;
        ~Rollback()
        {
            if (self)
                self->teardown();
        }
    } rollback{this};

    WatchdogConfig wd;
    wd.cpu = m_controllerCpu;
    wd.priority = watchdogPriority >= 1 ? watchdogPriority : StarvationConfig::kWatchdogPriority;
    wd.marginNs = StarvationConfig::kWatchdogMarginNs;
    wd.pollNs = StarvationConfig::kWatchdogPollNs;
    // A burst can end inside a throttling window (~50 ms, docs/experiments/starvation.md): the spinner then resumes
    // late without having run, and must not be blamed for the kernel's pause.
    wd.cpuTimeOverrun = true;
    if (Error e = m_watchdog.start(wd))
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

    m_running = true;
    m_collector.addSource(this);
    m_collector.start(kDrainIntervalNs, kPublishIntervalNs, m_controllerCpu);

    // Last, so that everything that watches and measures it is already in place.
    ThreadSpec spinner;
    spinner.policy = m_config.policy;
    spinner.priority = m_config.priority;
    spinner.cpu = m_config.cpu;
    spinner.name = "rtscope-spinner";
    spinner.stackBytes = 64 * 1024;
    spinner.prefaultBytes = 16 * 1024;
    if (Error e = m_spinner.start(spinner, [this](const std::atomic<bool>& stop) { spinnerLoop(stop); }))
        return e;

    rollback.self = nullptr;
    return {};
}

Error StarvationExperiment::startCounters()
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

void StarvationExperiment::teardown()
{
    // The spinner is asked to leave its burst first, so that it records the burst's end while it still owns the
    // CPU (demoted first, it would share the CPU for a moment and the starved counters would seem to advance).
    // It sees the flag within microseconds; the demotion follows regardless, then the join.
    m_leaveBurst.store(true, std::memory_order_relaxed);
    for (int i = 0; i < 100 && m_spinning.load(std::memory_order_acquire); ++i) {
        const timespec hundredMicroseconds{0, 100'000};
        nanosleep(&hundredMicroseconds, nullptr);
    }
    m_spinner.demote();
    m_spinner.stop(100);
    m_retireCounters.store(true, std::memory_order_relaxed);
    for (auto& t : m_counterThreads)
        t->stop(100);
    m_counterThreads.clear();
    m_sampler.stop(100);
    m_watchdog.stop();
    m_running = false;
    m_collector.stop(); // drains what is left and publishes
    m_collector.removeSource(this);
}

void StarvationExperiment::stop()
{
    if (!m_running)
        return;
    teardown();
    publishNow();
}

bool StarvationExperiment::sleepUntil(int64_t tNs, const std::atomic<bool>& stop)
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

void StarvationExperiment::pushEvent(SpinnerEvent::Kind kind, int burst, int64_t tNs, bool demoted, bool interrupted)
{
    SpinnerEvent ev;
    ev.kind = kind;
    ev.burst = burst;
    ev.tNs = tNs;
    ev.demoted = demoted;
    ev.interrupted = interrupted;
    for (int i = 0; i < m_threads; ++i)
        ev.counts[i] = m_counters[i].ops.load(std::memory_order_relaxed);
    (void)m_events->tryPush(ev); // a full ring counts the drop: the snapshot's droppedEvents
}

void StarvationExperiment::spinnerLoop(const std::atomic<bool>& stop)
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
    pushEvent(SpinnerEvent::RunStart, 0, now, false, false);
    int64_t nextStart = now + gapNs;
    bool demoted = false;
    for (int b = 1; (total == 0 || b <= total) && !demoted; ++b) {
        if (!sleepUntil(nextStart, stop))
            break;
        const int64_t start = nowNs();
        pushEvent(SpinnerEvent::BurstStart, b, start, false, false);
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
        pushEvent(SpinnerEvent::BurstEnd, b, now, demoted, interrupted);
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
    pushEvent(SpinnerEvent::RunEnd, 0, nowNs(), demoted,
              stop.load(std::memory_order_relaxed) || m_leaveBurst.load(std::memory_order_relaxed));
    m_finished.store(true, std::memory_order_release);
}

void StarvationExperiment::counterLoop(int index, const std::atomic<bool>& stop)
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

void StarvationExperiment::samplerLoop(const std::atomic<bool>& stop)
{
    std::unique_ptr<Waiter> waiter = makeWaiter(WaiterKind::Absolute, &stop);
    const int64_t period = StarvationConfig::kSampleIntervalNs;
    if (waiter->start(nowNs() + period, period))
        return;
    ProgressSample s;
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

size_t StarvationExperiment::drain()
{
    size_t n = 0;
    SpinnerEvent ev;
    while (m_events->tryPop(ev)) {
        handleEvent(ev);
        ++n;
    }
    constexpr size_t kBatch = 64;
    ProgressSample batch[kBatch];
    for (;;) {
        const size_t got = m_samples->popBatch(batch, kBatch);
        for (size_t i = 0; i < got; ++i)
            handleSample(batch[i]);
        n += got;
        if (got < kBatch)
            break;
    }
    return n + drainSegments();
}

size_t StarvationExperiment::drainSegments()
{
    size_t n = 0;
    RunSegment seg;
    for (size_t i = 0; i < m_segmentRings.size(); ++i) {
        auto& kept = m_agg[i].segments;
        while (m_segmentRings[i]->tryPop(seg)) {
            kept.push_back(seg);
            ++n;
        }
        if (kept.size() > kMaxSegmentsKept)
            kept.erase(kept.begin(), kept.begin() + std::ptrdiff_t(kept.size() / 2));
    }
    return n;
}

void StarvationExperiment::handleEvent(const SpinnerEvent& ev)
{
    const int n = m_threads;
    switch (ev.kind) {
    case SpinnerEvent::RunStart:
        m_runStartNs = ev.tNs;
        std::copy(ev.counts, ev.counts + kStarvationMaxThreads, m_runStartCounts.begin());
        m_burstEndCounts = m_runStartCounts;
        break;
    case SpinnerEvent::BurstStart: {
        if (m_bursts.empty() && m_burstsDropped == 0) {
            m_leadIn = difference(ev.counts, m_runStartCounts, n);
            m_leadInEndNs = ev.tNs;
        } else if (!m_bursts.empty() && m_bursts.back().endNs && !m_bursts.back().gapEndNs) {
            m_bursts.back().after = difference(ev.counts, m_burstEndCounts, n);
            m_bursts.back().gapEndNs = ev.tNs;
        }
        if (m_bursts.size() >= kMaxBurstRecords) {
            m_bursts.erase(m_bursts.begin());
            ++m_burstsDropped;
        }
        BurstRecord rec;
        rec.index = ev.burst;
        rec.startNs = ev.tNs;
        m_bursts.push_back(std::move(rec));
        std::copy(ev.counts, ev.counts + kStarvationMaxThreads, m_burstStartCounts.begin());
        break;
    }
    case SpinnerEvent::BurstEnd:
        if (!m_bursts.empty() && m_bursts.back().index == ev.burst && m_bursts.back().spinning()) {
            BurstRecord& rec = m_bursts.back();
            rec.endNs = std::max(ev.tNs, rec.startNs + 1);
            rec.during = difference(ev.counts, m_burstStartCounts, n);
            rec.watchdogDemoted = ev.demoted;
            rec.interrupted = ev.interrupted;
        }
        std::copy(ev.counts, ev.counts + kStarvationMaxThreads, m_burstEndCounts.begin());
        break;
    case SpinnerEvent::RunEnd:
        m_runEndNs = ev.tNs;
        m_interrupted = ev.interrupted;
        if (m_bursts.empty() && m_burstsDropped == 0) {
            m_leadIn = difference(ev.counts, m_runStartCounts, n);
            m_leadInEndNs = ev.tNs;
        } else if (!m_bursts.empty() && m_bursts.back().endNs && !m_bursts.back().gapEndNs) {
            m_bursts.back().after = difference(ev.counts, m_burstEndCounts, n);
            m_bursts.back().gapEndNs = std::max(ev.tNs, m_bursts.back().endNs);
        }
        break;
    }
}

void StarvationExperiment::handleSample(const ProgressSample& s)
{
    const size_t cap = m_history.size();
    if (m_historyCount > 0) {
        const ProgressSample& prev = m_history[(m_historyCount - 1) % cap];
        const int64_t dt = s.tNs - prev.tNs;
        if (dt > 0)
            for (int i = 0; i < m_threads; ++i) {
                const uint64_t d = s.counts[i] >= prev.counts[i] ? s.counts[i] - prev.counts[i] : 0;
                // Stamped at the start of the interval it covers, so a rate of 0 lines up with the burst.
                m_agg[size_t(i)].rate.add(prev.tNs, int64_t(double(d) * 1e9 / double(dt)));
            }
    }
    for (int i = 0; i < m_threads; ++i)
        m_agg[size_t(i)].ops = s.counts[i];
    m_history[m_historyCount % cap] = s;
    ++m_historyCount;
}

void StarvationExperiment::publish()
{
    const int starved = std::min(m_config.counters, m_threads);
    // The open segments are read before the rings are drained: a counter announces a new open segment only
    // after pushing the one it closed, so every segment closed before these loads is in its ring now.
    std::array<RunSegment, kStarvationMaxThreads> open{};
    for (int i = 0; i < starved; ++i) {
        open[size_t(i)].endNs = m_counters[i].lastSeenNs.load(std::memory_order_acquire);
        open[size_t(i)].startNs = m_counters[i].openStartNs.load(std::memory_order_acquire);
    }
    drainSegments();
    const int64_t now = nowNs();

    int64_t horizon = now - kSegmentKeepNs;
    for (BurstRecord& b : m_bursts) {
        if (b.windowsFinal)
            continue;
        const int64_t end = b.endNs ? b.endNs : now;
        std::vector<RunSegment> segments;
        bool settled = b.endNs != 0;
        for (int i = 0; i < starved; ++i) {
            for (const RunSegment& s : m_agg[size_t(i)].segments)
                if (s.endNs > b.startNs && s.startNs < end)
                    segments.push_back(s);
            const RunSegment& o = open[size_t(i)];
            if (o.startNs <= o.endNs)
                segments.push_back(o);
            // A segment still open since before the burst ended may yet grow into it; one opened after the end
            // proves every earlier segment of this counter has been drained.
            if (o.startNs <= b.endNs)
                settled = false;
        }
        b.windows = findThrottleWindows(b.startNs, end, std::move(segments), kWindowMergeNs);
        if (settled)
            b.windowsFinal = true;
        else
            horizon = std::min(horizon, b.startNs);
    }
    for (int i = 0; i < m_threads; ++i) {
        auto& kept = m_agg[size_t(i)].segments;
        std::erase_if(kept, [horizon](const RunSegment& s) { return s.endNs < horizon; });
    }

    auto snap = std::make_shared<StarvationSnapshot>();
    snap->config = m_config;
    snap->controllerCpu = m_controllerCpu;
    snap->spinnerTid = m_spinnerTid.load(std::memory_order_relaxed);
    snap->generation = ++m_generation;
    snap->running = m_running;
    snap->finished = m_finished.load(std::memory_order_acquire);
    snap->interrupted = m_interrupted;
    snap->startNs = m_startNs;
    snap->publishedNs = now;
    snap->endNs = m_runEndNs;
    if (m_runStartNs) {
        if (m_leadInEndNs) {
            snap->leadInNs = m_leadInEndNs - m_runStartNs;
            snap->leadIn = m_leadIn;
        } else if (m_historyCount > 0) {
            const ProgressSample& latest = m_history[(m_historyCount - 1) % m_history.size()];
            snap->leadInNs = std::max<int64_t>(0, latest.tNs - m_runStartNs);
            snap->leadIn = difference(latest.counts, m_runStartCounts, m_threads);
        }
    }
    snap->starvedCounters = starved;

    const ProgressSample* newest = m_historyCount ? &m_history[(m_historyCount - 1) % m_history.size()] : nullptr;
    const size_t back = std::min<size_t>(kLiveRateSamples, m_historyCount ? m_historyCount - 1 : 0);
    const ProgressSample* older = back ? &m_history[(m_historyCount - 1 - back) % m_history.size()] : nullptr;
    const int64_t since = now - m_seriesWindowNs.load(std::memory_order_relaxed);
    for (int i = 0; i < m_threads; ++i) {
        CounterStats c;
        c.control = i >= starved;
        c.label = c.control ? std::string("control") : "counter " + std::to_string(i + 1);
        c.cpu = c.control ? m_config.controlCpu : m_config.cpu;
        c.nice = m_config.counterNice;
        c.tid = m_counters[i].tid.load(std::memory_order_relaxed);
        c.ops = std::max(m_agg[size_t(i)].ops, m_counters[i].ops.load(std::memory_order_relaxed));
        if (newest && older && newest->tNs > older->tNs)
            c.opsPerSec = double(newest->counts[i] - std::min(newest->counts[i], older->counts[i])) * 1e9 /
                          double(newest->tNs - older->tNs);
        c.rate = m_agg[size_t(i)].rate.points(since);
        snap->counters.push_back(std::move(c));
    }
    snap->bursts = m_bursts;
    snap->burstsDropped = m_burstsDropped;
    snap->kernel = m_kernel;
    snap->watchdog = m_watchdog.config();
    snap->watchdogTrips = m_watchdog.trips();
    snap->droppedSamples = m_samples ? m_samples->drops() : 0;
    snap->droppedEvents = m_events ? m_events->drops() : 0;
    for (const auto& r : m_segmentRings)
        snap->droppedSegments += r->drops();
    snap->memoryLock = m_memoryLock.detail;
    for (const BurstRecord& b : m_bursts)
        if (b.watchdogDemoted) {
            snap->note = "the watchdog had to demote the spinner to SCHED_OTHER in burst " + std::to_string(b.index) +
                         " (it ran past its deadline by more than " +
                         formatDuration(StarvationConfig::kWatchdogMarginNs) + "); no further burst was run";
            break;
        }

    std::lock_guard lock(m_snapshotMutex);
    m_snapshot = std::move(snap);
}

void StarvationExperiment::publishNow()
{
    if (m_collector.running()) {
        m_collector.requestPublish();
        return;
    }
    if (m_events)
        while (drain() > 0) {
        }
    publish();
}

std::shared_ptr<const StarvationSnapshot> StarvationExperiment::snapshot() const
{
    std::lock_guard lock(m_snapshotMutex);
    return m_snapshot;
}

} // namespace rtscope
