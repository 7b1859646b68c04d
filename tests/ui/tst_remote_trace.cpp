// Explain spikes on a remote target (docs/remote.md, "Tracing on the target"): the Latency page with a target and
// its config's trace on runs the tracing in the agent (this build's own `rtscope agent --stdio`, another process);
// when the run ends, the anatomy that came in the recording stream fills the page's "Why late?" panel as a local
// run's does (the hogs named as culprits, the worst wake-ups listed). An agent that may not trace (it runs as nobody)
// has its reason shown in the panel while the run is still going.
#include "engine/rt/cpu_topology.h"
#include "engine/trace/trace_session.h"
#include "tests/common/cli_process.h"
#include "ui/latency/latency_page.h"
#include "ui/remote/remote_latency_source.h"
#include "ui/remote/target_connection.h"
#include "ui/widgets/anatomy_view.h"
#include "ui/widgets/culprits_model.h"
#include "ui/widgets/worst_wakeups_model.h"

#include "tests/common/test_main.h"
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QStandardPaths>

#include <QtTest>

#include <unistd.h>

using namespace rtscope;

class TestRemoteTrace : public QObject {
    Q_OBJECT
    SystemProbe m_probe = probeSystem();
    int m_cpu = -1;

    /// Opens @p command as the target; empty on success, else why not.
    static QString remoteTraceOpen(TargetConnection& target, const QString& command)
    {
        QString problem;
        const auto spec = parseTargetText(command, "target", problem);
        if (!spec)
            return problem;
        QSignalSpy opened(&target, &TargetConnection::opened);
        if (!target.begin(*spec).isEmpty())
            return "the agent could not be started";
        return opened.count() > 0 || opened.wait(10'000) ? QString() : QString("no hello within 10 s");
    }

    /// A traced SCHED_OTHER run of @p durationNs with @p hogs spinners on the measuring CPU.
    LatencyConfig remoteTraceConfig(const LatencyPage& page, int hogs, int64_t durationNs) const
    {
        LatencyConfig c = page.config();
        c.policy = Policy::Other;
        c.priority = 0;
        c.cpu = m_cpu;
        c.cpus.clear();
        c.hogs = hogs;
        c.durationNs = durationNs;
        c.trace = true;
        c.traceTop = 3;
        return c;
    }

    /// Polls @p page as its timer would until @p done or @p ms pass.
    template <class Done> static bool remoteTracePoll(LatencyPage& page, Done done, int ms)
    {
        QElapsedTimer t;
        t.start();
        while (!done() && t.elapsed() < ms) {
            QTest::qWait(LatencyPage::kRefreshMs);
            page.refreshNow();
        }
        return done();
    }

private slots:
    void initTestCase()
    {
        if (qEnvironmentVariable("RTSCOPE_BINARY").isEmpty())
            RTSCOPE_SKIP(Tool, "RTSCOPE_BINARY is not set (run through ctest)");
        m_cpu = CpuTopology::current().allowed.back(); // sched_getaffinity(2) never gives an empty set
    }

    void explainSpikesShowsTheTargetsAnatomy()
    {
        const TraceProbe p = TraceSession::probe();
        if (!p.kernelHasTracefs || geteuid() != 0)
            RTSCOPE_SKIP(Tracefs, "a traced run needs tracefs and root here: " + p.reason);
        TargetConnection target;
        const QString opened =
            remoteTraceOpen(target, "exec '" + qEnvironmentVariable("RTSCOPE_BINARY") + "' agent --stdio");
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        LatencyPage page(std::make_unique<LiveLatencySource>(), m_probe);
        // As the window does when a target opens (MainWindow::targetOpened).
        page.replaceSource(std::make_unique<RemoteLatencySource>(target), target.topology(), true);
        QCOMPARE(page.applyConfig(remoteTraceConfig(page, 4, 1'000'000'000)), QStringList());
        QVERIFY(page.start());
        QVERIFY(remoteTracePoll(
            page, [&] { return !page.isRunning(); }, 15'000));

        const std::shared_ptr<const LatencySnapshot> run = page.shownRun();
        QVERIFY(run && run->finished);
        QVERIFY2(run->error.empty(), run->error.c_str());
        QVERIFY(run->tracing);
        QVERIFY2(run->tracing->active, run->tracing->unavailable.c_str());
        QVERIFY(run->tracing->stats.events > 0);
        QCOMPARE(run->tracing->top, 3);

        // The panel shows it: the worst wake-ups, worst first, and the hogs among who delayed the measuring thread.
        AnatomyPanel* panel = page.anatomyPanel();
        QVERIFY(panel->isVisibleTo(&page));
        QVERIFY(panel->worstModel()->rowCount() > 0 && panel->worstModel()->rowCount() <= 3);
        QCOMPARE(panel->tracedCount(), int(run->tracing->figures.worst.size()));
        bool hogNamed = false;
        for (const CulpritRow& r : panel->culpritsModel()->rows())
            hogNamed = hogNamed || (r.kind == CulpritKind::Task && r.name == "rtscope-hog" && r.totalNs > 0);
        QVERIFY2(hogNamed, qPrintable(panel->statusText()));
        QVERIFY2(panel->statusText().contains("events"), qPrintable(panel->statusText()));
        page.stop();
    }

    // nobody may not use tracefs: the agent's reason reaches the panel while the run goes on, and stays at its end.
    void unavailableTracingOnTheTargetShowsItsReason()
    {
        if (geteuid() != 0)
            RTSCOPE_SKIP(Root, "only root may run the agent as an unprivileged user (nobody)");
        const QString setpriv = QStandardPaths::findExecutable("setpriv");
        if (setpriv.isEmpty())
            RTSCOPE_SKIP(Tool, "setpriv(1) (util-linux) is not installed: it runs the agent as nobody");
        test::MaybeSkip skip;
        const QString copy = test::binaryNobodyMayRun(skip); // the build tree may be where nobody cannot enter
        RTSCOPE_SKIP_IF(skip);
        TargetConnection target;
        const QString opened = remoteTraceOpen(
            target, "exec '" + setpriv +
                        "' --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all prlimit "
                        "--rtprio=0 '" +
                        copy + "' agent --stdio");
        QVERIFY2(opened.isEmpty(), qPrintable(opened));
        LatencyPage page(std::make_unique<LiveLatencySource>(), m_probe);
        // As the window does when a target opens (MainWindow::targetOpened).
        page.replaceSource(std::make_unique<RemoteLatencySource>(target), target.topology(), true);
        QCOMPARE(page.applyConfig(remoteTraceConfig(page, 0, 2'000'000'000)), QStringList());
        QVERIFY(page.start());
        const auto reason = [&] {
            const std::shared_ptr<const LatencySnapshot> s = page.shownRun();
            return s && s->tracing && !s->tracing->active ? s->tracing->unavailable : std::string();
        };
        // The panel redraws at its own pace while a run goes on (LatencyPage::kAnatomyRefreshMs).
        const auto shown = [&] {
            return page.anatomyPanel()->statusText().contains("tracefs");
        };
        QVERIFY(remoteTracePoll(
            page, [&] { return shown() || !page.isRunning(); }, 10'000));
        QVERIFY2(page.isRunning(), "the reason came only with the run's end, not with its status");
        QVERIFY2(shown(), qPrintable(page.anatomyPanel()->statusText()));
        QVERIFY2(reason().find("tracefs") != std::string::npos, reason().c_str());
        page.stop();
        const std::shared_ptr<const LatencySnapshot> end = page.shownRun();
        QVERIFY(end && end->tracing && !end->tracing->active);
        QVERIFY2(end->tracing->unavailable.find("tracefs") != std::string::npos, end->tracing->unavailable.c_str());
        QVERIFY(!end->threads.empty() && end->threads.front().samples > 0); // measured, untraced
    }
};

RTSCOPE_TEST_MAIN(TestRemoteTrace)
#include "tst_remote_trace.moc"
