// `rtscope agent --stdio` runs every experiment of the registry, and the sweep (docs/remote.md, "Snapshot"): each one
// started once over a pipe with a short config, latency streaming its recording and the others their snapshots, each
// decoded with engine/remote/snapshot_json.h and checked for its experiment's shape; a reconfigure of a running
// experiment other than latency (a new run), a bad config refused with the local CLI's sentence while the agent goes
// on, and every thread of the agent joined after a stop and after its controller leaves, whatever the experiment.
#include "tests/common/cli_process.h"
#include "tests/common/short_experiment_configs.h"

#include "engine/experiments/registry.h"
#include "engine/presets/preset.h"
#include "engine/recording/recording_replay.h"
#include "engine/remote/agent_client.h"
#include "engine/remote/agent_protocol.h"
#include "engine/remote/snapshot_json.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"
#include "tests/common/thread_census.h"

#include <QDir>
#include <QtTest>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::test;

namespace {

// The stop budget (kJoinBudgetMs) plus as much again for noticing the frame or the EOF on a loaded 2-CPU machine.
constexpr double kAgentKindsStopBoundMs = 2 * kJoinBudgetMs;

// Milliseconds from @p t0 until @p pid has at most @p tasks tasks left, or -1 after @p timeoutMs.
double agentKindsMsUntil(pid_t pid, int tasks, int64_t t0, int timeoutMs)
{
    while (nowNs() - t0 < int64_t(timeoutMs) * kNsPerMs) {
        if (liveTasksOf(pid) <= tasks)
            return double(nowNs() - t0) / 1e6;
        usleep(1000);
    }
    return -1;
}

// The agent as a child and a client connected to it; the destructor closes the connection and reaps the agent.
struct AgentKindsSession {
    AgentProcess process;
    std::unique_ptr<AgentClient> client;
    int baseline = 0; ///< the agent's tasks with nothing running

    Error open()
    {
        // --allow-commands: the sweep's load command is one of the things tried.
        if (Error e = spawnAgentProcess(agentStdioCommand("--allow-commands"), process))
            return e;
        client = std::make_unique<AgentClient>(process.fromAgent, process.toAgent);
        if (Error e = client->connect(10'000))
            return e;
        baseline = liveTasksOf(process.pid);
        return {};
    }
    ~AgentKindsSession()
    {
        client.reset();
        if (process.pid > 0)
            reapAgentProcess(process.pid, 3000);
    }
};

// What the pages of each experiment draw first, present in a decoded snapshot of a finished short run.
template <class Config> QByteArray agentKindsShapeProblem(const nlohmann::json& j)
{
    std::vector<std::string> errors;
    const auto s = snapshotFromJson(std::type_identity<Config>{}, j, errors);
    if (!s)
        return "does not decode: " + QByteArray::fromStdString(errors.empty() ? "?" : errors.front());
    if (s->running)
        return "the final snapshot says running";
    if constexpr (std::is_same_v<Config, StarvationConfig>) {
        if (s->counters.empty() || s->counters.front().ops == 0 || s->bursts.empty())
            return "no counters, no operations or no burst";
    } else if constexpr (std::is_same_v<Config, DriftConfig>) {
        if (s->methods.size() != 2 || s->methods.front().wakes == 0 || s->methods.front().ticks().empty())
            return "no drift rows or no ticks";
    } else if constexpr (std::is_same_v<Config, SleepFloorConfig>) {
        if (s->cells.size() != 4 || s->samplesDone == 0 || s->rawSamples().size() != s->samplesDone)
            return "no cells or no samples";
    } else if constexpr (std::is_same_v<Config, InversionConfig>) {
        if (s->highWait.count() == 0 || s->timeline.empty() || s->periods.empty())
            return "no waits, timeline or periods";
    } else if constexpr (std::is_same_v<Config, ContentionConfig>) {
        if (s->kinds.size() != 2 || !s->kinds.front() || s->kinds.front()->wait.count() == 0)
            return "no kinds or no waits";
    } else if constexpr (std::is_same_v<Config, DeadlineConfig>) {
        if (s->tasks.empty() || s->jobs.empty() || s->counter.windows == 0)
            return "no tasks, jobs or counter windows";
    }
    return {};
}

} // namespace

class TestAgentKindsCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { setUpAgentPipes(); }

