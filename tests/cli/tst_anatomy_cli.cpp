// `rtscope latency --trace` end to end (docs/cli.md, docs/experiments/anatomy.md): the flags' refusals with exit 2
// and the sentence; the text and JSON of hand-made anatomy figures (every part shown, "unknown" where a part is,
// lost events visible); a real traced run with four SCHED_OTHER hogs on the measured CPU whose output names a hog
// as the culprit and explains the worst wake-ups, with the cyclictest outputs where they were; and a run where
// tracing cannot work (an unprivileged user) that still measures, exits 0 and says why.
#include "tests/common/cli_process.h"
#include "tests/common/data_rows.h"
#include "tests/common/traced_run.h"

// The CLI's code is in the rtscope binary, which the tests do not link: the one file under test is compiled here.
// It needs only the engine and the standard library.
#include "app/cli/anatomy_output.cpp"

#include "engine/experiments/latency/latency_run.h"
#include "engine/export/report_json.h"
#include "engine/formats/cyclictest_format.h"
#include "engine/rt/cpu_topology.h"
#include "engine/trace/trace_session.h"
#include "engine/util/units.h"

#include "tests/common/test_main.h"
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <QtTest>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

using namespace rtscope;

using namespace rtscope::test;

namespace {

constexpr int64_t kAnatomyCliStart = 5'000'000'000;

// A wake-up 1.21 ms late, every part known: 4 us timer IRQ delay, 3 us of interrupts (2 us of them irq 24, 1 us its
// own timer's callback), 1.20 ms of a hog holding the CPU, 3 us back to user space.
TracedWakeup anatomyCliKnownWakeup()
{
    TracedWakeup w;
    WakeupAnatomy& a = w.anatomy;
    a.query = {1000, 1, kAnatomyCliStart + 1'000'000'000, kAnatomyCliStart + 1'001'210'000};
    a.latencyNs = 1'210'000;
    a.runCpu = 1;
    a.timerCpu = 1;
    a.timerIrqDelayNs = 4'000;
    a.irqNs = 3'000;
    a.schedulingNs = 1'200'000;
    a.returnToUserNs = 3'000;
    a.unaccountedNs = 0;
    a.interrupts = {{CulpritKind::Irq, 24, "irq 24 (virtio0-input.0)", false, 2'000, 1},
                    {CulpritKind::Hrtimer, 0x1234, "hrtimer_wakeup (own)", true, 1'000, 1}};
    AnatomySlice hog;
    hog.pid = 4242;
    hog.comm = "rtscope-hog";
    hog.prio = 120;
    hog.fromNs = a.query.deadlineNs + 7'000;
    hog.toNs = hog.fromNs + 1'200'000;
    hog.ns = 1'200'000;
    a.tasks = {hog};
    w.seq = 999;
    w.thread = 0;
    w.events.resize(37);
    return w;
}

// A wake-up 60 us late of which only the timer IRQ delay is known: the rest is unknown, not estimated.
TracedWakeup anatomyCliPartialWakeup()
{
    TracedWakeup w;
    WakeupAnatomy& a = w.anatomy;
    a.query = {1000, 1, kAnatomyCliStart + 2'000'000'000, kAnatomyCliStart + 2'000'060'000};
    a.latencyNs = 60'000;
    a.runCpu = 1;
    a.timerIrqDelayNs = 5'000;
    a.unaccountedNs = 55'000;
    a.idleAtTimer = true;
    a.eventsLost = true;
    a.note = "the kernel did not record the switch to the thread";
    w.seq = 1999;
    return w;
}

LatencySnapshot anatomyCliSnapshot(bool active)
{
    LatencySnapshot s;
    s.startNs = kAnatomyCliStart;
    s.publishedNs = kAnatomyCliStart + 2'000'000'000;
    LatencyThreadStats t;
    t.cpu = 1;
    t.tid = 1000;
    s.threads.push_back(t);
    auto tr = std::make_shared<LatencyTracing>();
    tr->active = active;
    tr->top = 10;
    tr->thresholdNs = 50'000;
    if (!active) {
        tr->unavailable = "tracefs at /sys/kernel/tracing is not writable (EACCES); run as root";
        s.tracing = tr;
        return s;
    }
    tr->missingEvents = {"irq_vectors/local_timer_entry"};
    tr->stats.events = 120'000;
    tr->stats.lostEvents = 3;
    tr->stats.lossReports = 1;
    AnatomyFigures& f = tr->figures;
    f.wakeupsSeen = 2000;
    f.wakeupsAnalysed = 1990;
    f.wakeupsComplete = 1500;
    f.wakeupsWithLoss = 1;
    f.wakeupsNotAnalysed = 6;
    f.wakeupsPending = 4;
    f.worst = {anatomyCliKnownWakeup(), anatomyCliPartialWakeup()};
    f.overThreshold = {anatomyCliKnownWakeup()};
    f.overThresholdTotal = 7;
    CulpritTable table;
    for (const auto& w : f.worst)
        table.add(w.anatomy);
    f.culprits = table.rows();
    s.tracing = tr;
    return s;
}

} // namespace

class TestAnatomyCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    int m_cpu = -1;                     ///< the measured CPU of the real runs
    rtscope::test::MaybeSkip m_noTrace; ///< why a traced run cannot happen here

    static QString anatomyProblemOf(const nlohmann::json& anatomy)
    {
        for (const char* key : {"status", "unavailable_reason", "missing_events", "stats", "wakeups", "top", "culprits",
                                "worst", "threshold"})
            if (!anatomy.contains(key))
                return QString("anatomy lacks \"%1\"").arg(key);
        for (const char* key : {"events", "events_per_second", "lost_events"})
            if (!anatomy["stats"].contains(key))
                return QString("anatomy.stats lacks \"%1\"").arg(key);
        for (const char* key : {"threshold_ns", "total", "wakeups"})
            if (!anatomy["threshold"].contains(key))
                return QString("anatomy.threshold lacks \"%1\"").arg(key);
        return {};
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope");
        m_noTrace = test::tracedRunUnavailable(m_cpu);
    }

    void helpListsTheFlags()
    {
        const QStringList missing = missingFromHelp({"latency"}, {"--trace", "--trace-threshold", "--trace-top"});
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(' ')));
    }

