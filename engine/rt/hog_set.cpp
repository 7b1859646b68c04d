#include "engine/rt/hog_set.h"

#include "engine/rt/caller_affinity.h"

#include <algorithm>
#include <cerrno>
#include <string>
#include <sys/resource.h>
#include <utility>

namespace rtscope {

HogSet::HogSet(int maxThreads)
    : m_maxThreads(std::max(maxThreads, 0))
    , m_counters(new Counter[size_t(std::max(maxThreads, 1))])
{}

HogSet::~HogSet()
{
    stopAll();
}

void HogSet::place(HogPlacement placement)
{
    stopAll();
    m_placement = std::move(placement);
}

int HogSet::perCpu() const
{
    return int(m_threads.size() / std::max<size_t>(1, m_placement.cpus.size()));
}

uint64_t HogSet::iterations() const
{
    uint64_t total = m_retiredIterations.load(std::memory_order_relaxed);
    for (int i = 0; i < m_maxThreads; ++i)
        total += m_counters[size_t(i)].iterations.load(std::memory_order_relaxed);
    return total;
}

void HogSet::stopAll()
{
    for (size_t i = 0; i < m_threads.size(); ++i)
        m_counters[i].retire.store(true, std::memory_order_relaxed);
    // Stopping every hog (a count of 0) starts nothing, so it cannot fail.
    (void)setPerCpu(0);
}

Error HogSet::setPerCpu(int perCpu, const std::function<bool()>& interrupted)
{
    const size_t cpus = m_placement.cpus.size();
    const size_t n = std::min(size_t(std::max(perCpu, 0)) * cpus, size_t(m_maxThreads));
    const size_t have = m_threads.size();
    if (n < have) {
        // Flag every hog to remove first: each then exits the moment it next runs, instead of one slice
        // round per join.
        std::vector<RtThread*> leaving;
        for (size_t i = n; i < have; ++i) {
            m_counters[i].retire.store(true, std::memory_order_relaxed);
            leaving.push_back(m_threads[i].get());
        }
        RtThread::stopAll(leaving, kJoinBudgetMs);
        for (size_t i = have; i-- > n;) {
            m_retiredIterations += m_counters[i].iterations.exchange(0, std::memory_order_relaxed);
            m_threads.pop_back();
        }
        return {};
    }
    if (n == have)
        return {};
    // The thread that starts the hogs must not compete with them for their CPUs: among N spinners it would get a
    // turn in N, and the start-up would grow with N² again.
    const ScopedCallerAffinity offTheHogCpus(m_placement.cpus);
    if (Error e = checkNice())
        return e;
    // Each CPU's spec is checked once here (sysfs and cgroup files), not again for every hog.
    for (int cpu : m_placement.cpus)
        if (Error e = RtThread::check(spec(cpu)))
            return e;
    for (size_t i = have; i < n; ++i) {
        if (interrupted && interrupted())
            return {ErrorKind::Interrupted, "A stop was requested while the hogs were starting (" +
                                                std::to_string(i - have) + " of " + std::to_string(n - have) +
                                                " had started)."};
        if (Error e = launchOne(i))
            return e;
    }
    return {};
}

Error HogSet::checkNice() const
{
    errno = 0;
    const int current = getpriority(PRIO_PROCESS, 0); // this thread's nice, which a new thread starts with
    if (errno == 0 && m_placement.nice >= current)
        return {};                  // raising one's nice needs no privilege
    return tryThreadSpec(spec(-1)); // it inherits this thread's affinity: off the hog CPUs
}

ThreadSpec HogSet::spec(int cpu) const
{
    ThreadSpec spec;
    spec.policy = m_placement.policy;
    spec.nice = m_placement.nice;
    spec.cpu = cpu;
    spec.name = m_placement.name;
    spec.stackBytes = 64 * 1024;
    spec.prefaultBytes = 0;
    spec.lockStack = false;
    return spec;
}

Error HogSet::launchOne(size_t index)
{
    Counter& counter = m_counters[index];
    counter.retire.store(false, std::memory_order_relaxed);
    auto thread = std::make_unique<RtThread>();
    // Hog i on CPU i mod n: every CPU gets as many.
    Error e = thread->launch(
        spec(m_placement.cpus[index % m_placement.cpus.size()]),
        [&counter](const std::atomic<bool>& stop) {
            uint64_t local = counter.iterations.load(std::memory_order_relaxed);
            while (!stop.load(std::memory_order_relaxed) && !counter.retire.load(std::memory_order_relaxed)) {
                // Pure CPU work; the counter is published every 4096 iterations.
                for (int k = 0; k < 4096; ++k)
                    asm volatile("" : "+r"(local));
                local += 4096;
                counter.iterations.store(local, std::memory_order_relaxed);
            }
        },
        true);
    if (e)
        return e;
    m_threads.push_back(std::move(thread));
    return {};
}

} // namespace rtscope
