// A traced run recorded and replayed with the real binary (docs/recording-format.md, Anatomy): `rtscope replay` of
// `rtscope latency --trace --record` prints the anatomy section the run printed, and its --json "anatomy" is the
// run's own, field by field.
#include "tests/common/cli_process.h"
#include "tests/common/traced_run.h"

#include "engine/rt/cpu_topology.h"
#include "engine/trace/trace_session.h"

#include "tests/common/test_main.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <unistd.h>

using namespace rtscope;
using namespace rtscope::test;

class TestRecordingAnatomyCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    rtscope::test::MaybeSkip m_noTrace; ///< why a traced run cannot happen here
    int m_cpu = -1;

    static nlohmann::json readJson(const QString& path)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return nullptr;
        return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
    }

private slots:
    void initTestCase() { setUpTracedCliTest(binary(), m_dir, m_cpu, m_noTrace); }

    void replayShowsTheRunsAnatomy()
    {
        RTSCOPE_SKIP_IF(m_noTrace);
        const QString rec = m_dir.filePath("traced.rtrec"), live = m_dir.filePath("live.json"),
                      replayed = m_dir.filePath("replay.json");
        const Run r = run({"latency", "--policy", "other", "--hogs", "4", "-a", QString::number(m_cpu), "-D", "1s",
                           "--trace", "--trace-top", "5", "--record", rec, "--json", live},
                          60000);
        QVERIFY2(r.exitCode == 0, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
        if (r.err.contains("tracing is not available"))
            RTSCOPE_SKIP(Tracefs, "tracing could not start here: " + r.err);
        const Run p = run({"replay", rec, "--json", replayed}, 60000);
        QVERIFY2(p.exitCode == 0, qPrintable(QString("exit %1: %2").arg(p.exitCode).arg(p.err)));

        // The section the live run printed after its summary, word for word.
        const qsizetype at = p.out.indexOf("\nTracing: private tracefs instance on CPU ");
        QVERIFY2(at > p.out.indexOf("\nSummary: "), qPrintable(p.out));
        const QString section = p.out.mid(at);
        QVERIFY2(section.contains("Who delayed the measuring thread") && section.contains("Worst wake-ups ("),
                 qPrintable(section));
        QVERIFY2(r.out.contains(section), qPrintable("live:\n" + r.out + "\nreplay:\n" + p.out));

        const nlohmann::json a = readJson(live), b = readJson(replayed);
        QVERIFY(a.is_object() && b.is_object());
        const nlohmann::json& liveAnatomy = a["rtscope"]["anatomy"];
        const nlohmann::json& replayAnatomy = b["rtscope"]["anatomy"];
        QVERIFY2(liveAnatomy.is_object() && liveAnatomy["status"] == "active", liveAnatomy.dump().c_str());
        // Four hogs share the CPU with an OTHER measuring thread: there is something to explain.
        QVERIFY2(!liveAnatomy["worst"].empty(), liveAnatomy.dump().c_str());
        QVERIFY2(liveAnatomy == replayAnatomy, (liveAnatomy.dump() + "\n" + replayAnatomy.dump()).c_str());
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestRecordingAnatomyCli)
#include "tst_recording_anatomy_cli.moc"
