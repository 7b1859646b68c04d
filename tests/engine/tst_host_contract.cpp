// The experiment host's contract (engine/experiments/experiment_host.h), pinned with a fake run instead of a real
// experiment, so that an experiment's author can read here what the generic code guarantees a run and its caller:
// the order of the calls the header documents (constructor and start() on the caller's thread, drain() and
// makeSnapshot(true) on the collector thread while it runs, then stop(), a last drain() and makeSnapshot(false) and
// ended()), a failed or interrupted start() stopped and discarded, a refused config that makes no run at all, the
// topology handed to the run as given, the generation numbering across runs, the final snapshot holding every item
// made before the stop, stop() within kJoinBudgetMs while the run's threads spin, busy CPUs only while running, and a
// restart with a fresh run object. Every run here is SCHED_OTHER and unprivileged.
#include "engine/experiments/experiment_host.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/clock.h"
#include "engine/util/error.h"
#include "engine/util/helper_thread.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include "tests/common/thread_census.h"

#include <QElapsedTimer>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sched.h>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace rtscope;

namespace {

/// The name of the fake run's worker threads (at most 15 characters): the thread census counts them.
constexpr const char* kHostFakeWorkerName = "rtscope-hostfk";

/// One call of the host into a fake run.
enum class HostCall { Construct, Start, Drain, Snapshot, Stop, Ended, Destroy };

const char* hostCallName(HostCall c)
{
    static constexpr const char* kNames[] = {"construct", "start", "drain", "makeSnapshot", "stop", "ended", "destroy"};
    static_assert(std::size(kNames) == size_t(HostCall::Destroy) + 1, "a name for every HostCall, in its order");
    return kNames[size_t(c)];
}

struct HostCallRecord {
    HostCall call = HostCall::Construct;
    int run = 0;            ///< which run object (1, 2, … in the order they were made)
    bool running = false;   ///< makeSnapshot()'s argument
    bool onControl = false; ///< on the test's thread (the one that calls start() and stop())
    int cpu = -1;           ///< sched_getcpu() at the call
    int64_t atNs = 0;       ///< when the call began (stop(): when it returned)
    int64_t stoppedNs = 0;  ///< ended()'s argument
};

/// What a run was given and what it did, kept after it is destroyed.
struct HostRunFacts {
    std::vector<int> allowed; ///< RunEnvironment::topology.allowed
    bool hasInterrupt = false;
    MemoryLockMode memoryLock = MemoryLockMode::All;
    uint64_t produced = 0; ///< items its workers made (at its destruction)
    uint64_t consumed = 0; ///< items its drain() moved (at its destruction)
};

/// Every call of the host into any fake run, in order, from every thread.
class HostCallLog {
public:
    void reset()
    {
        std::lock_guard lock(m_mutex);
        m_calls.clear();
        m_facts.clear();
        m_control = std::this_thread::get_id();
    }
    void add(HostCallRecord r)
    {
        {
            std::lock_guard lock(m_mutex);
            r.onControl = std::this_thread::get_id() == m_control;
            m_calls.push_back(r);
        }
        m_changed.notify_all();
    }
    std::vector<HostCallRecord> calls() const
    {
        std::lock_guard lock(m_mutex);
        return m_calls;
    }
    std::vector<HostCallRecord> callsOf(int run) const
    {
        std::vector<HostCallRecord> out;
        for (const HostCallRecord& r : calls())
            if (r.run == run)
                out.push_back(r);
        return out;
    }
    int count(HostCall call, int run) const
    {
        int n = 0;
        for (const HostCallRecord& r : callsOf(run))
            n += r.call == call;
        return n;
    }
    void setFacts(int run, const HostRunFacts& facts)
    {
        std::lock_guard lock(m_mutex);
        m_facts[run] = facts;
    }
    HostRunFacts facts(int run) const
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_facts.find(run);
        return it == m_facts.end() ? HostRunFacts{} : it->second;
    }
    /// Waits until @p pred(calls) holds, at most @p timeoutMs; returns whether it does.
    bool waitFor(const std::function<bool(const std::vector<HostCallRecord>&)>& pred, int timeoutMs) const
    {
        std::unique_lock lock(m_mutex);
        return m_changed.wait_for(lock, std::chrono::milliseconds(timeoutMs), [&] { return pred(m_calls); });
    }

private:
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_changed;
    std::vector<HostCallRecord> m_calls;
    std::map<int, HostRunFacts> m_facts;
    std::thread::id m_control;
};

