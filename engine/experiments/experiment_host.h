#pragma once
/// @file The experiment host: the one contract every experiment implements, and the code they used to copy, once
/// (docs/architecture.md, "The experiment host").
///
/// An experiment is two parts:
/// - a *run* (the ExperimentRun concept below): created by start() from a validated config and the topology it was
///   validated against, it owns the run's threads, rings and aggregator, and is destroyed by stop(). Nothing in it is
///   reset by hand: a new run is a new object.
/// - the *host* (ExperimentHost<Run>): validation, memory locking, the collector and its pace, the publisher the
///   views read, the generation count, busy CPUs, the order of a stop and the 100 ms join budget (kJoinBudgetMs).
///
/// The data path runs one way: workers → rings → collector thread → Run::drain() into the run's aggregator →
/// Run::makeSnapshot() → SnapshotPublisher → snapshot() in a view. The collector never calls the experiment object.
#include "engine/pipeline/collector.h"
#include "engine/pipeline/snapshot_publisher.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/clock.h"
#include "engine/util/error.h"

#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rtscope {

/// @brief How often the collector drains a run's rings and publishes a snapshot (one per frame for the GUI).
struct CollectorPace {
    int64_t drainNs = 1'000'000;
    int64_t publishNs = 16'000'000;
};

/// @brief Everything a run gets from its host besides its config: the run has no hidden inputs (no reading of the
/// calling thread's affinity, no process-wide state of its own).
struct RunEnvironment {
    /// The CPUs the config was validated against. Never CpuTopology::current() inside a run: that is the calling
    /// thread's affinity, which the GUI narrows while an experiment loads a CPU.
    CpuTopology topology;
    /// What mlockall gave when the caller asked for it (mode All, or None with the reason); {} when not asked. When
    /// it is not All, the run locks what its real-time path touches itself (lockedRanges()).
    MemoryLockStatus memoryLock;
    /// Asked between the steps of a start() that may take long (many hogs): true when the caller wants the start
    /// given up (a stop request, a controller gone). Empty: never. ExperimentHost::setStartInterrupt().
    std::function<bool()> interrupted;
    bool allLocked() const { return memoryLock.mode == MemoryLockMode::All; }
    /// @brief A thread of the run's real-time path: @p policy at @p priority on @p cpu, named @p name, locking its
    /// own stack unless mlockall is in force; the rest as ThreadSpec has it, for the run to change.
    ThreadSpec threadSpec(Policy policy, int priority, int cpu, std::string name) const
    {
        ThreadSpec spec;
        spec.policy = policy;
        spec.priority = priority;
        spec.cpu = cpu;
        spec.name = std::move(name);
        spec.lockStack = !allLocked();
        return spec;
    }
    /// @brief The Interrupted error when interrupted() says so, else none: a run's start() asks it between steps.
    Error checkInterrupted(std::string_view during) const
    {
        if (interrupted && interrupted())
            return {ErrorKind::Interrupted, "A stop was requested while " + std::string(during) + "."};
        return {};
    }
};

/// @brief The memory-lock status of a run that locked its real-time path's ranges itself: @p what names them
/// ("the rings and the measuring threads' stacks"); @p locked says whether every lockRange succeeded (errno @p err
/// of the last failure otherwise). The reason mlockall was refused, if it was asked for, is kept in parentheses.
MemoryLockStatus rangeLockStatus(const RunEnvironment& env, bool locked, int err, std::string_view what);

/// @brief What a run of an experiment provides. The host calls, in order: the constructor (allocations, CPUs
/// resolved; no thread yet), start() (the threads; on failure the host calls stop() and discards the run), then from
/// the collector thread drain() and makeSnapshot() while it runs, and at the end stop() (every thread stopped and
/// joined within kJoinBudgetMs), a last drain() and makeSnapshot(false), and the optional ended(). The collector
/// calls the run no more once stop() is due: stop() and what follows never overlap a drain() or makeSnapshot().
// clang-format 14 mangles requires-expressions: the concepts are formatted by hand.
// clang-format off
template <class R>
concept ExperimentRun =
    requires(R& run, const R& constRun, bool running) {
        typename R::Config;
        typename R::Snapshot;
        { R::kName } -> std::convertible_to<std::string_view>; ///< "latency": for "the latency experiment …"
        { run.start() } -> std::same_as<Error>;
        { run.stop() } -> std::same_as<void>; ///< idempotent; also stops a partly started run
        { run.drain() } -> std::same_as<size_t>;
        { run.makeSnapshot(running) } -> std::same_as<std::shared_ptr<typename R::Snapshot>>;
        { constRun.finished() } -> std::same_as<bool>;
        { constRun.busyCpus() } -> std::same_as<std::vector<int>>;
        { constRun.config() } -> std::same_as<const typename R::Config&>; ///< as run: CPUs resolved
        { constRun.collectorCpu() } -> std::same_as<int>;                 ///< -1: wherever the topology allows
    } && std::constructible_from<R, const typename R::Config&, const RunEnvironment&>;

