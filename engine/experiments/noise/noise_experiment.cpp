#include "engine/experiments/noise/noise_experiment.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/trace/trace_batch_queue.h"
#include "engine/trace/trace_session.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <deque>
#include <fcntl.h>
#include <fstream>
#include <sched.h>
#include <sstream>
#include <unistd.h>

namespace rtscope {

namespace {

// The poller publishes its counters and its progress at least this often (in loops), and after every gap.
constexpr unsigned kNoisePublishLoops = 1024;
// How long the loop clock's rate is measured against CLOCK_MONOTONIC before the pollers start.
constexpr int64_t kLoopClockCalibrationNs = 20 * kNsPerMs;
// MSR_SMI_COUNT (Intel): SMIs since reset, in its low 32 bits.
constexpr off_t kMsrSmiCount = 0x34;

// The steal column of each of @p cpus in /proc/stat, in USER_HZ ticks; @p why says what could not be read.
std::vector<int64_t> noiseReadSteal(const std::vector<int>& cpus, std::string& why)
{
    std::vector<int64_t> out(cpus.size(), -1);
    std::ifstream in("/proc/stat");
    if (!in) {
        why = std::string("steal time: /proc/stat is not readable (") + std::strerror(errno) + ")";
        return out;
    }
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("cpu", 0) != 0 || line.size() < 4 || line[3] < '0' || line[3] > '9')
            continue;
        std::istringstream fields(line.substr(3));
        int cpu = -1;
        int64_t v[8] = {};
        fields >> cpu;
        int n = 0;
        while (n < 8 && fields >> v[n])
            ++n;
        const auto it = std::find(cpus.begin(), cpus.end(), cpu);
        if (it == cpus.end())
            continue;
        if (n < 8) {
            why = "steal time: /proc/stat has no steal column for CPU " + std::to_string(cpu) + " (kernel too old)";
            continue;
        }
        out[size_t(it - cpus.begin())] = v[7];
    }
    for (size_t i = 0; i < cpus.size(); ++i)
        if (out[i] < 0 && why.empty())
            why = "steal time: /proc/stat has no line for CPU " + std::to_string(cpus[i]);
    return out;
}

// Opens /dev/cpu/N/msr and reads MSR_SMI_COUNT once; −1 and the reason (with the fix) when it cannot.
int noiseOpenSmi(int cpu, std::string& why)
{
    const std::string path = "/dev/cpu/" + std::to_string(cpu) + "/msr";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOENT || err == ENXIO || err == ENODEV)
            why = "no " + path + ": the msr module is not loaded (modprobe msr)";
        else if (err == EACCES || err == EPERM)
            why = path + " needs root (CAP_SYS_RAWIO) to read";
        else
            why = "cannot open " + path + " (" + std::strerror(err) + ")";
        return -1;
    }
    uint64_t v = 0;
    if (pread(fd, &v, sizeof v, kMsrSmiCount) != ssize_t(sizeof v)) {
        const int err = errno;
        if (err == EIO)
            why = "CPU " + std::to_string(cpu) +
                  " has no MSR_SMI_COUNT (0x34), as on AMD processors: SMIs cannot be counted here";
        else if (err == EACCES || err == EPERM)
            why = "reading " + path + " needs root (CAP_SYS_RAWIO)";
        else
            why = "reading " + path + " failed (" + std::strerror(err) + ")";
        ::close(fd);
        return -1;
    }
    return fd;
}

int64_t noiseReadSmi(int fd)
{
    uint64_t v = 0;
    if (fd < 0 || pread(fd, &v, sizeof v, kMsrSmiCount) != ssize_t(sizeof v))
        return -1;
    return int64_t(v & 0xffffffffu);
}

// The config as run: the CPUs resolved against the topology it was validated against.
NoiseConfig noiseConfigAsRun(const NoiseConfig& requested, const CpuTopology& cpus)
{
    NoiseConfig c = requested;
    c.cpus = requested.resolvedCpus(cpus);
    return c;
}

} // namespace

