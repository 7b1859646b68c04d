// `rtscope doctor --noise` (docs/doctor.md, "A polling workload"): the evidence comes from the noise lab. A planted
// SCHED_FIFO thread with a random name that spins 300 µs every 20 ms on the measured CPU is what takes the poller's
// CPU, so the diagnosis names it (its finding: move the thread), and the report says where the evidence came from.
#include "engine/rt/cpu_topology.h"

#include "tests/common/cli_process.h"
#include "tests/common/doctor_test_util.h"
#include "tests/common/planted_culprit.h"
#include "tests/common/test_main.h"

#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace rtscope;

class TestDoctorNoiseCli : public QObject {
    Q_OBJECT
private slots:
    void helpNamesTheFlag()
    {
        const QStringList missing = test::missingFromHelp({"doctor"}, {"--noise"});
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(' ')));
    }

    void plantedPollerThiefIsTheFinding()
    {
        if (geteuid() != 0)
            RTSCOPE_SKIP(Root, "the doctor's traced measurements need root (this machine's test runs have it)");
        RTSCOPE_CLEAN_MACHINE(machine);
        const int cpu = CpuTopology::current().lastUsable();
        test::PlantedCulprit culprit(cpu, 90, 300, 20'000);
        QVERIFY2(culprit.problem().empty(), culprit.problem().c_str());
        QTemporaryDir dir;
        const test::Run r = test::run(
            {"doctor", "--noise", "--no-trials", "-q", "--baseline-length", "2s", "--json", dir.filePath("d.json")},
            60000);
        culprit.stop();
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const nlohmann::json j = nlohmann::json::parse(test::readAll(dir.filePath("d.json")).toStdString());
        const std::string note = j.at("anatomy").get<std::string>();
        QVERIFY2(note.find("evidence: the noise lab") != std::string::npos, note.c_str());
        QVERIFY2(note.find("every gap attributed") != std::string::npos, note.c_str());
        const std::string id = "thread-" + std::to_string(culprit.tid());
        const nlohmann::json* found = nullptr;
        for (const nlohmann::json& f : j.at("findings"))
            if (f.at("id").get<std::string>() == id)
                found = &f;
        QVERIFY2(found, qPrintable(r.out));
        QCOMPARE(found->at("fix").at("kind").get<std::string>(), std::string("thread-affinity"));
        QVERIFY2(r.out.contains(QString::fromStdString(culprit.name())), qPrintable(r.out));
        // --no-trials: nothing was changed.
        const QStringList changed = machine.changedWhenNoDoctor();
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join("; ")));
    }
};

RTSCOPE_TEST_MAIN(TestDoctorNoiseCli)
#include "tst_doctor_noise_cli.moc"
