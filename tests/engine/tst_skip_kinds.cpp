// Skips are visible (tests/common/test_skip.h): every skip in the tree says its kind; a unit that skipped exits 77
// (ctest's "Skipped") with its skips printed and logged; a skip for a lack this machine does not have fails; and the
// checks of what the machine has agree with the engine's own probes.
#include "tests/common/test_main.h"

#include "engine/rt/system_probe.h"
#include "engine/trace/trace_session.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <QtTest>

#include <unistd.h>

using namespace rtscope;
using rtscope::test::SkipKind;

namespace {

struct Ended {
    int exitCode = -1;
    QString out;
    QString log; ///< the skip log's text; empty when the unit left none
    bool logExists = false;
};

Ended runPlanted(const QStringList& env)
{
    Ended e;
    QTemporaryDir dir;
    const QString log = dir.filePath("skips/planted.tsv");
    QProcess p;
    QProcessEnvironment pe = QProcessEnvironment::systemEnvironment();
    pe.remove("RTSCOPE_PLANTED_SKIP");
    pe.remove("RTSCOPE_PLANTED_FAILURE");
    pe.insert("RTSCOPE_TEST_SKIP_LOG", log);
    for (const QString& kv : env)
        pe.insert(kv.section('=', 0, 0), kv.section('=', 1));
    p.setProcessEnvironment(pe);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(qEnvironmentVariable("RTSCOPE_PLANTED_SKIP_BINARY"), QStringList{});
    if (!p.waitForFinished(20000)) {
        p.kill();
        p.waitForFinished();
        return e;
    }
    e.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    e.out = QString::fromUtf8(p.readAll());
    QFile f(log);
    e.logExists = f.exists();
    if (f.open(QIODevice::ReadOnly))
        e.log = QString::fromUtf8(f.readAll());
    return e;
}

} // namespace