struct NoiseRun::Poller {
    int cpu = -1;
    std::unique_ptr<SpscRing<NoiseGap>> ring;
    /// Loop lengths (kNoiseHistogramBuckets); the poller is the only writer (relaxed load and store, no lock
    /// prefix in the loop), the collector reads.
    std::unique_ptr<std::atomic<uint64_t>[]> histogram;
    RtThread thread;
    std::atomic<int> tid{0};
    std::atomic<bool> ready{false};
    std::atomic<bool> done{false};
    // Published by the poller every kNoisePublishLoops loops and after every gap; lastNs last, with release.
    std::atomic<int64_t> firstNs{0};
    std::atomic<int64_t> lastNs{0}; ///< its latest clock read: every gap that ends by then is in the ring
    std::atomic<uint64_t> loops{0};
    std::atomic<int64_t> sumNs{0};
    std::atomic<int64_t> minNs{0};
    std::atomic<int64_t> maxNs{0};
    std::atomic<uint64_t> drops{0};
    std::atomic<int64_t> dropNs{0};

    // The collector's: the heat strip, noise per kNoiseHeatWindowNs window since the run's start.
    std::deque<int64_t> heatNs;
    int64_t heatFirst = 0;
};

struct NoiseRun::Counters {
    double stealTickNs = 0;
    std::string stealNote;
    std::vector<int64_t> stealStart, stealNow;
    int64_t stealReadNs = 0;
    std::string smiNote;
    std::vector<int> msrFd;
    std::vector<int64_t> smiStart, smiNow;
    int64_t smiReadNs = 0;

    ~Counters()
    {
        for (int fd : msrFd)
            if (fd >= 0)
                ::close(fd);
    }
};

NoiseRun::NoiseRun(const NoiseConfig& config, const RunEnvironment& env)
    : m_config(noiseConfigAsRun(config, env.topology))
    , m_env(env)
    , m_counters(std::make_unique<Counters>())
{
    bool locked = true;
    int err = 0;
    for (int cpu : m_config.cpus) {
        auto p = std::make_unique<Poller>();
        p->cpu = cpu;
        p->ring = std::make_unique<SpscRing<NoiseGap>>(kRingCapacity);
        p->histogram = std::make_unique<std::atomic<uint64_t>[]>(kNoiseHistogramBuckets); // zeroed: touched here
        if (!env.allLocked()) {
            if (!lockRange(p->ring->storage(), p->ring->storageBytes()) ||
                !lockRange(p->histogram.get(), kNoiseHistogramBuckets * sizeof(std::atomic<uint64_t>))) {
                locked = false;
                err = errno;
            }
        }
        m_pollers.push_back(std::move(p));
    }
    m_memoryLock = rangeLockStatus(env, locked, err, "the rings, the histograms and the pollers' stacks");
}

NoiseRun::~NoiseRun()
{
    stop();
}

void NoiseRun::startTracing()
{
    if (!m_config.trace) {
        m_untracedReason = "tracing is off (trace false): every gap is measured but none is attributed; turn "
                           "tracing on to see who took them";
        return;
    }
    auto queue = std::make_shared<TraceBatchQueue>(kTraceQueueEvents);
    auto session = std::make_unique<TraceSession>();
    TraceConfig tc;
    tc.cpus = m_config.cpus;
    if (Error e = session->start(tc, m_env.topology, [queue](std::span<const TraceEvent> b) { queue->push(b); })) {
        m_untracedReason = "not traced: " + e.message;
        return;
    }
    m_missingEvents = session->missingEvents();
    const bool hasSwitch =
        std::find(m_missingEvents.begin(), m_missingEvents.end(), "sched/sched_switch") == m_missingEvents.end();
    if (!hasSwitch) {
        (void)session->stop();
        m_untracedReason = "not traced: this kernel has no sched/sched_switch trace event, without which no "
                           "thread can be named";
        return;
    }
    m_queue = std::move(queue);
    m_session = std::move(session);
    m_traced = true;
}