    void badTraceFlagsExitTwoWithTheSentence_data()
    {
        addRefusalColumns();
        QTest::newRow("threshold without --trace")
            << QStringList{"latency", "--trace-threshold", "100us"} << "trace-threshold needs --trace";
        QTest::newRow("top without --trace") << QStringList{"latency", "--trace-top", "5"} << "trace-top needs --trace";
        QTest::newRow("threshold garbage") << QStringList{"latency", "--trace", "--trace-threshold", "soon"}
                                           << "trace-threshold: 'soon' is not a duration";
        QTest::newRow("threshold zero") << QStringList{"latency", "--trace", "--trace-threshold", "0"}
                                        << "trace-threshold must be more than 0 (got 0)";
        QTest::newRow("threshold negative")
            << QStringList{"latency", "--trace", "--trace-threshold", "-5us"} << "trace-threshold: '-5us' is not";
        // The ranges are LatencyConfig::validate()'s: the sentence names the field and its range.
        QTest::newRow("threshold over 10 s") << QStringList{"latency", "--trace", "--trace-threshold", "11s"}
                                             << "trace-threshold must be between 0 (none) and 10.000 s (got 11.000 s)";
        QTest::newRow("top zero") << QStringList{"latency", "--trace", "--trace-top", "0"}
                                  << "trace-top must be between 1 and 100 (got 0)";
        QTest::newRow("top 101") << QStringList{"latency", "--trace", "--trace-top", "101"}
                                 << "trace-top must be between 1 and 100 (got 101)";
        QTest::newRow("top text") << QStringList{"latency", "--trace", "--trace-top", "many"} << "--trace-top";
    }
    void badTraceFlagsExitTwoWithTheSentence() { checkRefusalRow(); }

