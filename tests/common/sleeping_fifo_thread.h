#pragma once
// A real-time thread a listing of the system's threads must find, started by the test itself: FIFO at priority 42,
// pinned to one CPU, sleeping until stopped (a FIFO thread that blocks is harmless).
#include "engine/rt/rt_thread.h"
#include "engine/rt/sched_policy.h"
#include "engine/rt/system_probe.h"

#include <QTest>

#include <atomic>
#include <unistd.h>

namespace rtscope::test {

/// Starts @p t as a FIFO thread of priority 42 named @p name, on the last CPU @p probe says this process may use,
/// sleeping in 1 ms steps until stopped, and waits until it has a tid; returns its spec. Where it does not start the
/// test has failed: the caller returns when QTest::currentTestFailed().
inline ThreadSpec startSleepingFifo(RtThread& t, const SystemProbe& probe, const char* name)
{
    ThreadSpec spec;
    spec.policy = Policy::Fifo;
    spec.priority = 42;
    spec.cpu = probe.allowedCpus.back();
    spec.name = name;
    [&] {
        QVERIFY(!t.start(spec, [](const std::atomic<bool>& stop) {
            while (!stop.load())
                usleep(1000);
        }));
        QTRY_VERIFY(t.tid() > 0);
    }();
    return spec;
}

} // namespace rtscope::test