    // Each experiment once on one connection: started with the config as run, a live message while it runs and the
    // final one, the agent back to its own threads after each.
    void everyKindOnce()
    {
        AgentKindsSession session;
        const Error opened = session.open();
        QVERIFY2(!opened, opened.message.c_str());
        AgentClient& client = *session.client;
        for (const std::string& name : experimentNames()) {
            const QByteArray what = QByteArray::fromStdString(name);
            nlohmann::json started;
            const Error e = client.start(name, shortExperimentConfig(name), 10'000, &started);
            QVERIFY2(!e, (name + ": " + e.message).c_str());
            QCOMPARE(started.at("experiment").get<std::string>(), name);
            const uint64_t run = started.at("run").get<uint64_t>();
            bool sawLive = false;
            uint64_t count = 0;
            const int64_t deadline = nowNs() + 10'000 * kNsPerMs;
            while (!client.ended() && nowNs() < deadline) {
                if (const auto m = client.snapshot(count, count); m && m->run == run && !m->final)
                    sawLive = true;
                if (name == "latency" && client.recordingBytes() > 0)
                    sawLive = true;
                usleep(5000);
            }
            QVERIFY2(client.ended(), what + " did not end");
            QVERIFY2(client.connectionError().empty(), client.connectionError().c_str());
            const nlohmann::json ended = client.endedInfo();
            QVERIFY2(ended.at("finished").get<bool>(), what + ": " + QByteArray::fromStdString(ended.dump()));
            QVERIFY2(sawLive, what + ": nothing arrived while it ran");
            if (name == "latency") {
                const ReplayedRun r = replayRecording(client.recording());
                QVERIFY2(r.read.ok, r.read.error.c_str());
                QCOMPARE(r.read.samples, shortLatencyConfig().maxSamples);
            } else {
                const auto last = client.snapshotOfRun(run);
                QVERIFY2(last && last->final, what + ": no final snapshot");
                QCOMPARE(last->experiment, name);
                withExperimentConfigType(name, [&]<class Config>(std::type_identity<Config>) {
                    if constexpr (!std::is_same_v<Config, LatencyConfig>) {
                        const QByteArray problem = agentKindsShapeProblem<Config>(last->snapshot);
                        QVERIFY2(problem.isEmpty(), what + ": " + problem);
                    }
                });
            }
            const double ms = agentKindsMsUntil(session.process.pid, session.baseline, nowNs(), 2000);
            QVERIFY2(ms >= 0, what + ": the agent kept threads after the run ended");
        }
        const std::vector<std::string> errors = client.errors();
        QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
    }

    // A reconfigure of a running drift run is a new run with the new config; the old run's last snapshot comes
    // first. A bad config, at start or reconfigure, gets the local CLI's sentence and changes nothing.
    void reconfigureAndRefusals()
    {
        AgentKindsSession session;
        const Error opened = session.open();
        QVERIFY2(!opened, opened.message.c_str());
        AgentClient& client = *session.client;

        // Refused at start: the sentence `rtscope drift` gives for the same period, and nothing runs.
        nlohmann::json bad = toJson(shortDriftConfig());
        bad["period_ns"] = 10'000;
        const Run local = run({"drift", "--period", "10us", "--ticks", "10"});
        QCOMPARE(local.exitCode, 2);
        const QString sentence = local.err.trimmed().section(": ", 1); // after "rtscope drift: "
        Error e = client.start("drift", bad, 10'000, nullptr);
        QCOMPARE(int(e.kind), int(ErrorKind::InvalidConfig));
        QVERIFY2(QString::fromStdString(e.message) == sentence,
                 (e.message + " | local: " + sentence.toStdString()).c_str());
        QCOMPARE(liveTasksOf(session.process.pid), session.baseline);

        DriftConfig longer = shortDriftConfig();
        longer.ticks = 20'000; // 20 s: it runs until the reconfigure
        nlohmann::json started;
        e = client.start("drift", toJson(longer), 10'000, &started);
        QVERIFY2(!e, e.message.c_str());
        const uint64_t firstRun = started.at("run").get<uint64_t>();
        uint64_t count = 0;
        QTRY_VERIFY_WITH_TIMEOUT(client.snapshot(0, count), 3000);

        // Refused at reconfigure: the same sentence; the run goes on.
        QVERIFY(!client.reconfigure(bad));
        QTRY_VERIFY_WITH_TIMEOUT(!client.errors().empty(), 3000);
        QCOMPARE(QString::fromStdString(client.errors().back()), sentence);
        const uint64_t before = count;
        QTRY_VERIFY_WITH_TIMEOUT(client.snapshot(before, count) && client.snapshot(0, count)->run == firstRun, 3000);
        QVERIFY(!client.ended());

        // Accepted: a new run with the new period.
        DriftConfig changed = shortDriftConfig();
        changed.periodNs = 2'000'000;
        changed.ticks = 100;
        const uint64_t startedBefore = client.startedCount();
        QVERIFY(!client.reconfigure(toJson(changed)));
        QTRY_VERIFY_WITH_TIMEOUT(client.startedCount() == startedBefore + 1, 5000);
        const nlohmann::json restarted = client.lastStarted();
        QCOMPARE(restarted.at("reconfigured").get<bool>(), true);
        QCOMPARE(restarted.at("run").get<uint64_t>(), firstRun + 1);
        QCOMPARE(restarted.at("config").at("period_ns").get<int64_t>(), int64_t(2'000'000));
        const auto oldLast = client.snapshotOfRun(firstRun);
        QVERIFY2(oldLast && oldLast->final, "the replaced run's final snapshot");
        QVERIFY(client.waitEnded(8000));
        QVERIFY(client.endedInfo().at("finished").get<bool>());
        const auto newLast = client.snapshotOfRun(firstRun + 1);
        QVERIFY(newLast && newLast->final);
        std::vector<std::string> errors;
        const auto snap = driftSnapshotFromJson(newLast->snapshot, errors);
        QVERIFY2(snap, errors.empty() ? "" : errors.front().c_str());
        QCOMPARE(snap->config.periodNs, int64_t(2'000'000));
        QVERIFY(snap->finished);
        QCOMPARE(snap->methods.front().lastTick, int64_t(100)); // the new run's tick count, not the old one's

        // A placement the target cannot honour: the sentence the presets give for it.
        nlohmann::json farCpu = toJson(shortStarvationConfig());
        farCpu["cpu"] = 4000;
        e = client.start("starvation", farCpu, 10'000, nullptr);
        QCOMPARE(int(e.kind), int(ErrorKind::InvalidConfig));
        QCOMPARE(e.message, joinErrors(validateExperimentConfig("starvation", farCpu)));
        QVERIFY(!client.start("contention", shortExperimentConfig("contention"), 10'000, nullptr)); // still sound
        QVERIFY(client.waitEnded(8000));
    }

    // The sweep, which no preset names, runs on the agent by its name: started with its label, its snapshots
    // (each setting's figures and the running setting's live snapshot) streamed and decoded, every setting run.
    // A bad config gets `rtscope sweep`'s sentence; a stop, and the controller's leaving, stop and reap its load
    // command with its threads.
    void sweepRunsOnTheAgent()
    {
        AgentKindsSession session;
        const Error opened = session.open();
        QVERIFY2(!opened, opened.message.c_str());
        AgentClient& client = *session.client;
        const pid_t pid = session.process.pid;

        const SweepConfig c = shortSweepConfig();
        nlohmann::json started;
        Error e = client.start("sweep", toJson(c), 10'000, &started);
        QVERIFY2(!e, e.message.c_str());
        QCOMPARE(started.at("experiment").get<std::string>(), std::string("sweep"));
        QCOMPARE(started.at("label").get<std::string>(), c.label());
        const uint64_t sweepRun = started.at("run").get<uint64_t>();
        bool sawLive = false;
        uint64_t count = 0;
        const int64_t deadline = nowNs() + 10'000 * kNsPerMs;
        while (!client.ended() && nowNs() < deadline) {
            if (const auto m = client.snapshot(count, count); m && m->run == sweepRun && !m->final)
                sawLive = sawLive || !m->snapshot.value("live", nlohmann::json()).is_null();
            usleep(5000);
        }
        QVERIFY2(client.ended(), "the sweep did not end");
        QVERIFY2(sawLive, "no snapshot with the running setting arrived while the sweep ran");
        QVERIFY2(client.endedInfo().at("finished").get<bool>(), client.endedInfo().dump().c_str());
        const auto last = client.snapshotOfRun(sweepRun);
        QVERIFY2(last && last->final, "no final snapshot");
        std::vector<std::string> errors;
        const auto snap = sweepSnapshotFromJson(last->snapshot, errors);
        QVERIFY2(snap, errors.empty() ? "" : errors.front().c_str());
        QVERIFY(!snap->running);
        QVERIFY(snap->finished);
        QCOMPARE(snap->config, c);
        QCOMPARE(snap->results.size(), c.settings.size());
        for (const SweepResult& r : snap->results) {
            QVERIFY2(r.error.empty(), r.error.c_str());
            QVERIFY2(r.stats.samples > 50, qPrintable(QString::number(r.stats.samples)));
            QVERIFY(r.durationNs >= c.eachNs);
        }
        QVERIFY2(agentKindsMsUntil(pid, session.baseline, nowNs(), 2000) >= 0, "the sweep's threads stayed");

        // Refused with the sentence `rtscope sweep` gives for the same setting time, and nothing runs.
        SweepConfig tooShort = c;
        tooShort.eachNs = 10'000'000;
        const Run local = test::run({"sweep", "--settings", "other", "--each", "10ms"});
        QCOMPARE(local.exitCode, 2);
        const QString sentence = local.err.trimmed().section(": ", 1); // after "rtscope sweep: "
        e = client.start("sweep", toJson(tooShort), 10'000, nullptr);
        QCOMPARE(int(e.kind), int(ErrorKind::InvalidConfig));
        QVERIFY2(QString::fromStdString(e.message) == sentence,
                 (e.message + " | local: " + sentence.toStdString()).c_str());
        QCOMPARE(liveTasksOf(pid), session.baseline);

        // A stop: the load command is stopped and reaped (gone from the process table, not a zombie) with the
        // sweep's threads.
        SweepConfig loaded = c;
        loaded.eachNs = 10'000'000'000;
        loaded.loadCmd = "exec sleep 60";
        // The load's pid, from the newest snapshot's "running (pid N)"; -1 until one says so within 3 s.
        const auto loadPid = [&]() -> pid_t {
            const int64_t until = nowNs() + 3000 * kNsPerMs;
            while (nowNs() < until) {
                const uint64_t seen = count;
                const auto m = client.snapshot(seen, count);
                const std::string status = m ? m->snapshot.value("load_status", std::string()) : std::string();
                if (const size_t at = status.find("pid "); at != std::string::npos)
                    return pid_t(std::atoi(status.c_str() + at + 4));
                usleep(5000);
            }
            return -1;
        };
        QVERIFY(!client.start("sweep", toJson(loaded), 10'000, nullptr));
        pid_t load = loadPid();
        QVERIFY(load > 0);
        QCOMPARE(::kill(load, 0), 0);
        int64_t t0 = nowNs();
        QVERIFY(!client.stop());
        double ms = agentKindsMsUntil(pid, session.baseline, t0, 3000);
        qInfo("sweep: the agent's threads back to %d %.1f ms after the stop was sent", session.baseline, ms);
        QVERIFY2(ms >= 0 && ms < kAgentKindsStopBoundMs, qPrintable(QString::number(ms)));
        QVERIFY(client.waitEnded(3000));
        QVERIFY(!client.endedInfo().at("finished").get<bool>());
        QVERIFY2(::kill(load, 0) == -1 && errno == ESRCH, "the load command outlived the stop");

        // The controller leaves (EOF) mid-sweep: every agent thread and the load command are gone.
        QVERIFY(!client.start("sweep", toJson(loaded), 10'000, nullptr));
        load = loadPid();
        QVERIFY(load > 0);
        t0 = nowNs();
        client.closeSending();
        ms = agentKindsMsUntil(pid, 1, t0, 3000);
        qInfo("sweep: every agent thread gone %.1f ms after its stdin closed", ms);
        QVERIFY2(ms >= 0 && ms < kAgentKindsStopBoundMs, qPrintable(QString::number(ms)));
        const int status = reapAgentProcess(pid, 2000);
        session.process.pid = -1;
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
        QVERIFY2(::kill(load, 0) == -1 && errno == ESRCH, "the load command outlived the agent");
    }

    // A stop mid-run joins every thread of the run; so does the controller's leaving (EOF), here with the
    // starvation lab's real-time spinner in a burst.
    // The Start frame's view (docs/remote.md, Start): checked, and applied to the experiment that has the option.
    void viewOptionsAreCheckedAndApplied()
    {
        AgentKindsSession session;
        const Error opened = session.open();
        QVERIFY2(!opened, opened.message.c_str());
        AgentClient& client = *session.client;
        const nlohmann::json config = toJson(shortInversionConfig()); // 300 ms: five 60 ms periods

        Error e = client.start("inversion", config, 10'000, nullptr, nlohmann::json{{"timeline_window_ns", 0}});
        QCOMPARE(int(e.kind), int(ErrorKind::InvalidConfig));
        QCOMPARE(QString::fromStdString(e.message),
                 QString("start: view.timeline_window_ns must be an integer from 1000000 to 600000000000 ns (got 0)"));
        e = client.start("inversion", config, 10'000, nullptr, nlohmann::json("wide"));
        QCOMPARE(QString::fromStdString(e.message), QString("start: view must be an object"));
        QCOMPARE(liveTasksOf(session.process.pid), session.baseline);

        // The periods the final snapshot keeps: one window of 60 ms against the default two seconds.
        const auto periodsKept = [&](const nlohmann::json& view) -> int {
            nlohmann::json started;
            if (Error s = client.start("inversion", config, 10'000, &started, view))
                return -1;
            if (!client.waitEnded(8000))
                return -2;
            const auto last = client.snapshotOfRun(started.at("run").get<uint64_t>());
            if (!last || !last->final)
                return -3;
            return int(last->snapshot.value("periods", nlohmann::json::array()).size());
        };
        const int narrow = periodsKept(nlohmann::json{{"timeline_window_ns", 60'000'000}, {"unknown_key", 1}});
        const int wide = periodsKept(nullptr);
        qInfo("periods kept: %d with a 60 ms timeline window, %d with the default", narrow, wide);
        QVERIFY2(narrow >= 1 && narrow <= 2, qPrintable(QString::number(narrow)));
        QVERIFY2(wide >= 4, qPrintable(QString::number(wide)));
    }

    void stopAndEofJoinEveryThread()
    {
        AgentKindsSession session;
        const Error opened = session.open();
        QVERIFY2(!opened, opened.message.c_str());
        AgentClient& client = *session.client;
        const pid_t pid = session.process.pid;

        ContentionConfig contention = shortContentionConfig();
        contention.durationNs = 5'000'000'000;
        QVERIFY(!client.start("contention", toJson(contention), 10'000, nullptr));
        uint64_t count = 0;
        QTRY_VERIFY_WITH_TIMEOUT(client.snapshot(0, count), 3000);
        QVERIFY2(liveTasksOf(pid) > session.baseline, "the run's threads");
        int64_t t0 = nowNs();
        QVERIFY(!client.stop());
        double ms = agentKindsMsUntil(pid, session.baseline, t0, 3000);
        qInfo("contention: the agent's threads back to %d %.1f ms after the stop was sent", session.baseline, ms);
        QVERIFY2(ms >= 0 && ms < kAgentKindsStopBoundMs, qPrintable(QString::number(ms)));
        QVERIFY(client.waitEnded(3000));
        QVERIFY(!client.endedInfo().at("finished").get<bool>());

        StarvationConfig starvation = shortStarvationConfig();
        starvation.burstNs = 3'000'000'000;
        QVERIFY(!client.start("starvation", toJson(starvation), 10'000, nullptr));
        const uint64_t seen = count;
        // In the burst: a starvation snapshot with a burst begun.
        const auto inBurst = [&] {
            const auto m = client.snapshot(seen, count);
            return m && m->experiment == "starvation" && !m->snapshot.value("bursts", nlohmann::json::array()).empty();
        };
        QTRY_VERIFY_WITH_TIMEOUT(inBurst(), 3000);
        t0 = nowNs();
        client.closeSending();
        ms = agentKindsMsUntil(pid, 1, t0, 3000); // the main thread leaving, or the process gone
        qInfo("starvation: every agent thread gone %.1f ms after its stdin closed", ms);
        QVERIFY2(ms >= 0 && ms < kAgentKindsStopBoundMs, qPrintable(QString::number(ms)));
        const int status = reapAgentProcess(pid, 2000);
        session.process.pid = -1;
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestAgentKindsCli)
#include "tst_agent_kinds_cli.moc"