    void textOfHandMadeFigures()
    {
        const LatencySnapshot s = anatomyCliSnapshot(true);
        const QString status = QString::fromStdString(cli::anatomyStatusText(s));
        QVERIFY2(status.startsWith("Tracing: private tracefs instance on CPU 1: 120000 events in 2.00 s (60000 "
                                   "events/s), lost events 3"),
                 qPrintable(status));
        QVERIFY2(status.contains("2000 measured, 1990 analysed (1500 with every part known, 1 with lost events in "
                                 "their window), 6 not analysed (their events were not held), 4 still waiting"),
                 qPrintable(status));
        QVERIFY2(status.contains("irq_vectors/local_timer_entry"), qPrintable(status));

        const QString table = QString::fromStdString(cli::culpritTableText(s));
        QVERIFY2(table.startsWith("Who delayed the measuring thread (1990 wake-ups analysed"), qPrintable(table));
        const QStringList rows = table.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), 4); // title, header, the hog, irq 24 (the own timer is not a culprit)
        QVERIFY2(rows[1].contains(QRegularExpression("kind\\s+name\\s+pid/irq\\s+prio\\s+wake-ups\\s+total\\s+worst")),
                 qPrintable(rows[1]));
        QVERIFY2(rows[2].contains(QRegularExpression(
                     "task\\s+rtscope-hog\\s+4242\\s+nice 0 \\(OTHER/BATCH\\)\\s+1\\s+1\\.20 ms\\s+1\\.20 ms")),
                 qPrintable(rows[2]));
        QVERIFY2(
            rows[3].contains(QRegularExpression("irq\\s+irq 24 \\(virtio0-input.0\\)\\s+24\\s+-\\s+1\\s+2\\.0 us")),
            qPrintable(rows[3]));

        const QString worst = QString::fromStdString(cli::worstWakeupsText(s));
        const WakeupAnatomy& known = s.tracing->figures.worst[0].anatomy;
        const WakeupAnatomy& partial = s.tracing->figures.worst[1].anatomy;
        QVERIFY2(worst.contains("  1. " + QString::fromStdString(anatomyVerdict(known))), qPrintable(worst));
        QVERIFY2(worst.contains("  2. " + QString::fromStdString(anatomyVerdict(partial))), qPrintable(worst));
        QVERIFY2(worst.contains("rtscope-hog"), qPrintable(worst));
        // The parts of the first: each known, with its unit.
        const QString first = worst.section("  2. ", 0, 0);
        QVERIFY2(first.contains(QRegularExpression("timer IRQ delay\\s+4\\.0 us\\n")), qPrintable(first));
        QVERIFY2(
            first.contains(QRegularExpression(
                "interrupts\\s+3\\.0 us: irq 24 \\(virtio0-input\\.0\\) 2\\.0 us \\(1×\\), hrtimer_wakeup \\(own\\)")),
            qPrintable(first));
        QVERIFY2(first.contains(QRegularExpression(
                     "scheduling delay\\s+1\\.20 ms: rtscope-hog \\(pid 4242, nice 0 \\(OTHER/BATCH\\)\\) 1\\.20 ms")),
                 qPrintable(first));
        QVERIFY2(first.contains(QRegularExpression("return to user\\s+3\\.0 us\\n")), qPrintable(first));
        QVERIFY2(first.contains(QRegularExpression("unaccounted\\s+0 ns\\n")), qPrintable(first));
        QVERIFY2(first.contains("seq 999, thread 0 (tid 1000), deadline 1.000000 s after the start, 37 events"),
                 qPrintable(first));
        // The second: what is not known says so.
        const QString second = worst.section("  2. ", 1);
        QVERIFY2(second.contains(QRegularExpression("timer IRQ delay\\s+5\\.0 us \\(the CPU was idle\\)")),
                 qPrintable(second));
        for (const char* part : {"interrupts", "scheduling delay", "return to user"})
            QVERIFY2(second.contains(QRegularExpression(QString(part) + "\\s+unknown\\n")),
                     qPrintable(QString(part) + " not unknown in: " + second));
        QVERIFY2(second.contains(QRegularExpression("unaccounted\\s+55\\.0 us \\(the unknown parts\\)")),
                 qPrintable(second));
        QVERIFY2(second.contains("the kernel lost events inside this wake-up's window"), qPrintable(second));
        QVERIFY2(second.contains("note: the kernel did not record the switch"), qPrintable(second));
        QVERIFY2(worst.contains("Over the threshold of 50.0 us: 7 wake-ups (the latest 1 "), qPrintable(worst));

        const QString all = QString::fromStdString(cli::anatomyText(s));
        QVERIFY(all.indexOf("Tracing:") < all.indexOf("Who delayed"));
        QVERIFY(all.indexOf("Who delayed") < all.indexOf("Worst wake-ups"));
        QVERIFY(cli::tracingUnavailableText("latency", s).empty());
    }

    void textWhenTracingIsUnavailableOrNotAsked()
    {
        const LatencySnapshot off = anatomyCliSnapshot(false);
        QVERIFY(cli::anatomyText(off).empty()); // nothing on stdout beyond the untraced run's output
        const QString err = QString::fromStdString(cli::tracingUnavailableText("latency", off));
        QVERIFY2(err.startsWith("rtscope latency: tracing is not available: tracefs at /sys/kernel/tracing is not "
                                "writable (EACCES); run as root\n"),
                 qPrintable(err));
        QVERIFY2(err.contains("the run goes on untraced"), qPrintable(err));

        LatencySnapshot untraced = anatomyCliSnapshot(true);
        untraced.tracing.reset();
        QVERIFY(cli::anatomyText(untraced).empty());
        QVERIFY(cli::tracingUnavailableText("latency", untraced).empty());
        QVERIFY(!latencyReportJson(untraced).contains("anatomy"));
    }

    void jsonOfHandMadeFigures()
    {
        LatencySnapshot s = anatomyCliSnapshot(true);
        // A comm the kernel cut inside a UTF-8 character: the JSON must still be valid (dump() throws otherwise).
        auto tracing = std::make_shared<LatencyTracing>(*s.tracing);
        tracing->figures.culprits.front().name = std::string("h\xc3", 2);
        s.tracing = tracing;
        const nlohmann::json report = latencyReportJson(s);
        QVERIFY(report.contains("anatomy"));
        const nlohmann::json a = nlohmann::json::parse(report.dump());
        const nlohmann::json& anatomy = a["anatomy"];
        const QString problem = anatomyProblemOf(anatomy);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY2(anatomy["status"] == "active", anatomy["status"].dump().c_str());
        QCOMPARE(anatomy["stats"]["lost_events"].get<uint64_t>(), uint64_t(3));
        QCOMPARE(anatomy["stats"]["events_per_second"].get<double>(), 60000.0);
        QCOMPARE(anatomy["wakeups"]["analysed"].get<uint64_t>(), uint64_t(1990));
        QCOMPARE(anatomy["culprits"].size(), size_t(2));
        QVERIFY2(anatomy["culprits"][0]["kind"] == "task", anatomy["culprits"][0]["kind"].dump().c_str());
        QCOMPARE(anatomy["culprits"][0]["id"].get<int64_t>(), int64_t(4242));
        QVERIFY2(anatomy["culprits"][0]["name"] == "h\\xc3", anatomy["culprits"][0]["name"].dump().c_str());
        QCOMPARE(anatomy["culprits"][0]["total_ns"].get<int64_t>(), int64_t(1'200'000));
        QCOMPARE(anatomy["worst"].size(), size_t(2));
        const nlohmann::json& w0 = anatomy["worst"][0];
        QCOMPARE(w0["seq"].get<uint64_t>(), uint64_t(999));
        QCOMPARE(w0["deadline_ns"].get<int64_t>(), int64_t(1'000'000'000));
        QCOMPARE(w0["latency_ns"].get<int64_t>(), int64_t(1'210'000));
        QCOMPARE(w0["parts"]["timer_irq_delay_ns"].get<int64_t>(), int64_t(4'000));
        QCOMPARE(w0["parts"]["interrupts_ns"].get<int64_t>(), int64_t(3'000));
        QCOMPARE(w0["parts"]["scheduling_delay_ns"].get<int64_t>(), int64_t(1'200'000));
        QCOMPARE(w0["parts"]["return_to_user_ns"].get<int64_t>(), int64_t(3'000));
        QCOMPARE(w0["parts"]["unaccounted_ns"].get<int64_t>(), int64_t(0));
        QCOMPARE(w0["verdict"].get<std::string>(), anatomyVerdict(s.tracing->figures.worst[0].anatomy));
        QVERIFY2(w0["tasks"][0]["comm"] == "rtscope-hog", w0["tasks"][0]["comm"].dump().c_str());
        QVERIFY2(w0["interrupts"][1]["kind"] == "hrtimer" && w0["interrupts"][1]["address"] == "0x1234",
                 w0["interrupts"][1].dump().c_str());
        QVERIFY(!anatomy["culprits"][1].contains("address")); // an IRQ's id is its number
        QCOMPARE(w0["events"].get<size_t>(), size_t(37));
        const nlohmann::json& w1 = anatomy["worst"][1];
        QVERIFY(w1["parts"]["timer_irq_delay_ns"].is_number());
        for (const char* part : {"interrupts_ns", "scheduling_delay_ns", "return_to_user_ns"})
            QVERIFY2(w1["parts"][part].is_null(), part); // unknown is null, never a number
        QVERIFY2(w1["complete"] == false, w1["complete"].dump().c_str());
        QVERIFY2(w1["events_lost"] == true, w1["events_lost"].dump().c_str());
        QCOMPARE(anatomy["threshold"]["threshold_ns"].get<int64_t>(), int64_t(50'000));
        QCOMPARE(anatomy["threshold"]["total"].get<uint64_t>(), uint64_t(7));
        QCOMPARE(anatomy["threshold"]["wakeups"].size(), size_t(1));

        const nlohmann::json off = latencyReportJson(anatomyCliSnapshot(false))["anatomy"];
        QVERIFY2(off["status"] == "unavailable", off["status"].dump().c_str());
        QVERIFY(off["unavailable_reason"].get<std::string>().find("EACCES") != std::string::npos);
    }

    void tracedRunNamesTheHogs()
    {
        RTSCOPE_SKIP_IF(m_noTrace);
        const QString cpu = QString::number(m_cpu);
        const QString hist = m_dir.filePath("traced.hist"), json = m_dir.filePath("traced.json");
        const Run r = run({"latency", "--policy", "other", "--hogs", "4", "-a", cpu, "-D", "2s", "--trace",
                           "--trace-top", "5", "--trace-threshold", "500us", "--histfile", hist, "--json", json},
                          60000);
        QVERIFY2(r.exitCode == 0, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(!r.err.contains("tracing is not available"), qPrintable(r.err));
        // What cyclictest users read is where it was: the header, the status line, the summary; then the anatomy.
        QVERIFY2(r.out.startsWith("# rtscope "), qPrintable(r.out));
        QVERIFY2(r.out.contains(QRegularExpression("\\nT: 0 \\(\\s*\\d+\\) P: 0 I:1000 C:")), qPrintable(r.out));
        QVERIFY2(tracingLineProblem(r.out, cpu).isEmpty(), qPrintable(tracingLineProblem(r.out, cpu) + "\n" + r.out));
        const qsizetype who = r.out.indexOf("Who delayed the measuring thread");
        QVERIFY2(who > r.out.indexOf("\nTracing: "), qPrintable(r.out));
        // Four SCHED_OTHER spinners share the CPU with an OTHER measuring thread: they are what it waits for.
        const QString table = r.out.mid(who, r.out.indexOf("Worst wake-ups") - who);
        QVERIFY2(
            table.contains(QRegularExpression("\\n  task\\s+rtscope-hog\\s+\\d+\\s+nice 0 \\(OTHER/BATCH\\)\\s+\\d+"
                                              "\\s+[\\d.]+ (ns|us|ms|s)\\s+[\\d.]+ (ns|us|ms|s)")),
            qPrintable(table));
        const QString worst = r.out.mid(r.out.indexOf("Worst wake-ups"));
        QVERIFY2(worst.contains(QRegularExpression("\\n  1\\. [\\d.]+ (ns|us|ms|s) late on CPU " + cpu + ": ")),
                 qPrintable(worst));
        QVERIFY2(worst.contains(QRegularExpression("\\n\\s+scheduling delay\\s+([\\d.]+ (ns|us|ms|s)|unknown)")),
                 qPrintable(worst));
        // Some of the worst waited for a hog; which task held the CPU the longest depends on what else ran there
        // (a compiler on the same CPU waits its turn like the hogs), so the paragraphs need only name a task.
        QVERIFY2(worst.contains(QRegularExpression("[\\d.]+ (us|ms|s) waiting for .+ \\(pid \\d+, ")),
                 qPrintable(worst));
        QVERIFY2(worst.contains("Over the threshold of 500.0 us: "), qPrintable(worst));

        // The histfile is cyclictest's, as without --trace.
        CyclictestData data;
        std::string error;
        QVERIFY2(parseCyclictestHistogram(readAll(hist).toStdString(), data, error), error.c_str());
        QCOMPARE(data.threads.size(), size_t(1));

        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        QVERIFY(j["rtscope"]["config"]["trace"] == true);
        const nlohmann::json& anatomy = j["rtscope"]["anatomy"];
        const QString problem = anatomyProblemOf(anatomy);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY2(anatomy["status"] == "active", anatomy["status"].dump().c_str());
        QVERIFY(anatomy["stats"]["events"].get<uint64_t>() > 1000);
        QVERIFY(anatomy["worst"].size() >= 1 && anatomy["worst"].size() <= 5);
        QCOMPARE(anatomy["top"].get<int>(), 5);
        QCOMPARE(anatomy["threshold"]["threshold_ns"].get<int64_t>(), int64_t(500'000));
        bool hogNamed = false;
        for (const auto& c : anatomy["culprits"])
            hogNamed = hogNamed || (c["kind"] == "task" && c["name"] == "rtscope-hog");
        QVERIFY2(hogNamed, anatomy["culprits"].dump().c_str());
        for (const auto& w : anatomy["worst"]) {
            for (const char* key :
                 {"timer_irq_delay_ns", "interrupts_ns", "scheduling_delay_ns", "return_to_user_ns", "unaccounted_ns"})
                QVERIFY2(w["parts"].contains(key), key);
            QVERIFY(!w["verdict"].get<std::string>().empty());
            // The known parts and the unaccounted rest add up to the measured latency.
            int64_t sum = w["parts"]["unaccounted_ns"].get<int64_t>();
            for (const char* key : {"timer_irq_delay_ns", "interrupts_ns", "scheduling_delay_ns", "return_to_user_ns"})
                if (w["parts"][key].is_number())
                    sum += w["parts"][key].get<int64_t>();
            QCOMPARE(sum, w["latency_ns"].get<int64_t>());
        }
        // Every key an untraced run writes is still there, with "anatomy" the one added (in "rtscope").
        const QString plainJson = m_dir.filePath("plain.json");
        const Run plain = run({"latency", "--policy", "other", "-a", cpu, "-l", "100", "-q", "--json", plainJson});
        QCOMPARE(plain.exitCode, 0);
        const auto p = nlohmann::json::parse(readAll(plainJson).toStdString());
        QVERIFY(!p["rtscope"].contains("anatomy"));
        for (const auto& [key, value] : p.items())
            QVERIFY2(j.contains(key), key.c_str());
        std::set<std::string> added;
        for (const auto& [key, value] : j["rtscope"].items())
            if (!p["rtscope"].contains(key))
                added.insert(key);
        QCOMPARE(added, std::set<std::string>{"anatomy"});
    }

    void quietTracedRunKeepsOnlyTheSummary()
    {
        RTSCOPE_SKIP_IF(m_noTrace);
        const Run r =
            run({"latency", "--policy", "other", "-a", QString::number(m_cpu), "-D", "300ms", "--trace", "-q"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("\nSummary: "), qPrintable(r.out));
        QVERIFY2(!r.out.contains("Tracing:") && !r.out.contains("Who delayed"), qPrintable(r.out));
    }

    void unavailableTracingStillMeasuresAndSaysWhy_data()
    {
        test::addRows<bool>("quiet", {{"normal", false}, {"-q", true}});
    }
    void unavailableTracingStillMeasuresAndSaysWhy()
    {
        QFETCH(bool, quiet);
        // nobody may not create a tracefs instance (nor mount tracefs): the run goes on untraced.
        QTemporaryDir dir;
        QVERIFY(QFile::setPermissions(dir.path(), QFileDevice::ReadOther | QFileDevice::WriteOther |
                                                      QFileDevice::ExeOther | QFileDevice::ReadOwner |
                                                      QFileDevice::WriteOwner | QFileDevice::ExeOwner));
        const QString json = dir.filePath("untraced.json");
        QStringList args{"latency", "--policy", "other", "-D", "300ms", "--trace", "--json", json};
        if (quiet)
            args << "-q";
        MaybeSkip skip;
        const Run r = runWithoutRtPrivilege(args, skip);
        RTSCOPE_SKIP_IF(skip);
        QVERIFY2(r.exitCode == 0, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(r.err.contains(QRegularExpression("rtscope latency: tracing is not available: \\S.*\\n")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("the run goes on untraced"), qPrintable(r.err));
        QCOMPARE(r.err.count("tracing is not available"), 1);
        QVERIFY2(r.out.contains("\nSummary: "), qPrintable(r.out));
        QVERIFY2(!r.out.contains("Who delayed"), qPrintable(r.out));
        QCOMPARE(r.out.startsWith("# rtscope "), !quiet);
        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        QVERIFY(j["thread"]["0"]["cycles"].get<uint64_t>() > 100); // it measured
        QVERIFY2(j["rtscope"]["anatomy"]["status"] == "unavailable", j["rtscope"]["anatomy"]["status"].dump().c_str());
        QVERIFY(!j["rtscope"]["anatomy"]["unavailable_reason"].get<std::string>().empty());
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestAnatomyCli)
#include "tst_anatomy_cli.moc"
