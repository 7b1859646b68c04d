#pragma once
/// @file The user's own background load (`--load-cmd "stress-ng --cpu 2"`, like jitterdebugger -c): a
/// child process in its own process group, stopped and reaped whatever happens.
#include "engine/util/error.h"

#include <string>
#include <sys/types.h>

namespace rtscope {

class LoadProcess {
public:
    LoadProcess() = default;
    ~LoadProcess(); ///< stops and reaps
    LoadProcess(const LoadProcess&) = delete;
    LoadProcess& operator=(const LoadProcess&) = delete;

    /// @brief Runs `/bin/sh -c command` in a new process group with default signal handling and an empty
    /// signal mask (our threads block SIGINT/SIGTERM; the child must not inherit that). The child gets
    /// SIGTERM if the thread that started it dies (PR_SET_PDEATHSIG), so even a crash of ours ends it.
    Error start(const std::string& command);
    /// @brief SIGTERM to the whole group, up to @p graceMs to exit, then SIGKILL; always reaps.
    void stop(int graceMs = 500);
    bool running() const;
    pid_t pid() const { return m_pid; }
    /// @brief "exited with 0", "killed by SIGTERM", "still running", "" before start.
    const std::string& status() const { return m_status; }

private:
    bool reap(bool block);
    pid_t m_pid = -1;
    std::string m_status;
};

} // namespace rtscope
