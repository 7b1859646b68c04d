// The remote run's contract (engine/remote/remote_experiment.h: RemoteRun and RemoteExperiment<Config>), pinned over
// a fake RemoteSession whose link is a real AgentClient talking to a fake agent at the frame level (a socket pair;
// the agent's side is scripted here, so its silence, its refusal and its loss are exact): start() sends the config
// and the view options and takes the agent's label; a start the agent does not answer within setStartWaitMs() gives
// the client's sentence, and a refusal the agent's kind and sentence (waited for, or found at the next look); each
// snapshot message of this run is decoded once into the engine's snapshot with the experiment's own generation (not
// the agent's), across runs; stop() sends Stop and waits at most setStopWaitMs() for the end, and the final snapshot
// says the run is over; a lost link keeps the last snapshot with the session's lostText() as its error; a snapshot
// that does not read ends the run with a sentence. The drift experiment stands in for any config: nothing runs here.
#include "engine/remote/remote_experiment.h"

#include "engine/experiments/timers/drift_config.h"
#include "engine/experiments/timers/drift_experiment.h"
#include "engine/remote/agent_client.h"
#include "engine/remote/agent_protocol.h"
#include "engine/remote/snapshot_json.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"
#include "engine/util/error.h"
#include "tests/common/test_main.h"

#include <QElapsedTimer>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace rtscope;

namespace {

/// The fake agent's end of a socket pair: it says hello, records every frame the controller sends, and answers a
/// Start and a Stop as the test scripts it; the test sends its snapshots.
class RemoteFakeAgent {
public:
    enum class OnStart { Answer, Ignore, Refuse };
    /// The agent numbers its runs from here (not from 1: a run number is not a count).
    static constexpr uint64_t kFirstRun = 41;

    RemoteFakeAgent()
    {
        int fds[2] = {-1, -1};
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
            qFatal("socketpair: %s", strerror(errno));
        m_clientFd = fds[0];
        m_fd = fds[1];
        m_writer = std::make_unique<AgentFrameWriter>(m_fd);
        (void)m_writer->sendJson(AgentFrameType::Hello, agentHello(nlohmann::json::object(), "fake-board"));
        m_thread = std::thread([this] { loop(); });
    }
    ~RemoteFakeAgent()
    {
        m_quit = true;
        m_thread.join();
        if (m_clientFd >= 0)
            ::close(m_clientFd);
        ::close(m_fd);
    }
    RemoteFakeAgent(const RemoteFakeAgent&) = delete;
    RemoteFakeAgent& operator=(const RemoteFakeAgent&) = delete;

    /// The controller's end, for an AgentClient (which then owns it).
    int takeClientFd() { return std::exchange(m_clientFd, -1); }