/// @brief A run that sets its own collector pace (default CollectorPace{}).
template <class R>
concept PacedRun = requires(const R& run) {
    { run.pace() } -> std::same_as<CollectorPace>;
};

/// @brief A run with something to do after the last snapshot is published (a recording sink's end).
template <class R>
concept EndingRun = requires(R& run, int64_t stoppedNs) { run.ended(stoppedNs); };

/// @brief A run whose first snapshot start() publishes before it returns (`static constexpr bool kPublishAtStart =
/// true`): a view that reads snapshot() right after a start sees this run, never none nor the last run's final one.
template <class R>
concept PublishedAtStartRun = requires { requires bool(R::kPublishAtStart); };
// clang-format on

template <ExperimentRun Run> class ExperimentHost {
public:
    using RunType = Run;
    using Config = typename Run::Config;
    using Snapshot = typename Run::Snapshot;

    ExperimentHost() = default;
    ~ExperimentHost() { stop(); }
    ExperimentHost(const ExperimentHost&) = delete;
    ExperimentHost& operator=(const ExperimentHost&) = delete;

    /// @brief Lock all memory with mlockall (CLI, like cyclictest -m) instead of only the real-time path's stacks and
    /// rings (GUI). Applies at the next start().
    void setLockAllMemory(bool all) { m_lockAll = all; }
    /// @brief What a start() asks between its steps (RunEnvironment::interrupted): a stop request that arrives
    /// while a run starts (Ctrl-C during the start-up of many hogs, a controller that left) ends the start with
    /// ErrorKind::Interrupted, and everything started is stopped and joined as after any failed start. Called on
    /// the thread that calls start(). Kept for the next starts.
    void setStartInterrupt(std::function<bool()> interrupted) { m_startInterrupt = std::move(interrupted); }

    /// @brief Validates @p config against @p topology, then creates the run and starts its threads and the collector
    /// (kept off the run's busy CPUs). On any failure everything started is stopped and joined again and the error
    /// returned (InvalidConfig, Permission, …). @p topology is explicit: the caller says which CPUs exist and may be
    /// used, usually CpuTopology::current() taken before anything narrowed its affinity.
    Error start(const Config& config, const CpuTopology& topology)
    {
        if (m_run)
            return {ErrorKind::InvalidConfig, "the " + std::string(Run::kName) + " experiment is already running"};
        if (auto errors = config.validate(topology); !errors.empty())
            return {ErrorKind::InvalidConfig, joinErrors(errors)};
        const RunEnvironment env{topology, m_lockAll ? lockAllMemory() : MemoryLockStatus{}, m_startInterrupt};
        auto run = std::make_unique<Run>(config, env);
        configureRun(*run);
        if (Error e = run->start()) {
            run->stop();
            return e;
        }
        m_run = std::move(run);
        m_topology = topology;
        m_finishedAtStop = false;
        m_running.store(true);
        m_feed = std::make_unique<Feed>(*m_run, m_publisher, m_generation, m_running);
        m_collector.addSource(m_feed.get());
        if constexpr (PublishedAtStartRun<Run>)
            m_feed->publish(); // on this thread: the collector thread is not started yet
        const CollectorPace pace = paceOf(*m_run);
        m_collector.start(pace.drainNs, pace.publishNs, m_run->collectorCpu());
        return {};
    }

    /// @brief Stops and joins every thread of the run (within kJoinBudgetMs; one that overstays is demoted), drains
    /// the last samples and publishes the final snapshot (running = false), then destroys the run. Idempotent.
    void stop()
    {
        if (!m_run)
            return;
        // From here on only this thread calls the run: stop(), then (in the collector's stop) the last drain() and
        // makeSnapshot(false). A pass of the collector in progress ends first.
        m_collector.hold(m_feed.get());
        m_run->stop();
        const int64_t stoppedNs = nowNs();
        m_finishedAtStop = m_run->finished();
        m_running.store(false);
        m_collector.stop(); // a last drain and publish of the joined run
        m_collector.removeSource(m_feed.get());
        if constexpr (EndingRun<Run>)
            m_run->ended(stoppedNs);
        m_lastConfig = m_run->config();
        m_feed.reset();
        m_run.reset();
    }

    bool running() const { return m_running.load(); }
    /// @brief The run reached its planned end (duration, sample count, all bursts): time to call stop(). After a
    /// stop, whether the run had.
    bool finished() const { return m_run ? m_run->finished() : m_finishedAtStop; }
    /// @brief The config as run (CPUs resolved); after a stop, the last run's; before any start, the default.
    const Config& config() const { return m_run ? m_run->config() : m_lastConfig; }
    /// @brief The CPUs this run loads; empty when not running. Whoever drives the experiment keeps its own threads
    /// off them (ScopedCallerAffinity in the CLI, GuiThreadAffinity in the GUI). Control thread only.
    std::vector<int> busyCpus() const { return m_run ? m_run->busyCpus() : std::vector<int>{}; }
    /// @brief The latest published snapshot; never blocks a worker. Null before the first start().
    std::shared_ptr<const Snapshot> snapshot() const { return m_publisher.latest(); }
    /// @brief The running run's publish interval, from the collector's next pass (the next start() uses the
    /// run's own pace again). Control thread only.
    void setRunningPublishInterval(int64_t publishNs)
    {
        if (m_collector.running())
            m_collector.setPublishInterval(publishNs);
    }
    /// @brief Publishes at the collector's next pass (now, when it is not running: tests, after a change).
    void publishNow()
    {
        if (m_collector.running())
            m_collector.requestPublish();
        else
            m_collector.flushNow();
    }

protected:
    /// @brief The run in progress, null when stopped: for an experiment's own verbs (reconfigure, markers).
    Run* run() { return m_run.get(); }
    const Run* run() const { return m_run.get(); }
    /// @brief The topology the running config was validated against.
    const CpuTopology& topology() const { return m_topology; }
    /// @brief Hook for a subclass: settings that outlive a run (series window, sink) go into @p run before start().
    virtual void configureRun(Run& run) { (void)run; }

private:
    // The collector's view of one run: drains it and hands its snapshots to the publisher. It knows the run and the
    // publisher, never the experiment object, so the path from worker to view runs one way.
    class Feed final : public CollectorSource {
    public:
        Feed(Run& run, SnapshotPublisher<Snapshot>& publisher, uint64_t& generation, const std::atomic<bool>& running)
            : m_run(run)
            , m_publisher(publisher)
            , m_generation(generation)
            , m_running(running)
        {}
        size_t drain() override { return m_run.drain(); }
        void publish() override
        {
            std::shared_ptr<Snapshot> s = m_run.makeSnapshot(m_running.load());
            s->generation = ++m_generation;
            m_publisher.publish(std::move(s));
        }

    private:
        Run& m_run;
        SnapshotPublisher<Snapshot>& m_publisher;
        uint64_t& m_generation; ///< collector thread while running, control thread while stopped
        const std::atomic<bool>& m_running;
    };

    static CollectorPace paceOf(const Run& run)
    {
        if constexpr (PacedRun<Run>)
            return run.pace();
        else
            return {};
    }

    std::unique_ptr<Run> m_run;
    std::unique_ptr<Feed> m_feed;
    std::atomic<bool> m_running{false};
    bool m_lockAll = false;
    std::function<bool()> m_startInterrupt;
    bool m_finishedAtStop = false;
    Config m_lastConfig{};
    CpuTopology m_topology;
    uint64_t m_generation = 0; ///< increases with every snapshot, across runs
    Collector m_collector;
    SnapshotPublisher<Snapshot> m_publisher;
};

/// @brief For a run's start(): waits until each of @p workers (pointers to a worker with atomic `ready` and `done`
/// flags) is ready or already done, looking every 200 µs for at most 2 s; after that, an Error that says
/// "<threads> did not start within 2 s".
template <class Workers> Error waitUntilWorkersReady(const Workers& workers, const std::string& threads)
{
    const int64_t end = nowNs() + 2 * kNsPerSec;
    for (;;) {
        bool all = true;
        for (const auto& w : workers)
            all = all && (w->ready.load(std::memory_order_acquire) || w->done.load(std::memory_order_acquire));
        if (all)
            return {};
        if (nowNs() > end)
            return {ErrorKind::System, threads + " did not start within 2 s"};
        const timespec pause{0, 200'000};
        nanosleep(&pause, nullptr);
    }
}

} // namespace rtscope
