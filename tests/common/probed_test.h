#pragma once
// What the units that start real runs set up first: the wake-up signal the waiters use and this machine's probe;
// with a scratch folder for the units that build the main window (settings files, exports).
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

namespace rtscope::test {

/// Installs the wake-up signal handler the waiters use and returns this machine's probe.
inline SystemProbe probeWithWakeSignal()
{
    installWakeSignalHandler();
    return probeSystem();
}

/// The base of a unit's test class that needs the probe and a scratch folder: its initTestCase calls setUp() first.
class ProbedTest : public QObject {
protected:
    SystemProbe m_probe;
    QTemporaryDir m_dir;

    void setUp()
    {
        m_probe = probeWithWakeSignal();
        QVERIFY(m_dir.isValid());
    }
};

} // namespace rtscope::test