    void onStart(OnStart what, std::string kind = {}, std::string message = {})
    {
        std::lock_guard lock(m_mutex);
        m_onStart = what;
        m_refusalKind = std::move(kind);
        m_refusalMessage = std::move(message);
    }
    /// Whether a Stop is answered with the run's final snapshot (@p final, as JSON) and an Ended frame.
    void answerStop(bool answer, nlohmann::json final = nullptr)
    {
        std::lock_guard lock(m_mutex);
        m_answerStop = answer;
        m_finalSnapshot = std::move(final);
    }
    /// A Snapshot message of run @p run.
    void sendSnapshot(uint64_t run, bool final, const nlohmann::json& snapshot)
    {
        (void)m_writer->sendJson(AgentFrameType::Snapshot,
                                 {{"experiment", "drift"}, {"run", run}, {"final", final}, {"snapshot", snapshot}});
    }
    /// An Error frame, unasked (a refusal the controller did not wait for).
    void sendError(const std::string& kind, const std::string& message)
    {
        (void)m_writer->sendJson(AgentFrameType::Error, agentError(kind, message));
    }
    /// The link goes down: the controller reads the end of the stream.
    void drop()
    {
        m_dropped = true;
        ::shutdown(m_fd, SHUT_RDWR);
    }
    /// The run number of the last Start answered (0 before any).
    uint64_t run() const
    {
        std::lock_guard lock(m_mutex);
        return m_run;
    }
    /// Every frame of @p type the controller sent, as JSON (an empty payload as null).
    std::vector<nlohmann::json> received(AgentFrameType type) const
    {
        std::lock_guard lock(m_mutex);
        std::vector<nlohmann::json> out;
        for (const AgentFrame& f : m_received)
            if (f.type == type)
                out.push_back(f.payload.empty() ? nlohmann::json() : nlohmann::json::parse(f.payload, nullptr, false));
        return out;
    }
    /// Waits until @p n frames of @p type came, at most @p timeoutMs.
    bool waitReceived(AgentFrameType type, size_t n, int timeoutMs) const
    {
        std::unique_lock lock(m_mutex);
        return m_changed.wait_for(lock, std::chrono::milliseconds(timeoutMs), [&] {
            size_t count = 0;
            for (const AgentFrame& f : m_received)
                count += f.type == type;
            return count >= n;
        });
    }

private:
    void loop()
    {
        AgentFrameDecoder decoder;
        std::string buffer(65536, '\0');
        int64_t lastSent = nowNs();
        while (!m_quit && !m_dropped) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, 20) > 0) {
                const ssize_t n = ::read(m_fd, buffer.data(), buffer.size());
                if (n <= 0)
                    return; // the controller closed the link
                decoder.feed(std::string_view(buffer.data(), size_t(n)));
                AgentFrame f;
                std::string error;
                for (AgentFrameDecoder::Result r; (r = decoder.next(f, error)) != AgentFrameDecoder::Result::NeedMore;)
                    if (r == AgentFrameDecoder::Result::Frame)
                        handle(f);
            }
            // The controller gives a silent agent up after kAgentHeartbeatTimeoutMs.
            if (!m_dropped && nowNs() - lastSent > int64_t(kAgentHeartbeatMs / 2) * kNsPerMs) {
                (void)m_writer->send(AgentFrameType::Heartbeat, std::string_view());
                lastSent = nowNs();
            }
        }
    }
    void handle(const AgentFrame& f)
    {
        std::unique_lock lock(m_mutex);
        m_received.push_back(f);
        m_changed.notify_all();
        if (f.type == AgentFrameType::Start) {
            std::string error;
            const nlohmann::json start = f.json(error).value_or(nlohmann::json::object());
            switch (m_onStart) {
            case OnStart::Answer:
                m_run = m_run ? m_run + 1 : kFirstRun;
                (void)m_writer->sendJson(AgentFrameType::Started, {{"experiment", start.value("experiment", "")},
                                                                   {"config", start.value("config", nlohmann::json())},
                                                                   {"label", "fake drift run " + std::to_string(m_run)},
                                                                   {"run", m_run}});
                break;
            case OnStart::Refuse:
                (void)m_writer->sendJson(AgentFrameType::Error, agentError(m_refusalKind, m_refusalMessage));
                break;
            case OnStart::Ignore:
                break;
            }
        } else if (f.type == AgentFrameType::Stop && m_answerStop) {
            const uint64_t run = m_run;
            const nlohmann::json final = m_finalSnapshot;
            lock.unlock();
            if (!final.is_null())
                sendSnapshot(run, true, final);
            (void)m_writer->sendJson(AgentFrameType::Ended, {{"finished", false}, {"error", ""}});
        }
    }

    int m_fd = -1;
    int m_clientFd = -1;
    std::unique_ptr<AgentFrameWriter> m_writer;
    std::thread m_thread;
    std::atomic<bool> m_quit{false};
    std::atomic<bool> m_dropped{false};
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_changed;
    std::vector<AgentFrame> m_received;
    OnStart m_onStart = OnStart::Answer;
    std::string m_refusalKind;
    std::string m_refusalMessage;
    bool m_answerStop = true;
    nlohmann::json m_finalSnapshot;
    uint64_t m_run = 0;
};

/// The session a remote run is given: the client's link, open until it is lost, with a sentence of its own for the
/// loss (what the GUI's TargetConnection and the CLI's CliTarget say).
class RemoteFakeSession final : public RemoteSession {
public:
    explicit RemoteFakeSession(std::shared_ptr<AgentClient> client)
        : m_client(std::move(client))
    {}
    std::shared_ptr<AgentClient> client() const override { return m_client; }
    bool isOpen() const override { return m_client && m_client->connectionError().empty(); }
    std::string lostText() override
    {
        const std::string why = m_client ? m_client->connectionError() : std::string();
        return why.empty() ? std::string() : "the link to fake-board was lost at 12:00:00 (" + why + ")";
    }
    std::string machine() const override { return "fake-board (x86_64, 6.1.0-rt)"; }

private:
    std::shared_ptr<AgentClient> m_client;
};