HostCallLog& hostCallLog()
{
    static HostCallLog log;
    return log;
}

/// Runs made so far: the next run's number.
std::atomic<int>& hostRunsMade()
{
    static std::atomic<int> made{0};
    return made;
}

struct HostFakeConfig {
    std::vector<int> cpus;             ///< one spinning worker per CPU: the run's busy CPUs
    std::vector<std::string> problems; ///< validate() returns these (and a sentence for a CPU not in the topology)
    bool refuseStart = false;          ///< start() launches its workers, then fails with Permission
    bool askInterrupt = false;         ///< start() asks RunEnvironment::checkInterrupted() after its workers
    uint64_t finishAfter = 0;          ///< finished() once this many items were drained (0: never)
    /// finished(), asked by the host right after the run's stop() returned, first waits (at most a second) until the
    /// collector thread has called makeSnapshot(true) since that stop: what the gap test needs.
    bool holdAfterStop = false;
    int collectorCpu = -1;
    int tag = 0; ///< tells configs apart in config()

    std::vector<std::string> validate(const CpuTopology& topology) const
    {
        std::vector<std::string> out = problems;
        (void)checkCpuList(out, "cpus", cpus, topology);
        return out;
    }
};

struct HostFakeSnapshot {
    uint64_t generation = 0;
    int run = 0;
    bool running = false;
    uint64_t drained = 0; ///< items moved by the run's drain() when it was made
    uint64_t call = 0;    ///< the run's makeSnapshot() call that made it (1, 2, …)
};

/// A run that records every call and spins one SCHED_OTHER worker per configured CPU: each worker counts items as
/// fast as it can and looks only at its stop flag, as a measuring loop does.
class HostFakeRun {
public:
    using Config = HostFakeConfig;
    using Snapshot = HostFakeSnapshot;
    static constexpr std::string_view kName = "fake";

    HostFakeRun(const Config& config, const RunEnvironment& env)
        : m_config(config)
        , m_env(env)
        , m_id(++hostRunsMade())
    {
        record(HostCall::Construct);
    }
    ~HostFakeRun()
    {
        joinWorkers(); // a run the host forgot to stop would leave spinners behind: the census would see them
        HostRunFacts facts;
        facts.allowed = m_env.topology.allowed;
        facts.hasInterrupt = bool(m_env.interrupted);
        facts.memoryLock = m_env.memoryLock.mode;
        facts.produced = m_produced.load();
        facts.consumed = m_consumed.load();
        hostCallLog().setFacts(m_id, facts);
        record(HostCall::Destroy);
    }
    HostFakeRun(const HostFakeRun&) = delete;
    HostFakeRun& operator=(const HostFakeRun&) = delete;

    Error start()
    {
        record(HostCall::Start);
        for (int cpu : m_config.cpus) {
            m_workers.emplace_back([this] {
                while (!m_stopFlag.load(std::memory_order_relaxed))
                    m_produced.fetch_add(1, std::memory_order_relaxed);
            });
            nameAndPlaceHelper(m_workers.back(), kHostFakeWorkerName, cpu);
        }
        if (m_config.askInterrupt)
            if (Error e = m_env.checkInterrupted("starting the fake workers"))
                return e;
        if (m_config.refuseStart)
            return {ErrorKind::Permission, "the fake run refuses to start"};
        return {};
    }
    void stop()
    {
        joinWorkers();
        m_stopped.store(true);
        HostCallRecord r = make(HostCall::Stop);
        r.atNs = nowNs(); // when it returned: ended()'s stoppedNs is no earlier
        hostCallLog().add(r);
    }
    size_t drain()
    {
        record(HostCall::Drain);
        const uint64_t produced = m_produced.load(std::memory_order_relaxed);
        const uint64_t moved = produced - m_consumed.load(std::memory_order_relaxed);
        m_consumed.store(produced, std::memory_order_relaxed);
        return size_t(moved);
    }
    std::shared_ptr<Snapshot> makeSnapshot(bool running)
    {
        HostCallRecord r = make(HostCall::Snapshot);
        r.running = running;
        hostCallLog().add(r);
        auto s = std::make_shared<Snapshot>();
        s->run = m_id;
        s->running = running;
        s->drained = m_consumed.load(std::memory_order_relaxed);
        s->call = ++m_snapshots;
        return s;
    }
    bool finished() const
    {
        if (m_config.holdAfterStop && m_stopped.load() && !m_held.exchange(true)) {
            const int id = m_id;
            (void)hostCallLog().waitFor(
                [id](const std::vector<HostCallRecord>& calls) {
                    bool afterStop = false;
                    for (const HostCallRecord& r : calls) {
                        if (r.run != id)
                            continue;
                        if (r.call == HostCall::Stop)
                            afterStop = true;
                        else if (afterStop && r.call == HostCall::Snapshot && r.running && !r.onControl)
                            return true;
                    }
                    return false;
                },
                1000);
        }
        return m_config.finishAfter > 0 && m_consumed.load() >= m_config.finishAfter;
    }
    std::vector<int> busyCpus() const { return m_config.cpus; }
    const Config& config() const { return m_config; }
    int collectorCpu() const { return m_config.collectorCpu; }
    /// Drains every millisecond and publishes every two: the tests see several snapshots quickly.
    CollectorPace pace() const { return {1'000'000, 2'000'000}; }
    void ended(int64_t stoppedNs)
    {
        HostCallRecord r = make(HostCall::Ended);
        r.stoppedNs = stoppedNs;
        hostCallLog().add(r);
    }

