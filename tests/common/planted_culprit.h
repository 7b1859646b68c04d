#pragma once
// A planted culprit for the doctor's tests: a SCHED_FIFO thread with a random name, pinned to the measured CPU, at a
// priority above the measuring thread's, that spins for a burst and sleeps, over and over. Bounded (it sleeps most of
// the time and leaves within one cycle of stop(), a few milliseconds), demoted and joined on every exit path (the
// destructor).
#include <QRandomGenerator>
#include <QString>

#include <atomic>
#include <cerrno>
#include <ctime>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace rtscope::test {

class PlantedCulprit {
public:
    /// A burst of @p burstUs every @p cycleUs (not a multiple of the measuring period, so the bursts sweep over its
    /// wake-ups), FIFO @p priority on @p cpu.
    PlantedCulprit(int cpu, int priority, int burstUs = 5000, int cycleUs = 11300)
        : m_name("xq" + randomLetters(8))
    {
        m_thread = std::thread([=, this] { body(cpu, priority, burstUs, cycleUs); });
        while (m_tid.load() == 0)
            std::this_thread::yield();
    }
    ~PlantedCulprit() { stop(); }
    PlantedCulprit(const PlantedCulprit&) = delete;
    PlantedCulprit& operator=(const PlantedCulprit&) = delete;

    void stop()
    {
        m_stop.store(true);
        if (m_thread.joinable())
            m_thread.join();
    }
    pid_t tid() const { return m_tid.load(); }
    const std::string& name() const { return m_name; }
    /// Empty when it runs as asked; else why not (the kernel refused the policy or the CPU).
    std::string problem() const
    {
        while (m_tid.load() == 0)
            std::this_thread::yield();
        return m_problem;
    }

private:
    static std::string randomLetters(int n)
    {
        std::string s;
        for (int i = 0; i < n; ++i)
            s += char('a' + QRandomGenerator::global()->bounded(26));
        return s;
    }
    static long long nowNs()
    {
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
    }
    void body(int cpu, int priority, int burstUs, int cycleUs)
    {
        pthread_setname_np(pthread_self(), m_name.c_str());
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            m_problem = "sched_setaffinity: " + std::to_string(errno);
        sched_param sp{};
        sp.sched_priority = priority;
        if (m_problem.empty() && pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0)
            m_problem = "SCHED_FIFO refused";
        m_tid.store(pid_t(syscall(SYS_gettid)));
        long long next = nowNs();
        volatile unsigned sink = 0;
        while (!m_stop.load(std::memory_order_relaxed)) {
            const long long end = nowNs() + burstUs * 1000LL;
            while (nowNs() < end)
                sink = sink + 1;
            next += cycleUs * 1000LL;
            // Never a burst straight after another (a thread held up elsewhere must not turn into a spinner).
            if (const long long now = nowNs(); next < now)
                next = now + (cycleUs - burstUs) * 1000LL;
            timespec ts{time_t(next / 1'000'000'000LL), long(next % 1'000'000'000LL)};
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
        }
        sp.sched_priority = 0;
        pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp); // demoted before it leaves
    }

    std::string m_name;
    std::atomic<bool> m_stop{false};
    std::atomic<pid_t> m_tid{0};
    std::string m_problem;
    std::thread m_thread;
};

} // namespace rtscope::test

/// Declares @p culprit: a PlantedCulprit at FIFO 90 on @p cpu; the calling test fails when the kernel refused it.
#define RTSCOPE_PLANTED_CULPRIT(culprit, cpu)                                                                          \
    rtscope::test::PlantedCulprit culprit((cpu), 90);                                                                  \
    QVERIFY2(culprit.problem().empty(), culprit.problem().c_str())