/// A fake agent, a client connected to it and the session over that client.
struct RemoteFakeLink {
    RemoteFakeAgent agent;
    std::shared_ptr<AgentClient> client;
    std::unique_ptr<RemoteFakeSession> session;

    RemoteFakeLink()
    {
        const int fd = agent.takeClientFd();
        client = std::make_shared<AgentClient>(fd, fd);
        if (const Error e = client->connect(2000))
            qFatal("the fake agent's hello did not arrive: %s", e.message.c_str());
        session = std::make_unique<RemoteFakeSession>(client);
    }
};

DriftConfig remoteFakeConfig()
{
    DriftConfig c;
    c.periodNs = 2'000'000;
    c.ticks = 123;
    c.methods = {WaiterKind::Relative, WaiterKind::Absolute};
    c.cpu = 1;
    return c;
}

/// The JSON of a drift snapshot of @p config the agent sends: @p note tells them apart. Its own generation is one the
/// controller must not take.
nlohmann::json remoteFakeSnapshot(const DriftConfig& config, const std::string& note, bool running,
                                  bool finished = false)
{
    DriftSnapshot s;
    s.config = config;
    s.generation = 1000;
    s.running = running;
    s.finished = finished;
    s.slackNote = note;
    s.effectiveSlackNs = 50'000;
    return toJson(s);
}