Error NoiseRun::start()
{
    startTracing();
    const TraceProbe probe = TraceSession::probe(); // after the session: tracefs is mounted now if it can be
    m_osnoiseTracer = probe.osnoiseTracer;
    if (probe.osnoiseTracer)
        m_osnoiseNote = "this kernel has the osnoise tracer (CONFIG_OSNOISE_TRACER): record it on the same CPUs "
                        "(docs/experiments/noise.md) and give the file to --osnoise-file to see both side by side";
    else if (!probe.kernelHasTracefs || (probe.usable && !probe.needsMount))
        m_osnoiseNote = "this kernel has no osnoise tracer (CONFIG_OSNOISE_TRACER): only rtscope's own "
                        "measurement is shown (a trace saved on another kernel can be shown beside it: --osnoise-file)";
    else
        m_osnoiseNote = "whether this kernel has the osnoise tracer is not known: " + probe.reason;

    std::vector<NoiseAttribution::Target> targets;
    for (const auto& p : m_pollers)
        targets.push_back({p->cpu, 0});
    m_attribution = std::make_unique<NoiseAttribution>(targets, m_traced);

    Counters& k = *m_counters;
    k.stealTickNs = 1e9 / double(sysconf(_SC_CLK_TCK));
    k.stealStart = noiseReadSteal(m_config.cpus, k.stealNote);
    k.stealNow = k.stealStart;
    for (int cpu : m_config.cpus) {
        std::string why;
        const int fd = noiseOpenSmi(cpu, why);
        k.msrFd.push_back(fd);
        k.smiStart.push_back(noiseReadSmi(fd));
        if (fd < 0 && k.smiNote.empty())
            k.smiNote = why;
    }
    k.smiNow = k.smiStart;
    if (k.smiNote.empty())
        k.smiNote = "read from /dev/cpu/N/msr (MSR_SMI_COUNT) at the start, every 5 s and at the end";

    std::string tscNote;
    m_loopClock = LoopClock::best(kLoopClockCalibrationNs, &tscNote);
    m_loopClockText = m_loopClock.describe() + (tscNote.empty() ? "" : ": " + tscNote);
    const int64_t start = nowNs();
    m_startNs.store(start);
    k.stealReadNs = k.smiReadNs = start;
    if (Error e = m_env.checkInterrupted("the noise lab's tracing started"))
        return e;
    for (auto& pp : m_pollers) {
        Poller& p = *pp;
        const ThreadSpec spec = m_env.threadSpec(m_config.policy, m_config.priority, p.cpu, "rtscope-noise");
        if (Error e = p.thread.start(spec, [this, &p](const std::atomic<bool>& stop) { pollLoop(p, stop); }))
            return e; // the host stops what did start
        p.tid.store(p.thread.tid(), std::memory_order_relaxed);
    }
    for (size_t i = 0; i < m_pollers.size(); ++i)
        m_attribution->setTid(i, m_pollers[i]->tid.load(std::memory_order_relaxed));
    return waitUntilWorkersReady(m_pollers, "the noise lab's polling threads");
}

