#include "engine/rt/load_process.h"

#include "engine/rt/rt_thread.h"
#include "engine/util/clock.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace rtscope {

LoadProcess::~LoadProcess()
{
    stop();
}

Error LoadProcess::start(const std::string& command)
{
    if (running())
        return {ErrorKind::InvalidConfig, "a load command is already running"};
    if (command.empty())
        return {ErrorKind::InvalidConfig, "load-cmd must not be empty"};
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0)
        return {ErrorKind::System, std::string("load-cmd: fork failed: ") + std::strerror(errno)};
    if (pid == 0) {
        // Child of a multithreaded parent: only async-signal-safe calls until exec.
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) // the parent died before prctl took effect
            _exit(127);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        for (int sig : kStopSignals)
            signal(sig, SIG_DFL);
        for (int sig : {SIGALRM, SIGPIPE})
            signal(sig, SIG_DFL);
        execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    setpgid(pid, pid); // also from the parent, so the group exists before we might signal it
    m_pid = pid;
    m_status = "running";
    return {};
}

bool LoadProcess::reap(bool block)
{
    if (m_pid <= 0)
        return true;
    int st = 0;
    const pid_t r = waitpid(m_pid, &st, block ? 0 : WNOHANG);
    if (r == 0)
        return false;
    if (r == m_pid) {
        if (WIFEXITED(st))
            m_status = "exited with " + std::to_string(WEXITSTATUS(st));
        else if (WIFSIGNALED(st))
            m_status = std::string("killed by ") + sigabbrev_np(WTERMSIG(st));
    } else {
        m_status = std::string("lost: ") + std::strerror(errno);
    }
    m_pid = -1;
    return true;
}

bool LoadProcess::running() const
{
    if (m_pid <= 0)
        return false;
    // WNOWAIT: look without reaping, so stop() still reports how it ended.
    siginfo_t info{};
    return waitid(P_PID, id_t(m_pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
}

void LoadProcess::stop(int graceMs)
{
    if (m_pid <= 0)
        return;
    const pid_t group = m_pid; // the child leads its own group (setpgid in start)
    if (group <= 1)
        return; // never signal -1 or init's group
    kill(-group, SIGTERM);
    const int64_t deadline = nowNs() + int64_t(graceMs) * kNsPerMs;
    while (!reap(false) && nowNs() < deadline)
        usleep(5000);
    // Whatever is left of the group (the shell's children, a leader that ignored SIGTERM) is killed; the
    // leader is then reaped. Sending to an empty group fails harmlessly with ESRCH.
    kill(-group, SIGKILL);
    reap(true);
}

} // namespace rtscope