/// Looks (as a page's refresh does) until the experiment's snapshot has @p note, at most two seconds.
template <class Experiment> std::shared_ptr<const DriftSnapshot> awaitNote(const Experiment& exp, const char* note)
{
    const int64_t deadline = nowNs() + 2'000 * kNsPerMs;
    for (;;) {
        std::shared_ptr<const DriftSnapshot> s = exp.snapshot();
        if ((s && s->slackNote == note) || nowNs() > deadline)
            return s;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

} // namespace

class TestRemoteRunContract : public QObject {
    Q_OBJECT
private slots:
    // start() sends one Start frame: the registry's name, the config as JSON (the agent reads it with the engine's
    // own reader) and the view options set before it; it takes the agent's label and the session's machine.
    void startSendsConfigAndView()
    {
        RemoteFakeLink link;
        RemoteExperiment<DriftConfig> exp(*link.session);
        exp.setViewOption("series_window_ns", 5'000'000'000);
        exp.setStartWaitMs(2000);
        QVERIFY(!exp.running());
        QVERIFY(!exp.snapshot());
        const Error e = exp.start(remoteFakeConfig(), CpuTopology{});
        QVERIFY2(!e, e.message.c_str());
        QVERIFY(exp.running());
        QVERIFY(!exp.finished());
        QVERIFY(exp.busyCpus().empty()); // nothing of this machine is loaded
        const std::vector<nlohmann::json> starts = link.agent.received(AgentFrameType::Start);
        QCOMPARE(int(starts.size()), 1);
        QCOMPARE(starts[0].value("experiment", ""), std::string("drift"));
        QVERIFY2(starts[0].at("config") == toJson(remoteFakeConfig()), starts[0].dump().c_str());
        QVERIFY2(starts[0].at("view") == (nlohmann::json{{"series_window_ns", 5'000'000'000}}),
                 starts[0].dump().c_str());
        std::vector<std::string> errors;
        const DriftConfig read = driftConfigFromJson(starts[0].at("config"), errors);
        QVERIFY(errors.empty());
        QVERIFY(toJson(read) == toJson(remoteFakeConfig()));
        QCOMPARE(exp.label(), "fake drift run " + std::to_string(RemoteFakeAgent::kFirstRun));
        QCOMPARE(exp.machine(), std::string("fake-board (x86_64, 6.1.0-rt)"));
        // A second start while running sends nothing.
        QCOMPARE(exp.start(remoteFakeConfig(), CpuTopology{}).kind, ErrorKind::InvalidConfig);
        QCOMPARE(int(link.agent.received(AgentFrameType::Start).size()), 1);
        exp.stop();
    }

    // A start the agent does not answer within setStartWaitMs(): the client's sentence, after that long and not much
    // longer; the run does not count as running; and the agent is told to stop, so a start it answers late does not
    // leave a run going that nobody controls.
    void unansweredStartGivesTheSentence()
    {
        RemoteFakeLink link;
        link.agent.onStart(RemoteFakeAgent::OnStart::Ignore);
        RemoteExperiment<DriftConfig> exp(*link.session);
        exp.setStartWaitMs(200);
        QElapsedTimer t;
        t.start();
        const Error e = exp.start(remoteFakeConfig(), CpuTopology{});
        const qint64 ms = t.elapsed();
        QCOMPARE(e.kind, ErrorKind::System);
        QCOMPARE(e.message, std::string("the agent did not answer the start within 200 ms"));
        QVERIFY2(ms >= 190 && ms < 1000, qPrintable(QString("start took %1 ms").arg(ms)));
        QCOMPARE(int(link.agent.received(AgentFrameType::Start).size()), 1);
        QVERIFY(!exp.running());
        QVERIFY(!exp.snapshot());
        QVERIFY(!exp.finished());
        QTRY_COMPARE_WITH_TIMEOUT(int(link.agent.received(AgentFrameType::Stop).size()), 1, 2000);
    }

    // A refusal: waited for, it is start()'s error with the agent's kind and sentence; not waited for (the GUI's
    // start, setStartWaitMs(0)), start() succeeds and the next look finds the run over, its snapshot the config sent
    // with the sentence as its error.
    void refusalIsTheAgentsError()
    {
        RemoteFakeLink link;
        link.agent.onStart(RemoteFakeAgent::OnStart::Refuse, "invalid-config", "cpu 7 is not online on fake-board");
        RemoteExperiment<DriftConfig> waited(*link.session);
        waited.setStartWaitMs(2000);
        const Error e = waited.start(remoteFakeConfig(), CpuTopology{});
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QCOMPARE(e.message, std::string("cpu 7 is not online on fake-board"));
        QVERIFY(!waited.running());

        // The refusal comes after start() returned (the agent is told to be silent, then refuses).
        link.agent.onStart(RemoteFakeAgent::OnStart::Ignore);
        RemoteExperiment<DriftConfig> unwaited(*link.session);
        QVERIFY(!unwaited.start(remoteFakeConfig(), CpuTopology{}));
        QVERIFY(unwaited.running());
        QVERIFY(link.agent.waitReceived(AgentFrameType::Start, 2, 2000));
        QVERIFY(!unwaited.finished());
        QVERIFY(!unwaited.snapshot());
        link.agent.sendError("invalid-config", "cpu 7 is not online on fake-board");
        QTRY_VERIFY_WITH_TIMEOUT(unwaited.finished(), 2000);
        const auto s = unwaited.snapshot();
        QVERIFY(s);
        QCOMPARE(s->error, std::string("cpu 7 is not online on fake-board"));
        QVERIFY(!s->running);
        QVERIFY(s->finished);
        QVERIFY(toJson(s->config) == toJson(remoteFakeConfig()));
        unwaited.stop();
        QCOMPARE(int(link.agent.received(AgentFrameType::Stop).size()), 0); // nothing runs there to stop
    }

    // Each snapshot message of the run is decoded once into a DriftSnapshot: its figures as sent, its generation the
    // experiment's own (one more per message, whatever the agent's says), running and finished as the agent says;
    // a look with nothing new gives the same snapshot. A late message of an earlier run does not replace this
    // run's. The numbering goes on across runs, as a local experiment's.
    void snapshotsDecodedWithGeneration()
    {
        RemoteFakeLink link;
        RemoteExperiment<DriftConfig> exp(*link.session);
        exp.setStartWaitMs(2000);
        const DriftConfig c = remoteFakeConfig();
        QVERIFY(!exp.start(c, CpuTopology{}));
        const uint64_t run = link.agent.run();
        link.agent.sendSnapshot(run, false, remoteFakeSnapshot(c, "first", true));
        const auto first = awaitNote(exp, "first");
        QVERIFY(first);
        QCOMPARE(first->slackNote, std::string("first"));
        QCOMPARE(first->generation, uint64_t(1));
        QVERIFY(first->running);
        QVERIFY(!first->finished);
        QCOMPARE(first->effectiveSlackNs, int64_t(50'000));
        QVERIFY(toJson(first->config) == toJson(c));
        QCOMPARE(exp.snapshot(), first); // nothing new: the same one
        QCOMPARE(exp.snapshot(), first);

        link.agent.sendSnapshot(run, false, remoteFakeSnapshot(c, "second", true));
        const auto second = awaitNote(exp, "second");
        QCOMPARE(second->generation, uint64_t(2));
        link.agent.sendSnapshot(run - 1, true, remoteFakeSnapshot(c, "an earlier run's", false));
        QTRY_VERIFY_WITH_TIMEOUT(link.client->snapshotOfRun(run - 1), 2000); // it arrived
        QCOMPARE(exp.snapshot()->slackNote, std::string("second"));
        QVERIFY(!exp.finished());
        // Another run's late message is not news of this run: the same snapshot, not decoded again.
        QCOMPARE(exp.snapshot()->generation, second->generation);

        // The run's final message: it is over (finished() for the page), its last figures shown.
        link.agent.sendSnapshot(run, true, remoteFakeSnapshot(c, "final", false, true));
        const auto final = awaitNote(exp, "final");
        QVERIFY(final->finished);
        QVERIFY(!final->running);
        QVERIFY(final->generation > second->generation);
        QVERIFY(exp.finished());
        exp.stop();
        QCOMPARE(int(link.agent.received(AgentFrameType::Stop).size()), 0); // it had ended: nothing to stop

        // A new run: new numbers from the agent, the generation goes on.
        QVERIFY(!exp.start(c, CpuTopology{}));
        QVERIFY(!exp.snapshot()); // nothing of the last run is shown as this one's
        QCOMPARE(link.agent.run(), run + 1);
        link.agent.sendSnapshot(run + 1, false, remoteFakeSnapshot(c, "next run", true));
        const auto next = awaitNote(exp, "next run");
        QVERIFY(next->generation > final->generation);
        exp.stop();
    }

    // stop() sends Stop and returns as soon as the run's end arrives, with the final snapshot shown; an agent that
    // does not answer holds it for setStopWaitMs() and not much longer.
    void stopWithinStopWait()
    {
        RemoteFakeLink link;
        const DriftConfig c = remoteFakeConfig();
        link.agent.answerStop(true, remoteFakeSnapshot(c, "final", false));
        RemoteExperiment<DriftConfig> exp(*link.session);
        exp.setStartWaitMs(2000);
        exp.setStopWaitMs(3000);
        QVERIFY(!exp.start(c, CpuTopology{}));
        link.agent.sendSnapshot(link.agent.run(), false, remoteFakeSnapshot(c, "running", true));
        QVERIFY(awaitNote(exp, "running"));
        QElapsedTimer t;
        t.start();
        exp.stop();
        const qint64 answered = t.elapsed();
        QVERIFY2(answered < 1000, qPrintable(QString("stop took %1 ms with an agent that answers").arg(answered)));
        QCOMPARE(int(link.agent.received(AgentFrameType::Stop).size()), 1);
        QVERIFY(!exp.running());
        QVERIFY(exp.finished());
        QCOMPARE(exp.snapshot()->slackNote, std::string("final"));
        QVERIFY(!exp.snapshot()->running);
        exp.stop(); // idempotent
        QCOMPARE(int(link.agent.received(AgentFrameType::Stop).size()), 1);

        link.agent.answerStop(false);
        exp.setStopWaitMs(150);
        QVERIFY(!exp.start(c, CpuTopology{}));
        link.agent.sendSnapshot(link.agent.run(), false, remoteFakeSnapshot(c, "running again", true));
        QVERIFY(awaitNote(exp, "running again"));
        t.restart();
        exp.stop();
        const qint64 silent = t.elapsed();
        QVERIFY2(silent >= 140 && silent < 1000, qPrintable(QString("stop took %1 ms (wait 150 ms)").arg(silent)));
        QVERIFY(link.agent.waitReceived(AgentFrameType::Stop, 2, 1000));
        QVERIFY(!exp.running());
    }

    // A run stopped before its first snapshot arrived: the agent's final snapshot comes with its end, within the
    // stop's wait, and is what the run shows afterwards (a local experiment publishes its final snapshot at every
    // stop).
    void stopBeforeFirstSnapshotShowsTheFinal()
    {
        RemoteFakeLink link;
        const DriftConfig c = remoteFakeConfig();
        link.agent.answerStop(true, remoteFakeSnapshot(c, "final", false));
        RemoteExperiment<DriftConfig> exp(*link.session);
        exp.setStartWaitMs(2000);
        exp.setStopWaitMs(2000);
        QVERIFY(!exp.start(c, CpuTopology{}));
        exp.stop();
        QVERIFY(link.client->snapshotOfRun(link.agent.run())); // the final message did arrive within the stop
        // A run stopped before its first snapshot still shows its final one (as a local host publishes at its stop).
        QVERIFY(exp.snapshot());
    }

    // The link is lost while the run is on: the next look ends the run with the last snapshot received, its error
    // the session's lostText() (and that the snapshot is kept); stop() then sends nothing and returns at once, and a
    // new start says the session is lost.
    void lostSessionSurfacesLostText()
    {
        RemoteFakeLink link;
        const DriftConfig c = remoteFakeConfig();
        RemoteExperiment<DriftConfig> exp(*link.session);
        exp.setStartWaitMs(2000);
        exp.setStopWaitMs(2000);
        QVERIFY(!exp.start(c, CpuTopology{}));
        link.agent.sendSnapshot(link.agent.run(), false, remoteFakeSnapshot(c, "before the loss", true));
        const auto before = awaitNote(exp, "before the loss");
        QVERIFY(before);
        QVERIFY(!exp.finished());
        link.agent.drop();
        QTRY_VERIFY_WITH_TIMEOUT(exp.finished(), 2000);
        const std::string lost = link.session->lostText();
        QCOMPARE(lost, std::string("the link to fake-board was lost at 12:00:00 (the agent closed the connection)"));
        const auto s = exp.snapshot();
        QCOMPARE(s->error, lost + "; the last snapshot received is kept");
        QCOMPARE(s->slackNote, std::string("before the loss"));
        QVERIFY(!s->running);
        QVERIFY(s->finished);
        QVERIFY(s->generation > before->generation);
        QCOMPARE(exp.snapshot(), s); // shown once: the next look has nothing new

        QElapsedTimer t;
        t.start();
        exp.stop();
        QVERIFY2(t.elapsed() < 500, qPrintable(QString("stop took %1 ms on a lost link").arg(t.elapsed())));
        QVERIFY(!exp.running());
        const Error again = exp.start(c, CpuTopology{});
        QCOMPARE(again.kind, ErrorKind::System);
        QCOMPARE(again.message, lost + "; Reconnect first");
    }

    // A snapshot that does not read (a field of the wrong type from a peer) ends the run with a sentence that says
    // so, once.
    void unreadableSnapshotEndsTheRun()
    {
        RemoteFakeLink link;
        const DriftConfig c = remoteFakeConfig();
        RemoteExperiment<DriftConfig> exp(*link.session);
        exp.setStartWaitMs(2000);
        QVERIFY(!exp.start(c, CpuTopology{}));
        link.agent.sendSnapshot(link.agent.run(), false, remoteFakeSnapshot(c, "readable", true));
        const auto readable = awaitNote(exp, "readable");
        QVERIFY(readable);
        nlohmann::json bad = remoteFakeSnapshot(c, "unreadable", true);
        bad["slack_note"] = 5;
        link.agent.sendSnapshot(link.agent.run(), false, bad);
        QTRY_VERIFY_WITH_TIMEOUT(!exp.snapshot()->error.empty(), 2000);
        const auto s = exp.snapshot();
        QVERIFY2(s->error.rfind("the target's snapshot could not be read: ", 0) == 0, s->error.c_str());
        QVERIFY2(s->error.find("slack_note") != std::string::npos, s->error.c_str());
        QCOMPARE(s->slackNote, std::string("readable")); // the last one that read
        QVERIFY(s->finished);
        QVERIFY(!s->running);
        // A snapshot that did not read ends the run: finished(), so a page stops it (and the target with it).
        QVERIFY(exp.finished());
        exp.stop();
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestRemoteRunContract)
#include "tst_remote_run_contract.moc"
