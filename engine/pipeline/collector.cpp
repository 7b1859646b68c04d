#include "engine/pipeline/collector.h"

#include "engine/util/clock.h"
#include "engine/util/helper_thread.h"

#include <algorithm>
#include <chrono>
#include <pthread.h>
#include <sched.h>

namespace rtscope {

Collector::Collector() = default;

Collector::~Collector()
{
    stop();
}

void Collector::addSource(CollectorSource* source)
{
    std::lock_guard lock(m_sourcesMutex);
    if (std::find(m_sources.begin(), m_sources.end(), source) == m_sources.end())
        m_sources.push_back(source);
}

void Collector::removeSource(CollectorSource* source)
{
    std::lock_guard lock(m_sourcesMutex);
    m_sources.erase(std::remove(m_sources.begin(), m_sources.end(), source), m_sources.end());
    m_held.erase(std::remove(m_held.begin(), m_held.end(), source), m_held.end());
}

void Collector::hold(CollectorSource* source)
{
    std::lock_guard lock(m_sourcesMutex); // a pass holds it from its first drain to its last publish
    if (std::find(m_held.begin(), m_held.end(), source) == m_held.end())
        m_held.push_back(source);
}

void Collector::start(int64_t drainIntervalNs, int64_t publishIntervalNs, int cpu)
{
    if (m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_wakeMutex);
        m_stopRequested = false;
    }
    {
        std::lock_guard lock(m_sourcesMutex);
        m_held.clear();
    }
    m_publishIntervalNs.store(publishIntervalNs, std::memory_order_relaxed);
    m_thread = std::thread([this, drainIntervalNs] { run(drainIntervalNs); });
    // Best effort: if the CPU is not allowed the collector simply floats.
    nameAndPlaceHelper(m_thread, "rtscope-collect", cpu);
}

void Collector::stop()
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_wakeMutex);
        m_stopRequested = true;
    }
    m_wake.notify_all();
    m_thread.join();
    flushNow();
}

void Collector::flushNow()
{
    std::lock_guard lock(m_sourcesMutex);
    for (CollectorSource* s : m_sources) {
        while (s->drain() > 0) {
        }
        s->publish();
    }
}

void Collector::run(int64_t drainIntervalNs)
{
    // Measured from the last publish with the interval as it is now, so a new interval applies at the next pass.
    int64_t lastPublish = nowNs();
    std::unique_lock wakeLock(m_wakeMutex);
    while (!m_stopRequested) {
        wakeLock.unlock();
        {
            std::lock_guard lock(m_sourcesMutex);
            const auto held = [this](CollectorSource* s) {
                return std::find(m_held.begin(), m_held.end(), s) != m_held.end();
            };
            for (CollectorSource* s : m_sources)
                if (!held(s))
                    s->drain();
            const int64_t now = nowNs();
            if (now - lastPublish >= m_publishIntervalNs.load(std::memory_order_relaxed) ||
                m_publishRequested.exchange(false, std::memory_order_relaxed)) {
                for (CollectorSource* s : m_sources)
                    if (!held(s))
                        s->publish();
                lastPublish = now;
            }
        }
        m_passes.fetch_add(1, std::memory_order_relaxed);
        wakeLock.lock();
        m_wake.wait_for(wakeLock, std::chrono::nanoseconds(drainIntervalNs), [this] { return m_stopRequested; });
    }
}

} // namespace rtscope