    int id() const { return m_id; }

private:
    HostCallRecord make(HostCall call) const
    {
        HostCallRecord r;
        r.call = call;
        r.run = m_id;
        r.cpu = sched_getcpu();
        r.atNs = nowNs();
        return r;
    }
    void record(HostCall call) const { hostCallLog().add(make(call)); }
    void joinWorkers()
    {
        m_stopFlag.store(true);
        for (std::thread& t : m_workers)
            if (t.joinable())
                t.join();
    }

    Config m_config;
    RunEnvironment m_env;
    const int m_id;
    std::vector<std::thread> m_workers;
    std::atomic<bool> m_stopFlag{false};
    std::atomic<bool> m_stopped{false};
    mutable std::atomic<bool> m_held{false};
    std::atomic<uint64_t> m_produced{0};
    std::atomic<uint64_t> m_consumed{0};
    uint64_t m_snapshots = 0; ///< the collector's (or, after the stop, the control thread's)
};

/// The same run, with its first snapshot published by start() (PublishedAtStartRun).
class HostFakeEagerRun : public HostFakeRun {
public:
    static constexpr bool kPublishAtStart = true;
    using HostFakeRun::HostFakeRun;
};

static_assert(ExperimentRun<HostFakeRun> && PacedRun<HostFakeRun> && EndingRun<HostFakeRun>);
static_assert(!PublishedAtStartRun<HostFakeRun> && PublishedAtStartRun<HostFakeEagerRun>);

using HostFakeExperiment = ExperimentHost<HostFakeRun>;

/// A config of one worker on the last CPU this process may use.
HostFakeConfig oneHostFakeWorker(int tag = 0)
{
    HostFakeConfig c;
    c.cpus = {test::usableCpus().back()};
    c.tag = tag;
    return c;
}

