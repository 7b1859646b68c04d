// ctest: parallel. Fixed-count SCHED_OTHER runs through a private stdio agent; functional.
// `rtscope latency --target-cmd … --cpus` (docs/remote.md): "all" is the target's CPUs as its hello's probe lists
// them, not this machine's, and a CPU the target lacks gets the sentence a local run gives for a CPU this machine
// lacks. The target here is this build's own agent on this machine, so its probe is read first, the way the client
// reads it, and the run is checked against that.
#include "tests/common/cli_process.h"

#include "engine/formats/probe_json.h"
#include "engine/remote/agent_client.h"

#include "tests/common/test_main.h"

#include <QFile>
#include <QStandardPaths>
#include <QtTest>

#include <csignal>
#include <nlohmann/json.hpp>

using namespace rtscope;
using namespace rtscope::test;

class TestRemoteCpusCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::vector<int> m_targetCpus; ///< the target's online CPUs, from its hello's probe

private slots:
    void initTestCase()
    {
        setUpAgentPipes();
        AgentProcess p;
        QVERIFY(!spawnAgentProcess(agentStdioCommand(), p));
        {
            AgentClient client(p.fromAgent, p.toAgent);
            const Error e = client.connect(10'000);
            QVERIFY2(!e, e.message.c_str());
            std::vector<std::string> problems;
            const SystemProbe probe =
                systemProbeFromJson(client.agentHello().value("probe", nlohmann::json::object()), problems);
            m_targetCpus = targetTopology(probe).allowed;
            client.closeSending();
        }
        (void)reapAgentProcess(p.pid, 2000);
        QVERIFY(!m_targetCpus.empty());
    }

    void allIsEveryCpuOfTheTarget()
    {
        const QString json = m_dir.filePath("all.json");
        const Run r = run({"latency", "--target-cmd", QString::fromStdString(agentStdioCommand()), "--cpus", "all",
                           "--period", "1ms", "-l", "100", "-q", "--json", json});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const nlohmann::json j = nlohmann::json::parse(readAll(json).toStdString());
        const nlohmann::json& threads = j.at("rtscope").at("threads");
        QCOMPARE(threads.size(), m_targetCpus.size());
        std::vector<int> ran;
        for (const nlohmann::json& t : threads) {
            ran.push_back(t.at("cpu").get<int>());
            QCOMPARE(t.at("samples").get<uint64_t>(), uint64_t(100));
        }
        std::sort(ran.begin(), ran.end());
        QCOMPARE(ran, m_targetCpus);
    }

    // The controller pinned to one CPU (as a workstation's "all" is smaller than a board's) and the agent given every
    // CPU again: "all" is still every CPU of the target's probe, not the controller's one.
    void allIsNotTheControllersCpus()
    {
        if (m_targetCpus.size() < 2)
            RTSCOPE_SKIP(Cpus, "needs a target with two CPUs or more");
        QStringList every;
        for (int cpu : m_targetCpus)
            every << QString::number(cpu);
        const QString agent = "exec taskset -c " + every.join(',') + " '" + binary() + "' agent --stdio";
        const QString json = m_dir.filePath("pinned.json");
        const Run r = run({"-c", QString::number(m_targetCpus.front()), binary(), "latency", "--target-cmd", agent,
                           "--cpus", "all", "--period", "1ms", "-l", "100", "-q", "--json", json},
                          40000, QStandardPaths::findExecutable("taskset"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const nlohmann::json j = nlohmann::json::parse(readAll(json).toStdString());
        QCOMPARE(j.at("rtscope").at("threads").size(), m_targetCpus.size());
    }

    void aCpuTheTargetLacksIsTheLocalSentence()
    {
        const QString beyond = QString("0,%1").arg(m_targetCpus.back() + 1);
        // The same machine: the CPU beyond the target's is beyond this one's too, so the local run says it as well.
        const Run local = run({"latency", "--cpus", beyond, "-l", "10"});
        QCOMPARE(local.exitCode, 2);
        const Run remote =
            run({"latency", "--target-cmd", QString::fromStdString(agentStdioCommand()), "--cpus", beyond, "-l", "10"});
        QCOMPARE(remote.exitCode, 2);
        const QString sentence = local.err.trimmed().split('\n').first();
        QVERIFY2(sentence.contains(QString::number(m_targetCpus.back() + 1)), qPrintable(sentence));
        QVERIFY2(remote.err.contains(sentence), qPrintable(remote.err + " | local: " + sentence));
        QVERIFY(remote.out.isEmpty());
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestRemoteCpusCli)
#include "tst_remote_cpus_cli.moc"
