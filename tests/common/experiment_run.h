#pragma once
// Running an engine experiment to its end in a test: what the experiment units shared, each under its own name.
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "tests/common/test_util.h"
#include "tests/common/thread_census.h"

#include <QString>
#include <QTest>

#include <initializer_list>
#include <string>

namespace rtscope::test {

/// What an experiment unit's initTestCase does first: the wake-up signal the waiters use, the process signals
/// blocked in this thread as the app's main() does, and this machine's probe.
inline SystemProbe setUpExperimentTest()
{
    installWakeSignalHandler();
    blockProcessSignals(false);
    return probeSystem();
}

/// setUpExperimentTest() for a unit whose own thread stays on CPU @p ownCpu while CPU 1 may be starved (the
/// starvation lab's controller, the watchdog's poller): fills @p probe, pins this thread, and returns why the
/// real-time tests cannot run here (withoutFifoOrCpus01() against @p cpus, read before the pin, with @p roles).
inline MaybeSkip setUpPinnedExperimentTest(SystemProbe& probe, const CpuTopology& cpus, const std::string& roles,
                                           int ownCpu)
{
    probe = setUpExperimentTest();
    MaybeSkip missing = withoutFifoOrCpus01(probe, cpus, roles);
    pinCallingThread(ownCpu);
    return missing;
}

/// Waits (handling events every @p pollMs) until @p exp has finished or @p timeoutMs has passed, stops it, and
/// returns its final snapshot (the one published at the stop).
template <class Experiment>
auto runExperimentToEnd(Experiment& exp, int timeoutMs = 20000, int pollMs = 10) -> decltype(exp.snapshot())
{
    const int64_t end = nowNs() + int64_t(timeoutMs) * kNsPerMs;
    while (!exp.finished() && nowNs() < end)
        QTest::qWait(pollMs);
    exp.stop();
    return exp.snapshot();
}

/// Stops the running @p exp: stop() must join every thread within 100 ms.
template <class Experiment> void stopExperimentWithin100ms(Experiment& exp)
{
    const int64_t t0 = nowNs();
    exp.stop();
    const int64_t took = nowNs() - t0;
    qInfo("stop took %.1f ms", double(took) / 1e6);
    QVERIFY2(took < 100 * kNsPerMs, qPrintable(QString("stop took %1 ms").arg(double(took) / 1e6)));
    QCOMPARE(threadsAlive(), 0);
}

/// @p exp refuses to start @p config on @p cpus: an InvalidConfig error whose message holds each of @p sentences,
/// and nothing running, no thread started.
template <class Experiment, class Config>
void checkStartRefused(Experiment& exp, const Config& config, const CpuTopology& cpus,
                       std::initializer_list<const char*> sentences)
{
    const Error e = exp.start(config, cpus);
    QCOMPARE(e.kind, ErrorKind::InvalidConfig);
    for (const char* sentence : sentences)
        QVERIFY2(QString::fromStdString(e.message).contains(QString::fromUtf8(sentence)),
                 qPrintable(QString("'%1' does not say '%2'").arg(QString::fromStdString(e.message), sentence)));
    QVERIFY(!exp.running());
    QCOMPARE(threadsAlive(), 0);
}

} // namespace rtscope::test