/// Waits until the host has published a snapshot of run @p run made while it ran, with at least @p drained items.
template <class Host> bool waitForRunningSnapshot(const Host& host, int run, uint64_t drained = 1)
{
    const int64_t deadline = nowNs() + 5'000 * kNsPerMs;
    while (nowNs() < deadline) {
        if (const auto s = host.snapshot(); s && s->run == run && s->running && s->drained >= drained)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

QString describeHostCalls(const std::vector<HostCallRecord>& calls)
{
    QStringList out;
    for (const HostCallRecord& r : calls)
        out << QString("%1%2%3")
                   .arg(hostCallName(r.call))
                   .arg(r.call == HostCall::Snapshot ? (r.running ? "(true)" : "(false)") : "")
                   .arg(r.onControl ? "" : "@collector");
    // The collector's many drains while it runs would hide the rest: repeats of the same call are folded.
    QStringList folded;
    QString previous;
    for (const QString& s : out) {
        if (s != previous)
            folded << s;
        else if (!folded.back().endsWith(" …"))
            folded.back() += " …";
        previous = s;
    }
    return folded.join(", ");
}

int indexOf(const std::vector<HostCallRecord>& calls, HostCall call, size_t from = 0)
{
    for (size_t i = from; i < calls.size(); ++i)
        if (calls[i].call == call)
            return int(i);
    return -1;
}

} // namespace

class TestHostContract : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        hostCallLog().reset();
        QCOMPARE(test::threadsAlive(kHostFakeWorkerName, true), 0);
    }
    void cleanup() { QTRY_COMPARE(test::threadsAlive(kHostFakeWorkerName, true), 0); }

    // The order the header documents: the constructor (no thread yet) and start() on the caller's thread; drain()
    // and makeSnapshot(true) on the collector thread (on the run's collectorCpu()) while it runs; then stop(), a
    // last drain() and exactly one makeSnapshot(false) after it, then ended(stoppedNs), then the run is destroyed.
    void callOrderOfOneRun()
    {
        const int runBefore = hostRunsMade().load();
        HostFakeConfig c = oneHostFakeWorker();
        c.collectorCpu = test::usableCpus().front();
        {
            HostFakeExperiment host;
            const Error e = host.start(c, CpuTopology::current());
            QVERIFY2(!e, e.message.c_str());
            const int64_t startedNs = nowNs(); // the collector is pinned by now
            const int run = runBefore + 1;
            QCOMPARE(hostRunsMade().load(), run);
            QVERIFY(waitForRunningSnapshot(host, run));
            QVERIFY(hostCallLog().waitFor(
                [run](const std::vector<HostCallRecord>& calls) {
                    return std::count_if(calls.begin(), calls.end(), [run](const HostCallRecord& r) {
                               return r.run == run && r.call == HostCall::Snapshot;
                           }) >= 3;
                },
                5000));
            // A second start while one runs makes no run.
            const Error again = host.start(c, CpuTopology::current());
            QCOMPARE(again.kind, ErrorKind::InvalidConfig);
            QCOMPARE(again.message, std::string("the fake experiment is already running"));
            QCOMPARE(hostRunsMade().load(), run);
            host.stop();

            const std::vector<HostCallRecord> calls = hostCallLog().callsOf(run);
            const QString seen = describeHostCalls(calls);
            QVERIFY2(calls.size() >= 8, qPrintable(seen));
            QCOMPARE(calls[0].call, HostCall::Construct);
            QVERIFY(calls[0].onControl);
            QCOMPARE(calls[1].call, HostCall::Start);
            QVERIFY(calls[1].onControl);
            QCOMPARE(hostCallLog().count(HostCall::Construct, run), 1);
            QCOMPARE(hostCallLog().count(HostCall::Start, run), 1);
            QCOMPARE(hostCallLog().count(HostCall::Stop, run), 1);
            QCOMPARE(hostCallLog().count(HostCall::Ended, run), 1);
            QCOMPARE(hostCallLog().count(HostCall::Destroy, run), 1);

            const int stop = indexOf(calls, HostCall::Stop);
            QVERIFY2(stop > 1, qPrintable(seen));
            // While it runs: only the collector's drains and running snapshots, on its thread and CPU.
            int whileRunning = 0;
            for (int i = 2; i < stop; ++i) {
                const HostCallRecord& r = calls[size_t(i)];
                QVERIFY2(r.call == HostCall::Drain || (r.call == HostCall::Snapshot && r.running), qPrintable(seen));
                QVERIFY2(!r.onControl, qPrintable(seen));
                if (r.atNs > startedNs)
                    QCOMPARE(r.cpu, c.collectorCpu);
                whileRunning += r.call == HostCall::Snapshot;
            }
            QVERIFY2(whileRunning >= 3, qPrintable(seen));
            // After stop(): a drain and the one makeSnapshot(false) on the caller's thread, then ended(), then the end.
            int finalSnapshot = -1;
            for (size_t i = 0; i < calls.size(); ++i)
                if (calls[i].call == HostCall::Snapshot && !calls[i].running) {
                    QCOMPARE(finalSnapshot, -1); // only one
                    finalSnapshot = int(i);
                }
            QVERIFY2(finalSnapshot > stop, qPrintable(seen));
            const int lastDrain = [&] {
                int at = -1;
                for (int i = stop + 1; i < finalSnapshot; ++i)
                    if (calls[size_t(i)].call == HostCall::Drain && calls[size_t(i)].onControl)
                        at = i;
                return at;
            }();
            QVERIFY2(lastDrain > stop, qPrintable(seen));
            QVERIFY(calls[size_t(finalSnapshot)].onControl);
            const int ended = indexOf(calls, HostCall::Ended);
            QCOMPARE(ended, finalSnapshot + 1);
            QVERIFY(calls[size_t(ended)].onControl);
            QCOMPARE(calls.back().call, HostCall::Destroy);
            QCOMPARE(int(calls.size()), ended + 2);
            // ended() is told when the run stopped: after its stop() returned, before ended() itself.
            QVERIFY(calls[size_t(ended)].stoppedNs >= calls[size_t(stop)].atNs);
            QVERIFY(calls[size_t(ended)].stoppedNs <= calls[size_t(ended)].atNs);
            // The run was destroyed by stop(), not by the host's destructor.
            QCOMPARE(test::threadsAlive(kHostFakeWorkerName, true), 0);
            QVERIFY(!host.running());
        }
    }

    // The snapshot that stays after stop() is the final one: made by makeSnapshot(false) after the run's threads
    // were joined, so it holds every item the workers made, and no later call changes it.
    void finalSnapshotAfterStop()
    {
        HostFakeExperiment host;
        QVERIFY(!host.snapshot());
        QVERIFY(!host.start(oneHostFakeWorker(), CpuTopology::current()));
        const int run = hostRunsMade().load();
        QVERIFY(waitForRunningSnapshot(host, run, 1000));
        QVERIFY(host.running());
        host.stop();
        QVERIFY(!host.running());
        const auto s = host.snapshot();
        QVERIFY(s);
        QCOMPARE(s->run, run);
        QVERIFY(!s->running);
        QCOMPARE(s->call, uint64_t(hostCallLog().count(HostCall::Snapshot, run))); // the last one made
        const HostRunFacts facts = hostCallLog().facts(run);
        QVERIFY(facts.produced > 0);
        QCOMPARE(facts.consumed, facts.produced); // nothing made before the stop is missing
        QCOMPARE(s->drained, facts.produced);
        // It stays: nothing publishes for a stopped host.
        const size_t callsAtStop = hostCallLog().calls().size();
        host.publishNow();
        host.stop();
        QCOMPARE(host.snapshot(), s);
        QCOMPARE(hostCallLog().calls().size(), callsAtStop);
    }

    // The documented order puts stop() before the last drain() and makeSnapshot(false), and the collector is done with
    // the run before stop() is called: the host holds the run's feed first (Collector::hold, which waits for a pass in
    // progress), so no drain() runs concurrently with stop() and no running snapshot follows it. (The gap is widened
    // here on purpose: finished(), which the host asks after stop(), waits up to 1 s for a collector snapshot; before
    // the fix one came.)
    void collectorNoLongerCallsTheRunAfterItsStop()
    {
        HostFakeExperiment host;
        HostFakeConfig c = oneHostFakeWorker();
        c.holdAfterStop = true;
        QVERIFY(!host.start(c, CpuTopology::current()));
        const int run = hostRunsMade().load();
        QVERIFY(waitForRunningSnapshot(host, run));
        host.stop();
        const std::vector<HostCallRecord> calls = hostCallLog().callsOf(run);
        const int stop = indexOf(calls, HostCall::Stop);
        QVERIFY(stop > 0);
        const bool collectorAfterStop = std::any_of(calls.begin() + stop, calls.end(), [](const HostCallRecord& r) {
            return !r.onControl && (r.call == HostCall::Drain || r.call == HostCall::Snapshot);
        });
        QVERIFY2(!collectorAfterStop, qPrintable(describeHostCalls(calls)));
        // What does hold: the last snapshot made is the final one.
        QVERIFY(!host.snapshot()->running);
        QCOMPARE(host.snapshot()->call, uint64_t(hostCallLog().count(HostCall::Snapshot, run)));
    }

    // A start() that fails: the host stops the partly started run (its threads joined before start() returns),
    // destroys it, publishes nothing and returns the run's error as it was; the next start works.
    void failedStartIsStoppedAndDiscarded()
    {
        HostFakeExperiment host;
        HostFakeConfig c = oneHostFakeWorker();
        c.refuseStart = true;
        const Error e = host.start(c, CpuTopology::current());
        QCOMPARE(e.kind, ErrorKind::Permission);
        QCOMPARE(e.message, std::string("the fake run refuses to start"));
        const int run = hostRunsMade().load();
        QCOMPARE(test::threadsAlive(kHostFakeWorkerName, true), 0);
        const std::vector<HostCallRecord> calls = hostCallLog().callsOf(run);
        QCOMPARE(describeHostCalls(calls), QString("construct, start, stop, destroy"));
        QVERIFY(!host.running());
        QVERIFY(!host.finished());
        QVERIFY(host.busyCpus().empty());
        QVERIFY(!host.snapshot());
        QCOMPARE(test::threadsAlive("rtscope-collect", true), 0); // no collector was started for it

        // Discarded: the next start is not refused as "already running", and runs a new object.
        const Error next = host.start(oneHostFakeWorker(), CpuTopology::current());
        QVERIFY2(!next, next.message.c_str());
        QCOMPARE(hostRunsMade().load(), run + 1);
        QVERIFY(waitForRunningSnapshot(host, run + 1));
        host.stop();
        // The failed run published nothing: every generation is the new run's.
        QCOMPARE(host.snapshot()->generation, uint64_t(hostCallLog().count(HostCall::Snapshot, run + 1)));
    }

    // A config that validate() refuses makes no run at all: every sentence, one per line, in an InvalidConfig error.
    void invalidConfigStartsNothing()
    {
        HostFakeExperiment host;
        const int runsBefore = hostRunsMade().load();
        HostFakeConfig c = oneHostFakeWorker();
        c.problems = {"period must be at least 1 µs", "ticks must be 1..1000000"};
        const Error e = host.start(c, CpuTopology::current());
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QCOMPARE(e.message, std::string("period must be at least 1 µs\nticks must be 1..1000000"));
        QCOMPARE(hostRunsMade().load(), runsBefore);
        QVERIFY(hostCallLog().calls().empty());
        QVERIFY(!host.running());
        QVERIFY(host.busyCpus().empty());
        QVERIFY(!host.snapshot());
        QCOMPARE(test::threadsAlive("rtscope-collect", true), 0);
    }

    // The topology is an argument: the config is validated against the one given, not the machine's, and the run
    // receives that same topology in its RunEnvironment (and no memory lock nor interrupt it was not asked for).
    void topologyIsTheCallersAndReachesTheRun()
    {
        const int cpu = test::usableCpus().front();
        const CpuTopology narrowed = CpuTopology::forAllowed({cpu});
        QCOMPARE(narrowed.allowed, std::vector<int>{cpu});
        HostFakeExperiment host;
        HostFakeConfig outside;
        outside.cpus = {cpu + 1}; // not in the narrowed topology, whether or not the machine has it
        const Error e = host.start(outside, narrowed);
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QVERIFY2(QString::fromStdString(e.message).contains("cpus"), e.message.c_str());
        QVERIFY(hostCallLog().calls().empty());

        HostFakeConfig inside;
        inside.cpus = {cpu};
        QVERIFY(!host.start(inside, narrowed));
        const int run = hostRunsMade().load();
        host.stop();
        const HostRunFacts facts = hostCallLog().facts(run);
        QCOMPARE(facts.allowed, std::vector<int>{cpu});
        QVERIFY(!facts.hasInterrupt);
        QCOMPARE(facts.memoryLock, MemoryLockMode::None);
    }

    // Every published snapshot gets the next generation, across runs: a view that compares generations sees each
    // new snapshot, and never takes a new run's first snapshot for one it drew already. A failed start publishes
    // nothing.
    void generationIncreasesAcrossRuns()
    {
        HostFakeExperiment host;
        QVERIFY(!host.start(oneHostFakeWorker(), CpuTopology::current()));
        const int first = hostRunsMade().load();
        uint64_t last = 0;
        int seen = 0;
        const int64_t deadline = nowNs() + 5'000 * kNsPerMs;
        while (seen < 3 && nowNs() < deadline) {
            if (const auto s = host.snapshot(); s && s->generation != last) {
                QVERIFY2(s->generation > last, qPrintable(QString("%1 after %2").arg(s->generation).arg(last)));
                last = s->generation;
                ++seen;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        QCOMPARE(seen, 3);
        host.stop();
        const uint64_t firstFinal = host.snapshot()->generation;
        QVERIFY(firstFinal > last);
        // One generation per makeSnapshot(), from 1.
        QCOMPARE(firstFinal, uint64_t(hostCallLog().count(HostCall::Snapshot, first)));

        HostFakeConfig refused = oneHostFakeWorker();
        refused.refuseStart = true;
        QVERIFY(host.start(refused, CpuTopology::current()));
        QCOMPARE(host.snapshot()->generation, firstFinal);

        QVERIFY(!host.start(oneHostFakeWorker(), CpuTopology::current()));
        const int second = hostRunsMade().load();
        QVERIFY(waitForRunningSnapshot(host, second));
        QVERIFY(host.snapshot()->generation > firstFinal);
        host.stop();
        QCOMPARE(host.snapshot()->generation, uint64_t(hostCallLog().count(HostCall::Snapshot, first) +
                                                       hostCallLog().count(HostCall::Snapshot, second)));
    }

    // stop() returns within kJoinBudgetMs while a worker spins on every CPU this process may use (the run's
    // threads are busy, not waiting): the run's stop(), the collector's last pass and ended() included.
    void stopWithinJoinBudgetWhileBusy()
    {
        HostFakeExperiment host;
        HostFakeConfig c;
        c.cpus = test::usableCpus();
        QVERIFY(!host.start(c, CpuTopology::current()));
        QCOMPARE(test::threadsAlive(kHostFakeWorkerName, true), int(c.cpus.size()));
        const int run = hostRunsMade().load();
        QVERIFY(waitForRunningSnapshot(host, run, 1000));
        QElapsedTimer t;
        t.start();
        host.stop();
        const qint64 ms = t.elapsed();
        QVERIFY2(ms < kJoinBudgetMs, qPrintable(QString("stop took %1 ms").arg(ms)));
        QCOMPARE(test::threadsAlive(kHostFakeWorkerName, true), 0);
        QCOMPARE(test::threadsAlive("rtscope-collect", true), 0);
        QCOMPARE(hostCallLog().count(HostCall::Destroy, run), 1);
    }

    // busyCpus() names the run's CPUs while it runs and nothing before or after (nor after a failed start).
    void busyCpusOnlyWhileRunning()
    {
        HostFakeExperiment host;
        QVERIFY(host.busyCpus().empty());
        HostFakeConfig c;
        c.cpus = test::usableCpus();
        QVERIFY(!host.start(c, CpuTopology::current()));
        QCOMPARE(host.busyCpus(), c.cpus);
        host.stop();
        QVERIFY(host.busyCpus().empty());
        c.refuseStart = true;
        QVERIFY(host.start(c, CpuTopology::current()));
        QVERIFY(host.busyCpus().empty());
    }

    // setStartInterrupt(): the run's start() sees the callback in its RunEnvironment and, when it answers true, the
    // start ends with ErrorKind::Interrupted (its sentence names the step); the host stops and discards the run.
    // The callback is asked on the thread that called start(), and is kept for the next starts.
    void startInterruptGivesInterrupted()
    {
        HostFakeExperiment host;
        std::atomic<int> asked{0};
        std::atomic<bool> stopRequested{true};
        std::thread::id askedOn;
        host.setStartInterrupt([&] {
            ++asked;
            askedOn = std::this_thread::get_id();
            return stopRequested.load();
        });
        HostFakeConfig c = oneHostFakeWorker();
        c.askInterrupt = true;
        const Error e = host.start(c, CpuTopology::current());
        QCOMPARE(e.kind, ErrorKind::Interrupted);
        QCOMPARE(e.message, std::string("A stop was requested while starting the fake workers."));
        QCOMPARE(asked.load(), 1);
        QVERIFY(askedOn == std::this_thread::get_id());
        const int run = hostRunsMade().load();
        QCOMPARE(describeHostCalls(hostCallLog().callsOf(run)), QString("construct, start, stop, destroy"));
        QVERIFY(hostCallLog().facts(run).hasInterrupt);
        QCOMPARE(test::threadsAlive(kHostFakeWorkerName, true), 0);
        QVERIFY(!host.running());
        QVERIFY(!host.snapshot());

        // Kept: the next start asks it again.
        QCOMPARE(host.start(c, CpuTopology::current()).kind, ErrorKind::Interrupted);
        QCOMPARE(asked.load(), 2);
        stopRequested = false;
        const Error ok = host.start(c, CpuTopology::current());
        QVERIFY2(!ok, ok.message.c_str());
        QCOMPARE(asked.load(), 3);
        QVERIFY(host.running());
        host.stop();
    }

    // A restart runs a new run object: the old one was destroyed at the stop, the new one is made afresh, and
    // nothing of the old run shows through the host (finished(), config(), the snapshot's run).
    void restartMakesAFreshRun()
    {
        HostFakeExperiment host;
        QCOMPARE(host.config().tag, 0); // before any start: the default config
        HostFakeConfig first = oneHostFakeWorker(1);
        first.finishAfter = 1;
        QVERIFY(!host.start(first, CpuTopology::current()));
        const int run1 = hostRunsMade().load();
        QTRY_VERIFY_WITH_TIMEOUT(host.finished(), 5000);
        host.stop();
        QVERIFY(host.finished()); // after a stop: whether the run had finished
        QCOMPARE(host.config().tag, 1);
        QCOMPARE(hostCallLog().count(HostCall::Destroy, run1), 1);

        QVERIFY(!host.start(oneHostFakeWorker(2), CpuTopology::current()));
        const int run2 = hostRunsMade().load();
        QCOMPARE(run2, run1 + 1);
        QVERIFY(!host.finished());
        QCOMPARE(host.config().tag, 2);
        QVERIFY(waitForRunningSnapshot(host, run2));
        const std::vector<HostCallRecord> calls = hostCallLog().calls();
        const auto destroyed1 = std::find_if(calls.begin(), calls.end(), [run1](const HostCallRecord& r) {
            return r.run == run1 && r.call == HostCall::Destroy;
        });
        const auto made2 = std::find_if(calls.begin(), calls.end(), [run2](const HostCallRecord& r) {
            return r.run == run2 && r.call == HostCall::Construct;
        });
        QVERIFY(destroyed1 < made2);
        // No call reached the first run after the second was made.
        QVERIFY(std::none_of(made2, calls.end(), [run1](const HostCallRecord& r) { return r.run == run1; }));
        host.stop();
        QVERIFY(!host.finished());
        QCOMPARE(host.snapshot()->run, run2);
    }

    // PublishedAtStartRun: start() publishes the new run's first snapshot before it returns, made on the caller's
    // thread before the collector's first drain, so a view never sees none nor the last run's final snapshot.
    void publishedAtStartRunHasASnapshotAtOnce()
    {
        ExperimentHost<HostFakeEagerRun> host;
        for (int round = 0; round < 2; ++round) {
            QVERIFY(!host.start(oneHostFakeWorker(), CpuTopology::current()));
            const int run = hostRunsMade().load();
            const auto s = host.snapshot();
            QVERIFY(s);
            QCOMPARE(s->run, run);
            QVERIFY(s->running);
            const std::vector<HostCallRecord> calls = hostCallLog().callsOf(run);
            const int first = indexOf(calls, HostCall::Snapshot);
            QVERIFY(first > 0);
            QVERIFY(calls[size_t(first)].onControl);
            QCOMPARE(indexOf(calls, HostCall::Start), first - 1);
            host.stop();
        }
    }

    // stop() is idempotent, and the host's destructor stops a running run (joined, ended, destroyed).
    void stopIdempotentAndDestructorStops()
    {
        {
            HostFakeExperiment never;
            never.stop(); // nothing to stop
        }
        QVERIFY(hostCallLog().calls().empty());
        auto host = std::make_unique<HostFakeExperiment>();
        QVERIFY(!host->start(oneHostFakeWorker(), CpuTopology::current()));
        const int run = hostRunsMade().load();
        host->stop();
        const size_t calls = hostCallLog().calls().size();
        host->stop();
        QCOMPARE(hostCallLog().calls().size(), calls);

        QVERIFY(!host->start(oneHostFakeWorker(), CpuTopology::current()));
        QVERIFY(waitForRunningSnapshot(*host, run + 1));
        host.reset();
        QCOMPARE(hostCallLog().count(HostCall::Stop, run + 1), 1);
        QCOMPARE(hostCallLog().count(HostCall::Ended, run + 1), 1);
        QCOMPARE(hostCallLog().count(HostCall::Destroy, run + 1), 1);
        QCOMPARE(test::threadsAlive(kHostFakeWorkerName, true), 0);
        QCOMPARE(test::threadsAlive("rtscope-collect", true), 0);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestHostContract)
#include "tst_host_contract.moc"
