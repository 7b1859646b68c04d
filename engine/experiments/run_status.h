#pragma once
/// @file What every experiment's snapshot says of its run, in one place: the common header of the eight snapshot
/// types (docs/architecture.md, "The experiment host"). A consumer that needs only these facts (the page template,
/// the agent, the remote run, the host's collector) reads them here, whatever the experiment.
#include <concepts>
#include <cstdint>
#include <memory>
#include <string>

namespace rtscope {

/// @brief The run's state as of one publish.
struct RunStatus {
    uint64_t generation = 0; ///< increases with every publish, across the runs of one experiment
    bool running = false;
    bool finished = false;   ///< ran to its planned end (false after a stop or a failure)
    int64_t startNs = 0;     ///< CLOCK_MONOTONIC at start; 0 before
    int64_t publishedNs = 0; ///< CLOCK_MONOTONIC of this publish
    std::string memoryLock;  ///< what mlockall and the run's own locks gave, in words; empty when not asked
    std::string error;       ///< why the run failed or could not go on, in sentences; empty if it did not
};

/// @brief The common header and the config as run (CPUs resolved). Every snapshot type derives from it.
template <class Config> struct SnapshotOf : RunStatus {
    using ConfigType = Config;
    Config config;
};

/// @brief A new snapshot of a run of @p config, its header filled in as far as these say (@p publishedNs: the time of
/// this publish); the experiment adds the rest.
template <class S>
std::shared_ptr<S> newRunSnapshot(const typename S::ConfigType& config, bool running, int64_t startNs,
                                  int64_t publishedNs)
{
    auto snap = std::make_shared<S>();
    snap->config = config;
    snap->running = running;
    snap->startNs = startNs;
    snap->publishedNs = publishedNs;
    return snap;
}

/// @brief A snapshot type with the common header.
template <class S>
concept RunSnapshot = std::derived_from<S, RunStatus> && requires(const S& s)
{
    s.config;
};

} // namespace rtscope
