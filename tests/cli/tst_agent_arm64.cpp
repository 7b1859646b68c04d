// The cross-built arm64 agent (docs/remote.md, "Cross-built agent"): the x86 CLI runs a short latency run through
// `qemu-aarch64-static build/arm64/app/rtscope agent --stdio` and gets samples and the target's probe, which names
// the machine as aarch64. This checks the cross build and the protocol between two architectures, nothing about a
// board's latency. The suite never cross-builds (minutes on two cores): without build/arm64/app/rtscope or
// qemu-aarch64-static the test is skipped, naming what is missing and scripts/build-agent-arm64, which makes both.
#include "tests/common/cli_process.h"

#include "engine/rt/system_probe.h"

#include "tests/common/test_main.h"

#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace rtscope::test;

namespace {

// Single quotes for /bin/sh (the --target-cmd is run by `sh -c`): a path with a space or a quote stays one word.
QString agentArm64ShellQuoted(const QString& s)
{
    QString q = s;
    q.replace("'", "'\\''");
    return "'" + q + "'";
}

} // namespace

class TestAgentArm64 : public QObject {
    Q_OBJECT

    QString m_agent; // build/arm64/app/rtscope
    QString m_qemu;  // qemu-aarch64-static
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString source = qEnvironmentVariable("RTSCOPE_SOURCE_DIR");
        QVERIFY2(!source.isEmpty(), "RTSCOPE_SOURCE_DIR is not set (ctest sets it: tests/CMakeLists.txt)");
        m_agent = source + "/build/arm64/app/rtscope";
        m_qemu = QStandardPaths::findExecutable("qemu-aarch64-static");
    }

    // A 2 s latency run of the arm64 agent, streamed to this (x86) CLI over the stdio transport. SCHED_FIFO at
    // priority 80 as a board would run it: qemu-user passes sched_setscheduler, mlockall and sched_setaffinity
    // through to the host's kernel, one host thread per guest thread, so with the privilege the measuring thread
    // is a SCHED_FIFO thread of this machine (seen with chrt: docs/remote.md, "Cross-built agent"). Without the
    // privilege, the default policy (SCHED_OTHER), which still checks the build and the protocol.
    void latencyRunThroughQemu()
    {
        if (!QFileInfo(m_agent).isExecutable())
            RTSCOPE_SKIP(Tool, m_agent + " is missing: scripts/build-agent-arm64 cross-builds it (the suite does not)");
        if (m_qemu.isEmpty())
            RTSCOPE_SKIP(
                Tool, "qemu-aarch64-static is not installed: scripts/build-agent-arm64 installs it (qemu-user-static)");
        const QString json = m_dir.filePath("arm64.json");
        const QString targetCmd =
            agentArm64ShellQuoted(m_qemu) + " " + agentArm64ShellQuoted(m_agent) + " agent --stdio";
        const bool fifo = rtscope::probeSystem().rtAvailable;
        QStringList args{"latency", "--target-cmd", targetCmd, "-D", "2s", "--json", json};
        if (fifo)
            args << "-p"
                 << "80";
        const Run r = run(args, 60000);
        // A stale arm64 build against a newer protocol fails here with both versions named in r.err: rebuild it.
        QVERIFY2(r.exitCode == 0, qPrintable(QString("exit %1: %2%3").arg(r.exitCode).arg(r.err, r.out)));
        QVERIFY2(r.out.contains("# target: "), qPrintable(r.out));
        QVERIFY2(r.out.contains(fifo ? "FIFO 80" : "OTHER"), qPrintable(r.out));

        const nlohmann::json j = nlohmann::json::parse(readAll(json).toStdString());
        const nlohmann::json& threads = j.at("rtscope").at("threads");
        QVERIFY(!threads.empty());
        QVERIFY2(threads.at(0).at("samples").get<uint64_t>() > 0, qPrintable(QString::fromStdString(threads.dump())));
        // The target's probe came through the hello: uname -m of the agent, which qemu-user reports as the
        // emulated machine, not this x86_64 host; the cyclictest-style "sysinfo" block says the same
        // (describeMeasuredMachine), as a replayed recording's does.
        QCOMPARE(QString::fromStdString(j.at("rtscope").at("probe").at("machine").get<std::string>()),
                 QString("aarch64"));
        QCOMPARE(QString::fromStdString(j.at("sysinfo").at("machine").get<std::string>()), QString("aarch64"));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestAgentArm64)
#include "tst_agent_arm64.moc"
