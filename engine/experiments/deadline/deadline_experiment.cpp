#include "engine/experiments/deadline/deadline_experiment.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/throttle_settings.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <sched.h>
#include <unistd.h>

namespace rtscope {

namespace {

constexpr const char* kDeadlineFifoNotCounted = "not counted: a SCHED_FIFO thread has no runtime to overrun";

int64_t deadlineTickNs()
{
    // CLOCK_MONOTONIC_COARSE advances once per tick: its resolution is the tick (4 ms at HZ=250). Without the
    // high-resolution tick for deadline tasks, the kernel notices an exhausted runtime at the next tick, so a
    // runaway may overrun its runtime by up to this much (docs/experiments/deadline.md).
    timespec res{};
    return clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0 ? fromTimespec(res) : 0;
}

// Every thread of the lab: a small stack, prefaulted in part.
ThreadSpec deadlineLabSpec(const std::string& name, Policy policy)
{
    ThreadSpec s;
    s.policy = policy;
    s.name = name;
    s.stackBytes = 64 * 1024;
    s.prefaultBytes = 16 * 1024;
    return s;
}

ThreadSpec deadlineSpec(const std::string& name, const DeadlineParams& p, DeadlineOverrunCounter* overruns = nullptr)
{
    ThreadSpec s = deadlineLabSpec(name, Policy::Deadline);
    s.deadline = p;
    s.overruns = overruns;
    return s;
}

ThreadSpec pinnedSpec(const std::string& name, Policy policy, int priority, int cpu)
{
    ThreadSpec s = deadlineLabSpec(name, policy);
    s.priority = priority;
    s.cpu = cpu;
    return s;
}

} // namespace

DeadlineRun::DeadlineRun(const DeadlineConfig& config, const RunEnvironment& env)
    : m_config(config)
    , m_env(env)
    , m_agg(kSlots)
{
    const CpuTopology& topo = env.topology;
    m_tickNs = deadlineTickNs();
    if (m_config.lesson == DeadlineLesson::Isolation) {
        m_config.counterCpu = m_config.resolvedCounterCpu(topo);
        m_controllerCpu = topo.otherThan({m_config.counterCpu});
        const bool fifo = m_config.runawayPolicy == DeadlineRunawayPolicy::Fifo;
        m_slotNames = {fifo ? "runaway (FIFO " + std::to_string(m_config.runawayPriority) + ")"
                            : std::string("runaway (DEADLINE)"),
                       "good (DEADLINE)"};
        m_slotDeclared = {fifo ? DeadlineParams{} : m_config.runaway, m_config.good};
        if (fifo)
            m_overruns[kDeadlineRunaway].notCounted = kDeadlineFifoNotCounted;
        m_throttling = [&] {
            const ThrottleSettings t = readThrottleSettings(m_config.counterCpu);
            return t.fairServerKernel ? "fair server " + t.fairServerText() + "; RT throttling " + t.rtThrottlingText()
                                      : "RT throttling " + t.rtThrottlingText();
        }();
    } else if (m_config.lesson == DeadlineLesson::Edf) {
        m_config.cpu = m_config.resolvedCpu(topo);
        m_controllerCpu = topo.otherThan({m_config.cpu});
        m_slotNames = {"short (FIFO " + std::to_string(m_config.priority) + ")",
                       "long (FIFO " + std::to_string(m_config.priority + 1) + ")", "short (DEADLINE)",
                       "long (DEADLINE)"};
        m_slotDeclared = {DeadlineParams{}, DeadlineParams{},
                          DeadlineConfig::edfReservation(m_config.shortWorkNs, m_config.shortPeriodNs),
                          DeadlineConfig::edfReservation(m_config.longWorkNs, m_config.longPeriodNs)};
    }
    for (auto& r : m_rings)
        r = std::make_unique<Ring>();
    m_counterRing = std::make_unique<SpscRing<DeadlineCounterSample>>(kRingCapacity);
    m_batch.resize(512);
    if (!env.allLocked()) {
        bool locked = lockRange(m_counterRing->storage(), m_counterRing->storageBytes());
        for (auto& r : m_rings)
            locked = locked && lockRange(r->jobs.storage(), r->jobs.storageBytes());
        m_memoryLock = rangeLockStatus(env, locked, locked ? 0 : errno, "the rings and the threads' stacks");
    } else {
        m_memoryLock = env.memoryLock;
    }
}

DeadlineRun::~DeadlineRun()
{
    stop();
}

Error DeadlineRun::start()
{
    m_startNs = nowNs();
    switch (m_config.lesson) {
    case DeadlineLesson::Admission:
        return runAdmission();
    case DeadlineLesson::Isolation:
        return startIsolation();
    case DeadlineLesson::Edf:
        break;
    }
    return startEdf();
}

Error DeadlineRun::startThread(RtThread& t, const ThreadSpec& spec, std::function<void(const std::atomic<bool>&)> body)
{
    return t.start(spec, std::move(body));
}

bool DeadlineRun::leaving(const std::atomic<bool>& stop) const
{
    return stop.load(std::memory_order_relaxed) || m_leave.load(std::memory_order_relaxed);
}

// ---- Admission ----

Error DeadlineRun::runAdmission()
{
    const DeadlineLimits limits = DeadlineLimits::read();
    DeadlineBudget budget;
    budget.perCpuLimit = limits.perCpuLimit();
    budget.cpus = limits.cpus;
    double servers = 0;
    bool serversKnown = true;
    for (int cpu : m_env.topology.online) {
        const ThrottleSettings t = readThrottleSettings(cpu);
        budget.fairServerKernel = t.fairServerKernel;
        if (!t.fairServerKernel)
            break;
        if (t.fairServerRuntimeNs && t.fairServerPeriodNs && *t.fairServerPeriodNs > 0)
            servers += double(*t.fairServerRuntimeNs) / double(*t.fairServerPeriodNs);
        else
            serversKnown = false;
    }
    if (budget.fairServerKernel && serversKnown)
        budget.fairServers = servers;
    else if (!budget.fairServerKernel)
        budget.fairServers = 0.0;
    for (const DeadlineTask& t : admittedDeadlineTasks())
        budget.othersAtStart += t.params.bandwidth();
    m_agg.setBudget(budget);

    const std::vector<DeadlineParams> tasks = m_config.admissionTasks(limits);
    m_config.tasks = tasks;
    // A holder only keeps its reservation: it sleeps, waking every 10 ms to look at its stop flag (the wake signal
    // interrupts the sleep at once).
    auto hold = [this](const std::atomic<bool>& stop) {
        const timespec tenMs{0, 10'000'000};
        while (!leaving(stop))
            clock_nanosleep(CLOCK_MONOTONIC, 0, &tenMs, nullptr);
    };
    std::vector<RtThread*> holders(tasks.size(), nullptr);
    bool retried = false;
    for (size_t i = 0; i < tasks.size(); ++i) {
        const ThreadSpec spec = deadlineSpec("rtscope-dl-" + std::to_string(i + 1), tasks[i]);
        auto thread = std::make_unique<RtThread>();
        Error e = startThread(*thread, spec, hold);
        // EBUSY (Unavailable) is the lesson; a missing privilege or a parameter the kernel rejects is not.
        if (e && e.kind != ErrorKind::Unavailable)
            return e;
        DeadlineAdmissionStep add{
            DeadlineAdmissionStep::Action::Add, int(i), tasks[i].runtimeNs, tasks[i].periodNs, !e, 1,
            e ? e.message : "admitted"};
        m_admissionSteps.push_back(add);
        if (!e) {
            holders[i] = thread.get();
            m_deadlineThreads.push_back(std::move(thread));
            continue;
        }
        if (retried)
            continue;
        // The first refusal: the first admitted task leaves, and the refused one asks again until the kernel has
        // freed the bandwidth (a task that left keeps it until the end of its current period).
        size_t leaver = tasks.size();
        for (size_t j = 0; j < i; ++j)
            if (holders[j]) {
                leaver = j;
                break;
            }
        if (leaver == tasks.size())
            continue;
        retried = true;
        holders[leaver]->demote();
        holders[leaver]->stop(kJoinBudgetMs);
        holders[leaver] = nullptr;
        m_admissionSteps.push_back({DeadlineAdmissionStep::Action::Remove, int(leaver), tasks[leaver].runtimeNs,
                                    tasks[leaver].periodNs, true, 1, "left (demoted to SCHED_OTHER and joined)"});
        const int64_t giveUpNs = nowNs() + 2 * std::max(tasks[leaver].periodNs, tasks[i].periodNs) + 50'000'000;
        int attempts = 0;
        for (;;) {
            ++attempts;
            auto again = std::make_unique<RtThread>();
            Error r = startThread(*again, spec, hold);
            if (r && r.kind != ErrorKind::Unavailable)
                return r;
            if (!r || nowNs() >= giveUpNs) {
                m_admissionSteps.push_back({DeadlineAdmissionStep::Action::Retry, int(i), tasks[i].runtimeNs,
                                            tasks[i].periodNs, !r, attempts, r ? r.message : "admitted"});
                if (!r) {
                    holders[i] = again.get();
                    m_deadlineThreads.push_back(std::move(again));
                }
                break;
            }
            const timespec pause = toTimespec(kAdmissionRetryNs);
            nanosleep(&pause, nullptr);
        }
    }
    m_endNs = nowNs();
    return {};
}

// ---- Isolation ----

Error DeadlineRun::startIsolation()
{
    const int64_t t0 = m_startNs + kLeadInNs;
    m_endNs = t0 + m_config.durationNs;
    // The runaway is throttled for most of every period: at the run's end it may be off the CPU through no fault
    // of its own, so only the CPU time it uses past the end counts.
    if (Error e = m_watchdog.start(
            throttledSpinnerWatchdog<DeadlineConfig>(m_controllerCpu, DeadlineConfig::kWatchdogPriority)))
        return e;
    m_watchdogSlot = m_watchdog.addSlot();

    auto counter = std::make_unique<RtThread>();
    if (Error e = startThread(*counter, pinnedSpec("rtscope-counter", Policy::Other, 0, m_config.counterCpu),
                              [this](const std::atomic<bool>& stop) { counterLoop(stop); }))
        return e;
    m_otherThreads.push_back(std::move(counter));
    auto sampler = std::make_unique<RtThread>();
    if (Error e = startThread(*sampler, pinnedSpec("rtscope-sampler", Policy::Other, 0, m_controllerCpu),
                              [this](const std::atomic<bool>& stop) { samplerLoop(stop); }))
        return e;
    m_otherThreads.push_back(std::move(sampler));

    auto good = std::make_unique<RtThread>();
    const DeadlineParams g = m_config.good;
    if (Error e = startThread(*good, deadlineSpec("rtscope-dl-good", g, &m_overruns[kDeadlineGood]),
                              [this, t0, g](const std::atomic<bool>& stop) {
                                  periodicLoop(kDeadlineGood, t0, m_endNs, m_config.goodWorkNs, g.periodNs,
                                               g.deadlineNs, stop);
                              }))
        return e;
    m_deadlineThreads.push_back(std::move(good));
    // The FIFO runaway is the starvation lab's spinner (docs/experiments/starvation.md): pinned to the counter's CPU,
    // bounded by the run's end and the watchdog, demoted first at stop(); the kernel's safety net (RT throttling or
    // the fair server) is all the counter gets. The deadline runaway cannot be pinned (the root-domain rule).
    const ThreadSpec runawaySpec =
        m_config.runawayPolicy == DeadlineRunawayPolicy::Fifo
            ? pinnedSpec("rtscope-fifo-spin", Policy::Fifo, m_config.runawayPriority, m_config.counterCpu)
            : deadlineSpec("rtscope-dl-spin", m_config.runaway, &m_overruns[kDeadlineRunaway]);
    auto runaway = std::make_unique<RtThread>();
    if (Error e = startThread(*runaway, runawaySpec, [this](const std::atomic<bool>& stop) { runawayLoop(stop); }))
        return e;
    m_deadlineThreads.push_back(std::move(runaway));
    return {};
}

void DeadlineRun::runawayLoop(const std::atomic<bool>& stop)
{
    m_watchdog.bindThread(m_watchdogSlot, gettid());
    m_watchdog.arm(m_watchdogSlot, m_endNs);
    // It asked for its runtime and now never sleeps: every stretch on the CPU ends when the kernel throttles it
    // (or something preempts it). A clock read per iteration finds the stretches: a jump of at least
    // kRunawayGapNs between two reads is time off the CPU.
    int64_t last = nowNs();
    int64_t stretchStart = last;
    int64_t cpuAtStart = threadCpuNs();
    int cpu = sched_getcpu();
    for (;;) {
        const int64_t t = nowNs();
        if (t >= m_endNs || leaving(stop))
            break;
        if (t - last >= DeadlineConfig::kRunawayGapNs) {
            const int64_t cpuNow = threadCpuNs();
            DeadlineJob j;
            j.slot = kDeadlineRunaway;
            j.cpu = cpu;
            j.startNs = stretchStart;
            j.endNs = last;
            j.ranNs = cpuNow - cpuAtStart;
            j.gapNs = t - last;
            (void)m_rings[kDeadlineRunaway]->jobs.tryPush(j); // a full ring counts the drop
            stretchStart = t;
            cpuAtStart = cpuNow;
            cpu = sched_getcpu();
        }
        last = t;
    }
    // The last stretch, cut short by the end, is not a whole period's and is left out.
    m_watchdog.disarm(m_watchdogSlot);
}

void DeadlineRun::counterLoop(const std::atomic<bool>& stop)
{
    // Its own CPU time every 8 batches of 1024 (a clock read per batch would cost the counter a few per cent): the
    // share of its CPU it got, next to the operations it managed.
    for (unsigned batch = 0; !leaving(stop); ++batch) {
        for (int i = 0; i < 1024; ++i)
            m_counterOps.fetch_add(1, std::memory_order_relaxed);
        if (batch % 8 == 0)
            m_counterCpuNs.store(threadCpuNs(), std::memory_order_relaxed);
    }
    m_counterCpuNs.store(threadCpuNs(), std::memory_order_relaxed);
}

void DeadlineRun::samplerLoop(const std::atomic<bool>& stop)
{
    // One sample per runaway period: the counter's progress per period.
    const int64_t period = m_config.runaway.periodNs;
    for (int64_t t = m_startNs + kLeadInNs; t <= m_endNs; t += period) {
        const timespec ts = toTimespec(t);
        while (!leaving(stop) && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
        }
        if (leaving(stop))
            return;
        (void)m_counterRing->tryPush(
            {nowNs(), m_counterOps.load(std::memory_order_relaxed), m_counterCpuNs.load(std::memory_order_relaxed)});
    }
}

// ---- EDF against inverted fixed priorities ----

Error DeadlineRun::startEdf()
{
    const int64_t t0 = m_startNs + kLeadInNs;
    const int64_t fifoEnd = t0 + m_config.durationNs;
    const int64_t t1 = fifoEnd + DeadlineConfig::kPhaseGapNs;
    const int64_t dlEnd = t1 + m_config.durationNs;
    const DeadlineConfig& c = m_config;

    // The deadline pair first: admitted now, it sleeps through the FIFO phase holding its bandwidth, so a refusal
    // is known before anything runs.
    m_deadlinePhaseRan = true;
    const struct {
        int slot;
        const char* name;
        int64_t work, period;
    } dl[2] = {{kDeadlineDlShort, "rtscope-dl-short", c.shortWorkNs, c.shortPeriodNs},
               {kDeadlineDlLong, "rtscope-dl-long", c.longWorkNs, c.longPeriodNs}};
    for (const auto& d : dl) {
        const DeadlineParams p = DeadlineConfig::edfReservation(d.work, d.period);
        auto t = std::make_unique<RtThread>();
        Error e = startThread(*t, deadlineSpec(d.name, p, &m_overruns[size_t(d.slot)]),
                              [this, d, t1, dlEnd, p](const std::atomic<bool>& stop) {
                                  periodicLoop(d.slot, t1, dlEnd, d.work, d.period, p.deadlineNs, stop);
                              });
        if (e && e.kind != ErrorKind::Unavailable)
            return e;
        if (e) {
            m_deadlinePhaseRan = false;
            m_deadlinePhaseNote = "the deadline phase did not run: " + e.message;
            break;
        }
        m_deadlineThreads.push_back(std::move(t));
    }
    if (!m_deadlinePhaseRan) {
        for (auto& t : m_deadlineThreads) {
            t->demote();
            t->stop(kJoinBudgetMs);
        }
        m_deadlineThreads.clear();
    }
    m_endNs = m_deadlinePhaseRan ? dlEnd : fifoEnd;
    m_deadlinePhaseNs = t1;

    // Rate-monotonic would give the short period the higher priority; the lesson inverts it.
    const struct {
        int slot;
        const char* name;
        int priority;
        int64_t work, period;
    } fifo[2] = {{kDeadlineFifoLong, "rtscope-fifo-long", c.priority + 1, c.longWorkNs, c.longPeriodNs},
                 {kDeadlineFifoShort, "rtscope-fifo-short", c.priority, c.shortWorkNs, c.shortPeriodNs}};
    for (const auto& f : fifo) {
        auto t = std::make_unique<RtThread>();
        if (Error e = startThread(*t, pinnedSpec(f.name, Policy::Fifo, f.priority, c.cpu),
                                  [this, f, t0, fifoEnd](const std::atomic<bool>& stop) {
                                      periodicLoop(f.slot, t0, fifoEnd, f.work, f.period, f.period, stop);
                                  }))
            return e;
        m_otherThreads.push_back(std::move(t));
    }
    return {};
}

void DeadlineRun::periodicLoop(int slot, int64_t firstReleaseNs, int64_t endNs, int64_t workNs, int64_t periodNs,
                               int64_t deadlineNs, const std::atomic<bool>& stop)
{
    for (int64_t k = 0;; ++k) {
        const int64_t release = firstReleaseNs + k * periodNs;
        if (release >= endNs)
            return;
        const timespec ts = toTimespec(release);
        while (!leaving(stop) && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
        }
        if (leaving(stop))
            return;
        // The job's work is CPU time, not wall time: time it is preempted does not count as work done.
        const int64_t cpu0 = threadCpuNs();
        while (threadCpuNs() - cpu0 < workNs)
            if (leaving(stop))
                return; // a job cut short by the stop is not counted
        const int64_t end = nowNs();
        DeadlineJob j;
        j.slot = slot;
        j.cpu = sched_getcpu();
        j.startNs = release;
        j.endNs = end;
        j.ranNs = threadCpuNs() - cpu0;
        j.lateNs = end - (release + deadlineNs);
        j.missed = j.lateNs > 0;
        (void)m_rings[size_t(slot)]->jobs.tryPush(j); // a full ring counts the drop
    }
}

// ---- Stop, drain, snapshot ----

void DeadlineRun::stop()
{
    if (m_stopped)
        return;
    m_stopped = true;
    m_stoppedNs = nowNs();
    m_leave.store(true, std::memory_order_relaxed);
    // A throttled deadline thread would see the flag only at its next period: demoted, it runs at once.
    for (auto& t : m_deadlineThreads)
        t->demote();
    std::vector<RtThread*> all;
    for (auto& t : m_deadlineThreads)
        all.push_back(t.get());
    for (auto& t : m_otherThreads)
        all.push_back(t.get());
    RtThread::stopAll(all, kJoinBudgetMs);
    m_deadlineThreads.clear();
    m_otherThreads.clear();
    m_watchdog.stop();
}

size_t DeadlineRun::drain()
{
    size_t n = 0;
    if (!m_admissionFed) {
        m_admissionFed = true;
        for (const DeadlineAdmissionStep& s : m_admissionSteps)
            m_agg.addAdmission(s);
        n += m_admissionSteps.size();
    }
    for (auto& r : m_rings) {
        size_t got;
        while ((got = r->jobs.popBatch(m_batch.data(), m_batch.size())) > 0) {
            for (size_t i = 0; i < got; ++i)
                m_agg.add(m_batch[i]);
            n += got;
        }
    }
    DeadlineCounterSample samples[64];
    size_t got;
    while ((got = m_counterRing->popBatch(samples, 64)) > 0) {
        for (size_t i = 0; i < got; ++i)
            m_agg.addCounter(samples[i]);
        n += got;
    }
    return n;
}

std::shared_ptr<DeadlineSnapshot> DeadlineRun::makeSnapshot(bool running)
{
    auto s = newRunSnapshot<DeadlineSnapshot>(m_config, running, m_startNs, nowNs());
    s->finished = finished();
    s->tickNs = m_tickNs;
    s->slotNames = m_slotNames;
    s->slotDeclared = m_slotDeclared;
    s->budget = m_agg.budget();
    s->admission = m_agg.admission();
    s->tasks = m_agg.tasks();
    s->tasks.resize(m_slotNames.size());
    for (size_t i = 0; i < s->tasks.size() && i < m_overruns.size(); ++i) {
        DeadlineTaskStats& t = s->tasks[i];
        if (m_slotDeclared[i].periodNs == 0) {
            t.overrunsNote = kDeadlineFifoNotCounted;
            continue;
        }
        const DeadlineOverrunFigure f = figureOf(m_overruns[i]);
        t.overruns = f.overruns;
        t.overrunsCounted = f.counted;
        t.overrunsNote = f.notCounted;
    }
    s->counter = m_agg.counter();
    if (m_config.lesson == DeadlineLesson::Isolation) {
        s->counterVerdict = counterVerdict(s->counter);
        s->throttling = m_throttling;
    }
    s->jobs = m_agg.jobs();
    s->jobsNotKept = m_agg.jobsNotKept();
    s->counterCpu = m_config.lesson == DeadlineLesson::Isolation ? m_config.counterCpu : -1;
    s->controllerCpu = m_controllerCpu;
    s->fifoCpu = m_config.lesson == DeadlineLesson::Edf ? m_config.cpu : -1;
    s->deadlinePhaseRan = m_deadlinePhaseRan;
    s->deadlinePhaseNote = m_deadlinePhaseNote;
    // Admitted, but stopped (Ctrl-C) before its first release: its zero jobs and zero misses are no result.
    if (m_deadlinePhaseRan && m_stopped && m_stoppedNs < m_deadlinePhaseNs) {
        s->deadlinePhaseRan = false;
        s->deadlinePhaseNote = "the deadline phase did not run: the run was stopped " +
                               formatDuration(std::max<int64_t>(0, m_stoppedNs - (m_startNs + kLeadInNs))) +
                               " into the FIFO phase, before the deadline phase began";
    }
    s->watchdog = m_watchdog.config();
    s->watchdogTrips = m_watchdog.trips();
    for (auto& r : m_rings)
        s->droppedJobs += r->jobs.drops();
    s->memoryLock = m_memoryLock.detail;
    s->error = m_error;
    return s;
}

std::string DeadlineRun::counterVerdict(const DeadlineCounterStats& c) const
{
    const std::optional<double> share = c.cpuShare();
    if (!share)
        return {};
    const std::string got = "the counter got " + formatFixed(*share * 100.0, 1) + " % of CPU " +
                            std::to_string(m_config.counterCpu) + " over " + formatDuration(c.cpuWallNs);
    if (m_config.runawayPolicy == DeadlineRunawayPolicy::Fifo)
        return got + " next to the SCHED_FIFO " + std::to_string(m_config.runawayPriority) +
               " runaway: only the kernel's safety-net window for SCHED_OTHER (see the throttling line; about "
               "50 ms per second by default, and a fair server waits until its tasks have starved for most "
               "of a period, so a run shorter than a second may see none of it)";
    return got + " next to the SCHED_DEADLINE runaway, which may take only its reservation (" +
           formatFixed(m_config.runaway.bandwidth() * 100.0, 1) +
           " % of a CPU): everything the reservations leave is the counter's";
}

bool DeadlineRun::finished() const
{
    return m_endNs > 0 && nowNs() >= m_endNs;
}

std::vector<int> DeadlineRun::busyCpus() const
{
    if (m_config.lesson == DeadlineLesson::Isolation)
        return {m_config.counterCpu};
    if (m_config.lesson == DeadlineLesson::Edf)
        return {m_config.cpu};
    return {};
}

} // namespace rtscope
