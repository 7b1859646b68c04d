#pragma once
// Running an engine experiment to its end in a test: what the experiment units shared, each under its own name.
#include "engine/util/clock.h"

#include <QTest>

namespace rtscope::test {

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

} // namespace rtscope::test
