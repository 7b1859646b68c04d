// The Doctor page (docs/doctor.md, "The Doctor page") on the real machine: a diagnose-only run fills the tiles, the
// findings table and the report; "Try this fix" on a planted real-time culprit proves the move live, holds it, the
// window's banner says so, and Revert all (or closing the window) puts the thread back where it was, with no
// journal left.
#include "engine/doctor/journal.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "tests/common/data_rows.h"
#include "tests/common/doctor_test_util.h"
#include "tests/common/planted_culprit.h"
#include "tests/common/test_main.h"
#include "ui/app/changes_banner.h"
#include "ui/common/fact_tile.h"
#include "ui/doctor/doctor_page.h"
#include "ui/doctor/findings_model.h"
#include "ui/main_window.h"

#include <QCheckBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <unistd.h>

using namespace rtscope;

namespace {

doctor::GuardianLaunch guardian()
{
    return {qEnvironmentVariable("RTSCOPE_BINARY").toStdString(), {"doctor", "guardian"}};
}

// Short phases: a test measures seconds, not the minutes of the default depth.
doctor::PhasePlan shortPhases()
{
    doctor::PhasePlan p = doctor::phasePlan(doctor::DoctorDepth::Quick);
    p.baselineNs = 2'000'000'000;
    p.phaseNs = 250'000'000;
    p.pairs = 7; // as tst_doctor_run's: a VM's stall in one phase does not decide
    p.settleNs = 50'000'000;
    return p;
}

// Lets the page run until it ends (its own refresh timer draws meanwhile); false after @p timeoutMs.
bool runToEnd(DoctorPage& page, int timeoutMs = 120000)
{
    QElapsedTimer t;
    t.start();
    while (page.isRunning() && t.elapsed() < timeoutMs)
        QTest::qWait(50);
    return !page.isRunning();
}

bool onCpu(const std::vector<int>& cpus, int cpu)
{
    return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end();
}

} // namespace

class TestDoctorPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(qEnvironmentVariable("RTSCOPE_BINARY")), "RTSCOPE_BINARY must name the built rtscope");
    }

    // Saved settings go through DoctorPlan::validate(): a priority the doctor refuses is named, and not shown.
    void savedSettingsAreValidated()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        DoctorPage page(SystemProbe{}, guardian());
        settings.setValue("priority", 99);
        settings.setValue("periodUs", 1000);
        page.restoreSettings(settings);
        const QString problems = page.problems().join("; ");
        QVERIFY2(problems.contains("priority"), qPrintable(problems));
        QCOMPARE(page.plan().priority, 80);
        settings.setValue("priority", 70);
        page.restoreSettings(settings);
        QVERIFY2(page.problems().isEmpty(), qPrintable(page.problems().join("; ")));
        QCOMPARE(page.plan().priority, 70);
    }

    // Diagnose only: measured, ranked, shown and saved; nothing on the machine changes.
    void aDiagnosisFillsTheTilesTheTableAndTheReport()
    {
        if (::geteuid() != 0)
            RTSCOPE_SKIP(Root, "the doctor's anatomy needs tracefs, which only root may write");
        RTSCOPE_CLEAN_MACHINE(machine);
        DoctorPage page(SystemProbe{}, guardian());
        page.setPhasePlan(shortPhases());
        // The panel is the one way in: the page runs what it shows.
        QWidget* panel = page.controls();
        QVERIFY(panel);
        auto* tryFixes = panel->findChild<QCheckBox*>("tryFixes");
        QVERIFY(tryFixes);
        tryFixes->setChecked(false);
        QVERIFY(!page.plan().tryFixes);

        QVERIFY(page.start());
        QVERIFY(page.isRunning());
        QTest::qWait(600);
        QVERIFY2(!page.progressLabel()->text().isEmpty(), "the stage line says what the doctor is doing");
        QVERIFY(runToEnd(page));
        QVERIFY2(page.problems().isEmpty(), qPrintable(page.problems().join("; ")));
        const auto report = page.report();
        QVERIFY(report);
        QVERIFY(report->baselineDone);
        QVERIFY(report->baseline.samples > 1000);
        QVERIFY2(report->error.empty(), report->error.c_str());
        QCOMPARE(page.findingsModel()->rowCount(), int(report->findings.size()));
        QVERIFY(page.framesDrawn() > 2);
        // The tiles say the baseline in microseconds, with its sample count.
        auto* baseline = page.findChild<FactTile*>("baselineTile");
        QVERIFY(baseline);
        const QString tileText = baseline->value() + " " + baseline->detail();
        QVERIFY2(tileText.contains("µs") && tileText.contains(QString::number(report->baseline.samples)),
                 qPrintable(tileText));
        // The first finding is selected and explained.
        if (!report->findings.empty()) {
            QVERIFY2(page.detailLabel()->text().contains(
                         QString::fromStdString(report->findings.front().title).left(20).toHtmlEscaped()),
                     qPrintable(page.detailLabel()->text()));
        }
        QVERIFY2(page.progressLabel()->text().startsWith("Done"), qPrintable(page.progressLabel()->text()));
        // The report is the CLI's --report page.
        QTemporaryDir dir;
        QString error;
        QVERIFY2(page.saveReport(dir.filePath("doctor.html"), &error), qPrintable(error));
        QFile f(dir.filePath("doctor.html"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray html = f.readAll();
        QVERIFY(html.startsWith("<!DOCTYPE html>"));
        QVERIFY(html.contains(QByteArray::number(qulonglong(report->baseline.samples))));
        // Nothing changed, no journal.
        QVERIFY(page.heldChanges().isEmpty());
        QVERIFY(!QFile::exists(QString::fromStdString(doctor::JournalPaths{}.journal())));
        const QStringList changed = machine.changedWhenNoDoctor();
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join("; ")));
    }

    // Try on a planted culprit: proven live, held, listed by the banner; Revert all (or closing the window) puts it
    // back.
    void tryHoldsWhatHelpedUntilRevertOrClose_data()
    {
        test::addRows<bool>("byClosing", {{"Revert all", false}, {"closing the window", true}});
    }
    void tryHoldsWhatHelpedUntilRevertOrClose()
    {
        QFETCH(bool, byClosing);
        if (::geteuid() != 0)
            RTSCOPE_SKIP(Root, "the doctor's trials change the machine, which only root may");
        RTSCOPE_CLEAN_MACHINE(machine);
        const int cpu = CpuTopology::current().lastUsable();
        // The planted culprit (5 ms of every 11.3 ms at FIFO 90): its move must show in every phase pair.
        RTSCOPE_PLANTED_CULPRIT(culprit, cpu);
        const std::vector<int> cpusBefore = test::threadCpus(culprit.tid());
        QVERIFY(onCpu(cpusBefore, cpu));

        const SystemProbe probe = probeSystem();
        auto* page = new DoctorPage(probe, guardian());
        page->setPhasePlan(shortPhases());
        MainWindow window({page}, probe, nullptr);
        window.resize(1600, 1000);
        window.show();
        const std::string id = "thread-" + std::to_string(culprit.tid());
        QVERIFY(page->tryFinding(id));
        QVERIFY(runToEnd(*page));
        const auto report = page->report();
        QVERIFY(report);
        const auto it = std::find_if(report->findings.begin(), report->findings.end(),
                                     [&](const doctor::Finding& f) { return f.id == id; });
        QVERIFY2(it != report->findings.end(), "the planted culprit is a finding");
        qInfo("%s: %s", doctor::verdictName(it->trial.verdict), it->trial.why.c_str());
        QCOMPARE(QString(doctor::verdictName(it->trial.verdict)), QString("helped"));
        // Held: the thread is off the CPU, the page and the banner say so, the journal is there for the guardian.
        const QStringList held = page->heldChanges();
        QCOMPARE(held.size(), 1);
        QVERIFY2(held.front().contains(QString::fromStdString(culprit.name())), qPrintable(held.front()));
        QVERIFY(!onCpu(test::threadCpus(culprit.tid()), cpu));
        QVERIFY(window.changesBanner()->isVisible());
        QCOMPARE(window.changesBanner()->changes(), held);
        QVERIFY(QFile::exists(QString::fromStdString(doctor::JournalPaths{}.journal())));
        // docs/doctor.md's picture of the page, when asked for (scripts/doctor-screenshots sets the directory).
        if (const QString shots = qEnvironmentVariable("RTSCOPE_SCREENSHOT_DIR"); !shots.isEmpty() && !byClosing) {
            QTest::qWait(300);
            QVERIFY(window.grab().save(QDir(shots).filePath("doctor-page.png")));
        }
        // Another run is refused while a fix is held: it would measure the fix as the machine.
        QVERIFY(!page->start());
        QVERIFY2(page->problems().join(" ").contains("still held"), qPrintable(page->problems().join("; ")));
        if (byClosing) {
            window.close();
        } else {
            QTest::mouseClick(window.changesBanner()->revertButton(), Qt::LeftButton);
            QVERIFY(!window.changesBanner()->isVisible());
            QVERIFY(page->heldChanges().isEmpty());
        }
        QCOMPARE(test::threadCpus(culprit.tid()), cpusBefore);
        QVERIFY(!QFile::exists(QString::fromStdString(doctor::JournalPaths{}.journal())));
        culprit.stop();
        const QStringList changed = machine.changedWhenNoDoctor();
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join("; ")));
    }
};

RTSCOPE_TEST_MAIN(TestDoctorPage)
#include "tst_doctor_page.moc"