class TestSkipKinds : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        const QString planted = qEnvironmentVariable("RTSCOPE_PLANTED_SKIP_BINARY");
        if (planted.isEmpty())
            RTSCOPE_SKIP(Tool, "RTSCOPE_PLANTED_SKIP_BINARY is not set (run through ctest)");
        QVERIFY2(QFileInfo(planted).isExecutable(), qPrintable(planted));
    }

    // A bare QSKIP would pass unseen: no kind, no log, no failure on a machine that has what it skips for.
    void noTestSkipsWithoutAKind()
    {
        const QString tests = QFileInfo(QString::fromUtf8(__FILE__)).absolutePath() + "/..";
        QVERIFY(QFileInfo::exists(tests + "/common/test_skip.h"));
        const QRegularExpression bare("\\bQSKIP\\s*\\(");
        QStringList found;
        int files = 0;
        QDirIterator it(tests, {"*.cpp", "*.h"}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (path.endsWith("/common/test_skip.h"))
                continue; // RTSCOPE_SKIP itself
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            ++files;
            const QStringList lines = QString::fromUtf8(f.readAll()).split('\n');
            for (int i = 0; i < lines.size(); ++i)
                if (!lines[i].trimmed().startsWith("//") && bare.match(lines[i]).hasMatch())
                    found << QString("%1:%2").arg(QFileInfo(path).fileName()).arg(i + 1);
        }
        QVERIFY2(files > 100, qPrintable(QString("read %1 files under %2").arg(files).arg(tests)));
        QVERIFY2(
            found.isEmpty(),
            qPrintable(
                QString("%1 QSKIP without a kind (use RTSCOPE_SKIP): %2").arg(found.size()).arg(found.join(", "))));
    }

    void nothingSkippedExitsZero()
    {
        const Ended e = runPlanted({});
        QCOMPARE(e.exitCode, 0);
        QVERIFY2(!e.logExists, qPrintable(e.log));
        QVERIFY2(!e.out.contains("rtscope-test:"), qPrintable(e.out));
    }

    void aSkipEndsTheUnitAsSkippedOrFailsWhereTheMachineHasIt_data()
    {
        QTest::addColumn<QString>("kind");
        for (const char* k : {"no-rt-privilege", "no-sched-deadline", "no-tracefs", "not-root", "few-cpus", "no-tool",
                              "kernel", "sanitizer", "privileged", "opt-in", "other"})
            QTest::newRow(k) << QString(k);
    }
    void aSkipEndsTheUnitAsSkippedOrFailsWhereTheMachineHasIt()
    {
        QFETCH(QString, kind);
        const std::optional<SkipKind> k = test::skipKindFromName(kind);
        QVERIFY(k);
        QCOMPARE(QString(test::skipKindName(*k)), kind);
        const Ended e = runPlanted({"RTSCOPE_PLANTED_SKIP=" + kind});
        if (test::machineHas(*k)) {
            QVERIFY(test::isStrictSkipKind(*k));
            QVERIFY2(e.exitCode == 1, qPrintable(QString("exit %1: %2").arg(e.exitCode).arg(e.out)));
            QVERIFY2(e.out.contains("FAIL!  : PlantedSkip::plantedSkip() [" + kind +
                                    "] a skip for a lack this machine does not have"),
                     qPrintable(e.out));
            QVERIFY2(e.out.contains(test::machineHasWhy(*k)), qPrintable(e.out));
            QVERIFY2(!e.logExists, qPrintable(e.log));
        } else {
            QVERIFY2(e.exitCode == test::kSkippedExitCode,
                     qPrintable(QString("exit %1: %2").arg(e.exitCode).arg(e.out)));
            QVERIFY2(e.out.contains("SKIP   : PlantedSkip::plantedSkip() [" + kind + "] planted"), qPrintable(e.out));
            QVERIFY2(e.out.contains("rtscope-test: 1 skipped in common/planted_skip:\n  SKIP plantedSkip [" + kind +
                                    "] planted by skip_kinds\n"),
                     qPrintable(e.out));
            QCOMPARE(e.log, "common/planted_skip\tplantedSkip\t" + kind + "\tplanted by skip_kinds\n");
        }
    }

    // A failure is what the unit reports, skips or not; the skip is still logged.
    void aFailureWinsOverASkip()
    {
        const Ended e = runPlanted({"RTSCOPE_PLANTED_SKIP=few-cpus", "RTSCOPE_PLANTED_FAILURE=1"});
        QVERIFY2(e.exitCode == 1, qPrintable(QString("exit %1: %2").arg(e.exitCode).arg(e.out)));
        QVERIFY2(e.out.contains("FAIL!  : PlantedSkip::plantedFailure() planted failure"), qPrintable(e.out));
        QCOMPARE(e.log, QString("common/planted_skip\tplantedSkip\tfew-cpus\tplanted by skip_kinds\n"));
    }

    // What makes a skip fail is found apart from the engine (a broken probe must not excuse a skip); the two agree.
    void theStrictKindsAreFoundAsTheEngineFindsThem()
    {
        const SystemProbe probe = probeSystem();
        QVERIFY2(test::machineHas(SkipKind::RtPrivilege) == probe.rtAvailable,
                 qPrintable(test::machineHasWhy(SkipKind::RtPrivilege) +
                            " | engine: " + QString::fromStdString(probe.rtUnavailableReason)));
        const TraceProbe trace = TraceSession::probe();
        QVERIFY2(
            test::machineHas(SkipKind::Tracefs) == (trace.usable && !trace.needsMount),
            qPrintable(test::machineHasWhy(SkipKind::Tracefs) + " | engine: " + QString::fromStdString(trace.reason)));
        if (test::machineHas(SkipKind::Root))
            QVERIFY(probe.isRoot);
        for (SkipKind k : {SkipKind::Cpus, SkipKind::Tool, SkipKind::Kernel, SkipKind::OptIn})
            QVERIFY(!test::isStrictSkipKind(k) && !test::machineHas(k));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestSkipKinds)
#include "tst_skip_kinds.moc"