void NoiseRun::pollLoop(Poller& p, const std::atomic<bool>& stop)
{
    const int64_t threshold = m_config.thresholdNs;
    std::atomic<uint64_t>* const histogram = p.histogram.get();
    constexpr size_t kLast = kNoiseHistogramBuckets - 1;
    uint64_t loops = 0, drops = 0;
    int64_t sum = 0, minNs = INT64_MAX, maxNs = 0, dropNs = 0;
    unsigned sincePublish = 0;
    const auto publish = [&](int64_t now) {
        p.loops.store(loops, std::memory_order_relaxed);
        p.sumNs.store(sum, std::memory_order_relaxed);
        p.minNs.store(loops ? minNs : 0, std::memory_order_relaxed);
        p.maxNs.store(maxNs, std::memory_order_relaxed);
        p.drops.store(drops, std::memory_order_relaxed);
        p.dropNs.store(dropNs, std::memory_order_relaxed);
        p.lastNs.store(now, std::memory_order_release); // after the ring's push: the collector's progress mark
        sincePublish = 0;
    };

    // Loop lengths come from the loop clock (the TSC where it is invariant: a turn costs a raw counter read, not a
    // vDSO clock read); a gap's place on the trace clock, which the attribution matches events against, is one
    // CLOCK_MONOTONIC read at its end.
    const LoopClock clock = m_loopClock;
    uint64_t prevTicks = clock.read();
    int64_t prev = clock.monotonicStamp(prevTicks);
    p.firstNs.store(prev, std::memory_order_relaxed);
    p.lastNs.store(prev, std::memory_order_release);
    p.ready.store(true, std::memory_order_release);
    while (!stop.load(std::memory_order_relaxed) && !m_quit.load(std::memory_order_relaxed)) {
        const uint64_t ticks = clock.read();
        const int64_t d = clock.toNs(ticks - prevTicks);
        prevTicks = ticks;
        const size_t b = std::min(size_t(d / 1000), kLast);
        histogram[b].store(histogram[b].load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        ++loops;
        sum += d;
        minNs = std::min(minNs, d);
        maxNs = std::max(maxNs, d);
        if (d >= threshold) {
            prev = clock.monotonicStamp(ticks);
            if (!p.ring->tryPush({prev - d, prev})) { // never blocks: a full ring counts the drop
                ++drops;
                dropNs += d;
            }
            publish(prev);
        } else if (++sincePublish >= kNoisePublishLoops) {
            prev = clock.monotonicStamp(ticks);
            publish(prev);
        }
    }
    prev = clock.monotonicStamp(prevTicks);
    publish(prev);
    if (isRealtime(m_config.policy)) {
        sched_param sp{}; // leaves demoted, whatever stop() does next
        sched_setscheduler(0, SCHED_OTHER, &sp);
    }
    p.done.store(true, std::memory_order_release);
}

void NoiseRun::stop()
{
    if (m_stopped.exchange(true))
        return;
    // Every poller sees the flag within one loop; a real-time one is demoted regardless (one that had not seen it
    // yet would otherwise hold its CPU against the joiner's wake-up), then all are joined together.
    m_quit.store(true, std::memory_order_relaxed);
    std::vector<RtThread*> threads;
    for (auto& p : m_pollers) {
        if (isRealtime(m_config.policy))
            p->thread.demote();
        threads.push_back(&p->thread);
    }
    RtThread::stopAll(threads, kJoinBudgetMs);
    if (m_startNs.load() != 0)
        m_stoppedNs.store(nowNs());
    if (m_session) {
        (void)m_session->stop(); // its last events reach the queue; the collector's last drain takes them
        m_readerStopLost.store(m_session->stats().unreadAtStop);
    }
    // The host stops the collector next: it drains what is left and publishes.
}

bool NoiseRun::finished() const
{
    if (m_pollers.empty())
        return false;
    const int64_t start = m_startNs.load();
    if (start != 0 && m_config.durationNs > 0 && nowNs() - start >= m_config.durationNs)
        return true;
    bool allDone = true;
    for (const auto& p : m_pollers)
        allDone = allDone && p->done.load(std::memory_order_acquire);
    return allDone && !m_stopped;
}

void NoiseRun::growHeat(Poller& p, int64_t window)
{
    // Every window from the run's first up to @p window is in the strip (a quiet one as 0), the oldest let go.
    while (p.heatFirst + int64_t(p.heatNs.size()) <= window)
        p.heatNs.push_back(0);
    while (p.heatNs.size() > kNoiseHeatWindows) {
        p.heatNs.pop_front();
        ++p.heatFirst;
    }
}

void NoiseRun::addHeat(Poller& p, const NoiseGap& gap)
{
    const int64_t t0 = m_startNs.load(std::memory_order_relaxed);
    for (int64_t from = gap.startNs; from < gap.endNs;) {
        const int64_t w = (from - t0) / kNoiseHeatWindowNs; // a poller starts after t0: never negative
        const int64_t to = std::min(gap.endNs, t0 + (w + 1) * kNoiseHeatWindowNs);
        growHeat(p, w);
        if (w >= p.heatFirst)
            p.heatNs[size_t(w - p.heatFirst)] += to - from;
        from = to;
    }
}

size_t NoiseRun::drain()
{
    if (!m_attribution)
        return 0;
    size_t total = 0;
    if (m_queue)
        total += m_queue->take([this](std::span<const TraceEvent> batch) { m_attribution->addEvents(batch); });
    for (size_t i = 0; i < m_pollers.size(); ++i) {
        Poller& p = *m_pollers[i];
        // Progress first: every gap that ends by then is in the ring now.
        const int64_t progress = p.lastNs.load(std::memory_order_acquire);
        total += m_drainBatch.drain(*p.ring, [this, i, &p](std::span<const NoiseGap> batch) {
            for (const NoiseGap& g : batch) {
                m_attribution->addGap(i, g);
                addHeat(p, g);
            }
        });
        m_attribution->setProgress(i, progress);
    }
    m_attribution->settle(std::max(m_attribution->defaultWatermarkNs(), nowNs() - kMaxSettleDelayNs));
    return total;
}

void NoiseRun::readCounters(int64_t now, bool final)
{
    Counters& k = *m_counters;
    if (final || now - k.stealReadNs >= kStealReadNs) {
        std::string why;
        k.stealNow = noiseReadSteal(m_config.cpus, why);
        if (k.stealNote.empty())
            k.stealNote = why;
        k.stealReadNs = now;
    }
    if (final || now - k.smiReadNs >= kSmiReadNs) {
        for (size_t i = 0; i < k.msrFd.size(); ++i)
            if (k.msrFd[i] >= 0)
                k.smiNow[i] = noiseReadSmi(k.msrFd[i]);
        k.smiReadNs = now;
    }
}

std::string NoiseRun::traceNote() const
{
    if (!m_traced)
        return m_untracedReason + ". Every gap's time is shown as untraced.";
    std::vector<std::string> notes;
    const NoiseAttribution& a = *m_attribution;
    if (a.lossReports() > 0) {
        int64_t lostNs = 0;
        for (size_t i = 0; i < a.cpuCount(); ++i)
            lostNs += a.cpu(i).lostNs;
        notes.push_back("the kernel lost " + std::to_string(a.lostEvents()) + " trace events (" +
                        std::to_string(a.lossReports()) + " reports); the " + formatDuration(lostNs) +
                        " of gaps they covered are counted as unexplained");
    }
    if (m_queue && m_queue->droppedEvents() > 0)
        notes.push_back("the collector fell behind and dropped " + std::to_string(m_queue->droppedEvents()) +
                        " trace events (their time is unexplained)");
    if (a.shedEvents() > 0)
        notes.push_back(std::to_string(a.shedEvents()) +
                        " trace events waited too long and were let go (their time is unexplained)");
    if (a.lateEvents() > 0)
        notes.push_back(std::to_string(a.lateEvents()) +
                        " trace events came after their gaps were settled (the trace reader fell more than 1 s "
                        "behind); those gaps may show unexplained time that was not");
    if (const uint64_t unread = m_readerStopLost.load(); unread > 0)
        notes.push_back(std::to_string(unread) + " trace events were still unread at the stop");
    if (!m_missingEvents.empty()) {
        std::string list;
        for (const std::string& e : m_missingEvents)
            list += (list.empty() ? "" : ", ") + e;
        notes.push_back("this kernel lacks the trace events " + list + " (their time shows as unexplained)");
    }
    std::string out;
    for (const std::string& n : notes)
        out += (out.empty() ? "" : "; ") + n;
    return out;
}

std::shared_ptr<NoiseSnapshot> NoiseRun::makeSnapshot(bool running)
{
    auto snap = newRunSnapshot<NoiseSnapshot>(m_config, running, m_startNs.load(), nowNs());
    snap->memoryLock = m_memoryLock.detail;
    if (!m_attribution)
        return snap;
    if (!running) {
        drain(); // the session was stopped before this: every event it recorded is in the queue
        m_attribution->finish();
    }
    const int64_t stopped = m_stoppedNs.load();
    snap->elapsedNs = (stopped != 0 && !running ? stopped : snap->publishedNs) - snap->startNs;
    snap->finished = m_config.durationNs > 0 && snap->elapsedNs >= m_config.durationNs;
    readCounters(snap->publishedNs, !running);
    const Counters& k = *m_counters;

    std::vector<int64_t> runtimes;
    for (size_t i = 0; i < m_pollers.size(); ++i) {
        Poller& p = *m_pollers[i];
        const NoiseCpuAttribution& a = m_attribution->cpu(i);
        NoiseCpuStats s;
        s.cpu = p.cpu;
        s.tid = p.tid.load(std::memory_order_relaxed);
        const int64_t last = p.lastNs.load(std::memory_order_acquire);
        const int64_t first = p.firstNs.load(std::memory_order_relaxed);
        // Up to what is settled: the noise figures cover that span exactly, so they add up.
        s.runtimeNs = first > 0 ? std::max<int64_t>(std::min(a.settledNs, last) - first, 0) : 0;
        s.drops = p.drops.load(std::memory_order_relaxed);
        const int64_t dropNs = p.dropNs.load(std::memory_order_relaxed);
        s.noiseNs = a.noiseNs + dropNs;
        s.kindNs = a.kindNs;
        s.kindCount = a.kindCount;
        // Dropped gaps' time is noise nobody can be named for.
        s.kindNs[size_t(m_traced ? NoiseKind::Unexplained : NoiseKind::Untraced)] += dropNs;
        s.gaps = a.gaps + s.drops;
        s.loops = p.loops.load(std::memory_order_relaxed);
        s.minLoopNs = p.minNs.load(std::memory_order_relaxed);
        s.maxLoopNs = p.maxNs.load(std::memory_order_relaxed);
        s.maxSingleNs = s.drops > 0 ? std::max(a.maxSingleNs, s.maxLoopNs) : a.maxSingleNs;
        s.meanLoopNs = s.loops ? double(p.sumNs.load(std::memory_order_relaxed)) / double(s.loops) : 0.0;
        s.availablePercent = s.runtimeNs > 0
                                 ? 100.0 * double(std::max<int64_t>(s.runtimeNs - s.noiseNs, 0)) / double(s.runtimeNs)
                                 : 100.0;
        s.histogram.resize(kNoiseHistogramBuckets);
        for (size_t b = 0; b < kNoiseHistogramBuckets; ++b)
            s.histogram[b] = p.histogram[b].load(std::memory_order_relaxed);
        // Heat: each window's noise over the part of it the poller ran (the first and the current one are partial).
        if (last > 0)
            growHeat(p, (last - snap->startNs) / kNoiseHeatWindowNs); // up to the window the poller is in
        s.heatFirstWindow = p.heatFirst;
        s.heat.reserve(p.heatNs.size());
        for (size_t w = 0; w < p.heatNs.size(); ++w) {
            const int64_t windowStart = snap->startNs + (p.heatFirst + int64_t(w)) * kNoiseHeatWindowNs;
            const int64_t covered = std::min(windowStart + kNoiseHeatWindowNs, last) - std::max(windowStart, first);
            s.heat.push_back(covered > 0 ? float(std::min(1.0, double(p.heatNs[w]) / double(covered))) : 0.f);
        }
        if (i < k.stealStart.size() && k.stealStart[i] >= 0 && k.stealNow[i] >= 0)
            s.stealNs = int64_t(double(k.stealNow[i] - k.stealStart[i]) * k.stealTickNs);
        if (i < k.smiStart.size() && k.smiStart[i] >= 0 && k.smiNow[i] >= 0)
            s.smiCount = (k.smiNow[i] - k.smiStart[i]) & 0xffffffff; // the counter is 32 bits wide
        if (p.done.load(std::memory_order_acquire) && !m_stopped)
            s.error = "the polling thread stopped early";
        runtimes.push_back(s.runtimeNs);
        snap->cpus.push_back(std::move(s));
    }
    snap->culprits = m_attribution->culprits(runtimes, NoiseSnapshot::kMaxCulprits);
    snap->traced = m_traced;
    snap->traceNote = traceNote();
    snap->traceLostEvents = m_attribution->lostEvents();
    snap->stealTickNs = k.stealTickNs;
    snap->stealNote = k.stealNote;
    snap->smiNote = k.smiNote;
    snap->osnoiseTracer = m_osnoiseTracer;
    snap->osnoiseNote = m_osnoiseNote;
    snap->loopClock = m_loopClockText;
    return snap;
}

} // namespace rtscope
