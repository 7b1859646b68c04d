// ctest: parallel. Report formatting; systemd-analyze verify on a temp file.
// The doctor's outputs from a report built by hand (engine/doctor/doctor_report.h, recipe.h): the JSON has exactly the
// documented schema, the HTML page is self-contained and escapes what the machine names, the table names the
// culprits, and the recipe files are well formed — sysctl.d syntax, a unit `systemd-analyze verify` accepts, one line
// of command-line words, a tuned profile of INI sections.
#include "engine/doctor/recipe.h"

#include "tests/common/find_by.h"
#include "tests/common/test_main.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>
#include <set>

using namespace rtscope;
using namespace rtscope::doctor;

namespace {

TrialResult measured(Verdict v, double before, double after)
{
    TrialResult t;
    t.verdict = v;
    t.why = "every phase with the fix had a lower p99";
    for (int i = 0; i < 3; ++i) {
        t.phases.push_back({false, {20, before, before + 10, before + 20, 1500}});
        t.phases.push_back({true, {20, after, after + 10, after + 20, 1500}});
    }
    t.before = {20, before, before + 10, before + 20, 4500};
    t.after = {20, after, after + 10, after + 20, 4500};
    t.beforeHistogram = Histogram(0);
    t.afterHistogram = Histogram(0);
    for (int i = 0; i < 4500; ++i) {
        t.beforeHistogram.record(20'000 + (i % 100 == 0 ? int64_t(before) * 1000 : 0));
        t.afterHistogram.record(20'000 + (i % 100 == 0 ? int64_t(after) * 1000 : 0));
    }
    return t;
}

Finding finding(const std::string& id, const std::string& title, FixKind kind, std::vector<KnobChange> changes,
                TrialResult trial, bool runtime = true)
{
    Finding f;
    f.id = id;
    f.rule = id;
    f.title = title;
    f.evidence = "numbers";
    f.tailShare = 0.4;
    f.share = 0.1;
    f.fix.kind = kind;
    f.fix.target = id;
    f.fix.from = "a";
    f.fix.to = changes.empty() ? "isolcpus=managed_irq,domain,1 nohz_full=1" : changes.front().to;
    f.fix.runtime = runtime;
    f.fix.permanent = runtime ? "" : f.fix.to;
    f.fix.changes = std::move(changes);
    f.trial = std::move(trial);
    return f;
}

DoctorReport report()
{
    DoctorReport r;
    r.cpu = 1;
    r.measuring = "FIFO 80 · 1000 us";
    r.load = "none";
    r.baselineDone = true;
    r.baseline = {20, 300, 320, 400, 12000};
    r.baselineHistogram = measured(Verdict::Helped, 300, 40).beforeHistogram;
    r.trialsRun = true;
    r.findings.push_back(finding("thread-4242", "a thread <script>alert(1)</script> \x1b[2J shares CPU 1",
                                 FixKind::ThreadAffinity, {{KnobKind::ThreadAffinity, "4242@1", "", "", "0"}},
                                 measured(Verdict::Helped, 300, 40)));
    r.findings.push_back(finding("timer-migration", "timer migration is on", FixKind::Sysctl,
                                 {{KnobKind::Sysctl, "kernel.timer_migration", "", "", "0"}},
                                 measured(Verdict::Helped, 60, 50)));
    r.findings.push_back(finding("irq-41", "IRQ 41 (virtio3-rx)", FixKind::IrqAffinity,
                                 {{KnobKind::IrqAffinity, "41", "", "", "0"}}, measured(Verdict::Helped, 60, 55)));
    r.findings.push_back(finding("thp", "THP", FixKind::Thp, {{KnobKind::Thp, "defrag", "", "", "never"}},
                                 measured(Verdict::Helped, 60, 58)));
    r.findings.push_back(finding("workqueue", "kworkers", FixKind::WorkqueueCpumask,
                                 {{KnobKind::WorkqueueCpumask, "cpumask", "", "", "0"}},
                                 measured(Verdict::Helped, 60, 57)));
    r.findings.push_back(finding("idle-exit", "idle", FixKind::CpuDmaLatency,
                                 {{KnobKind::CpuDmaLatency, "held", "", "", "0"}}, measured(Verdict::Helped, 60, 59)));
    r.findings.push_back(finding("irq-36", "IRQ 36 (virtio1-req.0)", FixKind::IrqAffinity,
                                 {{KnobKind::IrqAffinity, "36", "", "", "0"}}, measured(Verdict::NoEffect, 60, 60)));
    TrialResult notTried;
    notTried.why = "boot-only: it needs a reboot (see --recipe)";
    r.findings.push_back(finding("boot-isolation", "not isolated", FixKind::KernelCmdline, {}, notTried, false));
    r.combinedIds = {"thread-4242", "timer-migration"};
    r.combined = measured(Verdict::Helped, 300, 38);
    return r;
}

QStringList keys(const nlohmann::json& j)
{
    QStringList k;
    for (auto it = j.begin(); it != j.end(); ++it)
        k << QString::fromStdString(it.key());
    k.sort();
    return k;
}

const RecipeFile* file(const std::vector<RecipeFile>& files, const std::string& name)
{
    return rtscope::test::findBy(files, &RecipeFile::name, name);
}

// Every line of @p f matches @p pattern.
void checkEveryLineMatches(const RecipeFile& f, const char* pattern)
{
    const QRegularExpression format(pattern);
    for (const QString& l : QString::fromStdString(f.text).split('\n'))
        QVERIFY2(format.match(l).hasMatch(), qPrintable(l));
}

} // namespace

class TestDoctorOutputs : public QObject {
    Q_OBJECT
private slots:
    void jsonHasTheDocumentedSchema()
    {
        const nlohmann::json j = reportJson(report());
        QCOMPARE(j.at("findings").size(), size_t(8));
        for (const nlohmann::json& f : j.at("findings")) {
            QCOMPARE(keys(f), (QStringList{"evidence", "fix", "id", "title", "trial"}));
            QCOMPARE(keys(f.at("fix")), (QStringList{"from", "kind", "runtime", "target", "to"}));
            QCOMPARE(keys(f.at("trial")), (QStringList{"after", "before", "verdict", "why"}));
            const std::set<std::string> verdicts{"helped", "no_effect", "hurt", "not_tried"};
            QVERIFY(verdicts.count(f.at("trial").at("verdict").get<std::string>()));
            for (const char* side : {"before", "after"}) {
                const nlohmann::json& s = f.at("trial").at(side);
                if (f.at("trial").at("verdict") == "not_tried") {
                    QVERIFY(s.is_null()); // nothing measured: no figures made up
                    continue;
                }
                QCOMPARE(keys(s), (QStringList{"max_us", "p50_us", "p99_9_us", "p99_us", "samples"}));
            }
        }
        const nlohmann::json& top = j.at("findings").at(0);
        QCOMPARE(top.at("fix").at("kind").get<std::string>(), std::string("thread-affinity"));
        QCOMPARE(top.at("trial").at("before").at("p99_us").get<double>(), 300.0);
        QCOMPARE(top.at("trial").at("after").at("p99_us").get<double>(), 40.0);
        QCOMPARE(top.at("trial").at("after").at("samples").get<uint64_t>(), uint64_t(4500));
        QCOMPARE(j.at("findings").at(7).at("fix").at("runtime").get<bool>(), false);
        QCOMPARE(j.at("combined").at("ids").size(), size_t(2));
    }

    void htmlIsSelfContainedAndEscaped()
    {
        const std::string page = reportHtml(report());
        QVERIFY(page.rfind("<!DOCTYPE html>", 0) == 0);
        QVERIFY(page.find("<script") == std::string::npos);
        QVERIFY(page.find("&lt;script&gt;") != std::string::npos);
        QVERIFY(page.find('\x1b') == std::string::npos);
        for (const char* remote : {"http://", "https://", "src=", "@import", "url("}) {
            // The one URL allowed is the SVG namespace, which names and loads nothing.
            std::string rest = page;
            for (size_t at = rest.find("http://www.w3.org/2000/svg"); at != std::string::npos;
                 at = rest.find("http://www.w3.org/2000/svg"))
                rest.erase(at, 26);
            QVERIFY2(rest.find(remote) == std::string::npos, remote);
        }
        // A histogram per measured trial (8 findings, 7 measured, the combined one) and the baseline's.
        size_t svgs = 0;
        for (size_t at = page.find("<svg"); at != std::string::npos; at = page.find("<svg", at + 1))
            ++svgs;
        QCOMPARE(svgs, size_t(1 + 7 + 1));
        // Every histogram's axis starts at its first decade, with that decade's tick and label on the axis' left end
        // (x = 50), whatever its fastest wake-up; the last label ends at the right end instead of running off it.
        const std::string svg = page.substr(page.find("<svg"), page.find("</svg>") - page.find("<svg"));
        QVERIFY2(svg.find("<line x1=\"50.0\" x2=\"50.0\"") != std::string::npos, svg.c_str());
        QVERIFY2(svg.find("text-anchor=\"end\">") != std::string::npos, svg.c_str());
    }

    void tableNamesTheCulprits()
    {
        const std::string table = reportTable(report());
        QVERIFY(table.find("helped") != std::string::npos);
        QVERIFY(table.find("300.0 -> 40.0") != std::string::npos);
        QVERIFY(table.find("\x1b") == std::string::npos); // the name's escape is made printable
        QVERIFY(table.find("timer migration is on") != std::string::npos);
    }

    void recipeFilesAreWellFormed()
    {
        const std::vector<RecipeFile> files = recipeFiles(report());
        // sysctl.d(5): comments and "key = value" lines only; the helped sysctl is there, with its measured effect.
        const RecipeFile* sysctl = file(files, "99-rtscope-doctor.conf");
        QVERIFY(sysctl);
        checkEveryLineMatches(*sysctl, "^(#.*|[a-z0-9_.]+ = [-0-9A-Za-z_,]+|)$");
        QVERIFY(sysctl->text.find("kernel.timer_migration = 0\n") != std::string::npos);
        QVERIFY(sysctl->text.find("p99 60.0 -> 50.0 us") != std::string::npos);
        // The unit: the IRQ that helped, not the one that did not; THP; the workqueue as the kernel's hex mask.
        const RecipeFile* unit = file(files, "rtscope-doctor-irq.service");
        QVERIFY(unit);
        QVERIFY(unit->text.find("echo 0 > /proc/irq/41/smp_affinity_list") != std::string::npos);
        QVERIFY(unit->text.find("/proc/irq/36/") == std::string::npos);
        QVERIFY(unit->text.find("echo never > /sys/kernel/mm/transparent_hugepage/defrag") != std::string::npos);
        QVERIFY(unit->text.find("echo 1 > /sys/devices/virtual/workqueue/cpumask") != std::string::npos);
        const QString analyze = QStandardPaths::findExecutable("systemd-analyze");
        if (analyze.isEmpty())
            QFAIL("systemd-analyze is missing: install systemd (scripts/deps)");
        QTemporaryDir dir;
        const QString path = dir.filePath("rtscope-doctor-irq.service");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(unit->text));
        f.close();
        QProcess p;
        p.start(analyze, {"verify", path});
        QVERIFY(p.waitForFinished(60000));
        const QString said = QString::fromUtf8(p.readAllStandardError() + p.readAllStandardOutput());
        QVERIFY2(p.exitCode() == 0, qPrintable(said));
        QVERIFY2(!said.contains("rtscope-doctor-irq.service"), qPrintable(said));
        // Command-line words: one line of words after the comments.
        const RecipeFile* cmdline = file(files, "kernel-cmdline.txt");
        QVERIFY(cmdline);
        QStringList lines = QString::fromStdString(cmdline->text).split('\n', Qt::SkipEmptyParts);
        QVERIFY(!lines.last().startsWith('#'));
        QVERIFY(lines.last().contains("nohz_full=1"));
        for (const QString& l : lines.mid(0, lines.size() - 1))
            QVERIFY2(l.startsWith('#'), qPrintable(l));
        // tuned: INI sections and key = value lines; force_latency for the idle exits that cpu_dma_latency fixed.
        const RecipeFile* tuned = file(files, "tuned/rtscope-doctor/tuned.conf");
        QVERIFY(tuned);
        checkEveryLineMatches(*tuned, "^(#.*|\\[[a-z]+\\]|[a-z_0-9./]+ ?= ?.+|)$");
        QVERIFY(tuned->text.find("[cpu]\n") != std::string::npos);
        QVERIFY(tuned->text.find("\nforce_latency = 0\n") != std::string::npos);
        QVERIFY(tuned->text.find("[sysfs]\n/sys/kernel/mm/transparent_hugepage/defrag = never\n") != std::string::npos);
        QVERIFY(tuned->text.find("/sys/devices/virtual/workqueue/cpumask = 1\n") != std::string::npos);
        QVERIFY(tuned->text.find("include=network-latency") != std::string::npos);
        QVERIFY(file(files, "README.txt"));
    }

    void nothingHelpedMeansNoInstallableFile()
    {
        DoctorReport r = report();
        for (Finding& f : r.findings)
            if (f.fix.runtime)
                f.trial.verdict = Verdict::NoEffect;
        r.findings.pop_back(); // no boot-only finding either
        const std::vector<RecipeFile> files = recipeFiles(r);
        QCOMPARE(files.size(), size_t(1));
        QCOMPARE(QString::fromStdString(files[0].name), QString("README.txt"));
        QVERIFY(files[0].text.find("nothing helped") != std::string::npos);
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestDoctorOutputs)
#include "tst_doctor_outputs.moc"
