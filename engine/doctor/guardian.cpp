#include "engine/doctor/guardian.h"

#include "engine/doctor/session.h"
#include "engine/rt/rt_environment.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace rtscope::doctor {

namespace {

constexpr int kGuardianPriority = 98;

int pidfdOpen(pid_t pid)
{
    return int(::syscall(SYS_pidfd_open, pid, 0));
}

void closeFd(int& fd)
{
    if (fd >= 0) {
        ::close(fd);
        fd = -1;
    }
}

// Waits up to @p timeoutMs for @p fd to become readable; true when it did.
bool readable(int fd, int timeoutMs)
{
    pollfd p{fd, POLLIN, 0};
    int r;
    do
        r = ::poll(&p, 1, timeoutMs);
    while (r < 0 && errno == EINTR);
    return r > 0;
}

// The PID a pidfd refers to (its fdinfo "Pid:" line); 0 when it is none.
pid_t pidOfPidfd(int fd)
{
    FILE* f = std::fopen(("/proc/self/fdinfo/" + std::to_string(fd)).c_str(), "re");
    if (!f)
        return 0;
    char line[256];
    pid_t pid = 0;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "Pid:\t%d", &pid) == 1)
            break;
    std::fclose(f);
    return pid;
}

// A copy of @p fd at 10 or above, so that the dup2 onto 3, 4 and 5 in the child cannot overwrite a source.
int highCopy(int fd)
{
    return ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
}

struct SpawnFds {
    int channel = -1;
    int pidfd = -1;
    int lock = -1;
    ~SpawnFds()
    {
        closeFd(channel);
        closeFd(pidfd);
        closeFd(lock);
    }
};

Error spawnGuardian(const GuardianLaunch& launch, const JournalPaths& paths, const std::string& root, int channel,
                    int lockFd, pid_t& pid)
{
    SpawnFds fds;
    const int self = pidfdOpen(::getpid());
    if (self < 0)
        return failure(ErrorKind::Unavailable, "pidfd_open: " + errnoText(errno) + " (Linux 5.3 or later is needed)");
    fds.pidfd = highCopy(self);
    ::close(self);
    fds.channel = highCopy(channel);
    fds.lock = highCopy(lockFd);
    if (fds.pidfd < 0 || fds.channel < 0 || fds.lock < 0)
        return failure(ErrorKind::System, "duplicating the guardian's descriptors: " + errnoText(errno));

    std::vector<std::string> args{launch.executable};
    args.insert(args.end(), launch.arguments.begin(), launch.arguments.end());
    args.insert(args.end(), {"--journal-dir", paths.dir, "--root", root});
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&actions, fds.channel, kGuardianChannelFd);
    posix_spawn_file_actions_adddup2(&actions, fds.pidfd, kGuardianPidFd);
    posix_spawn_file_actions_adddup2(&actions, fds.lock, kGuardianLockFd);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    // Nothing else of the doctor's: a pipe a test harness reads to its end must not be held open by the guardian.
    posix_spawn_file_actions_addclosefrom_np(&actions, kGuardianLockFd + 1);
    sigset_t none;
    sigset_t all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    // Its own session: the terminal's Ctrl-C (SIGINT to the foreground process group) and hang-up do not reach it.
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    const int err = ::posix_spawn(&pid, launch.executable.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (err != 0)
        return failure(ErrorKind::System, "starting the guardian (" + launch.executable + "): " + errnoText(err));
    return Error::none();
}

} // namespace

Expected<std::unique_ptr<Guardian>> Guardian::start(const GuardianLaunch& launch, const JournalPaths& paths,
                                                    const std::string& root, int lockFd, int readyTimeoutMs)
{
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return failure(ErrorKind::System, "socketpair: " + errnoText(errno));
    std::unique_ptr<Guardian> g(new Guardian);
    g->m_channel = sv[0];
    pid_t pid = 0;
    const Error spawned = spawnGuardian(launch, paths, root, sv[1], lockFd, pid);
    ::close(sv[1]);
    if (spawned)
        return spawned;
    g->m_identity = ProcessIdentity::of(pid).value_or(ProcessIdentity{pid, 0});
    g->m_pidfd = pidfdOpen(pid);

    std::string said;
    char buf[64];
    while (said.find('\n') == std::string::npos && readable(g->m_channel, readyTimeoutMs)) {
        const ssize_t n = ::read(g->m_channel, buf, sizeof buf);
        if (n <= 0)
            break;
        said.append(buf, size_t(n));
    }
    if (said.rfind("ready\n", 0) != 0) {
        int status = 0;
        const bool ended = ::waitpid(pid, &status, WNOHANG) == pid;
        return failure(ErrorKind::System,
                       "the guardian (" + launch.executable + ", PID " + std::to_string(pid) + ") did not get ready" +
                           (ended && WIFEXITED(status) ? ": it exited with code " + std::to_string(WEXITSTATUS(status))
                                                       : " within " + std::to_string(readyTimeoutMs) + " ms"));
    }
    return g;
}

Guardian::~Guardian()
{
    closeFd(m_channel);
    if (m_pidfd >= 0 && readable(m_pidfd, 0))
        ::waitpid(m_identity.pid, nullptr, WNOHANG);
    closeFd(m_pidfd);
}

bool Guardian::alive() const
{
    return m_pidfd >= 0 && !readable(m_pidfd, 0);
}

Error Guardian::release(int timeoutMs)
{
    if (m_channel < 0)
        return failure(ErrorKind::System, "the guardian was released already");
    constexpr char kRelease[] = "release\n";
    const bool sent = ::send(m_channel, kRelease, sizeof kRelease - 1, MSG_NOSIGNAL) == ssize_t(sizeof kRelease - 1);
    closeFd(m_channel);
    const bool ended = m_pidfd >= 0 && readable(m_pidfd, timeoutMs);
    if (ended)
        ::waitpid(m_identity.pid, nullptr, WNOHANG);
    if (!sent || !ended)
        return failure(ErrorKind::System, "the guardian (PID " + std::to_string(m_identity.pid) + ") " +
                                              (sent ? "did not end within " + std::to_string(timeoutMs) + " ms"
                                                    : "could not be told to leave: " + errnoText(errno)));
    closeFd(m_pidfd);
    return Error::none();
}

int runGuardian(const GuardianOptions& options)
{
    const auto say = [&](const std::string& s) {
        if (options.say)
            options.say(s);
    };
    for (int fd : {kGuardianChannelFd, kGuardianPidFd, kGuardianLockFd})
        if (::fcntl(fd, F_GETFD) < 0) {
            say("this is started by a doctor, with its descriptors; it does nothing on its own");
            return 2;
        }
    const pid_t doctorPid = pidOfPidfd(kGuardianPidFd);
    const std::optional<ProcessIdentity> doctor = ProcessIdentity::of(doctorPid);
    std::signal(SIGPIPE, SIG_IGN);
    sched_param param{};
    param.sched_priority = kGuardianPriority;
    if (::sched_setscheduler(0, SCHED_FIFO, &param) != 0)
        say("runs as SCHED_OTHER (SCHED_FIFO " + std::to_string(kGuardianPriority) + ": " + errnoText(errno) +
            "): a real-time task that never sleeps could delay the restore");
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : cpusForNewThreads())
        if (cpu < CPU_SETSIZE)
            CPU_SET(cpu, &set);
    (void)::sched_setaffinity(0, sizeof set, &set); // best effort: the doctor's own CPUs are good enough
    constexpr char kReady[] = "ready\n";
    if (::send(kGuardianChannelFd, kReady, sizeof kReady - 1, MSG_NOSIGNAL) != ssize_t(sizeof kReady - 1))
        return 2;

    std::string heard;
    bool channelOpen = true;
    for (;;) {
        pollfd p[2] = {{channelOpen ? kGuardianChannelFd : -1, POLLIN, 0}, {kGuardianPidFd, POLLIN, 0}};
        if (::poll(p, 2, -1) < 0 && errno != EINTR)
            break;
        if (p[0].revents) {
            char buf[64];
            const ssize_t n = ::read(kGuardianChannelFd, buf, sizeof buf);
            if (n > 0)
                heard.append(buf, size_t(n));
            else if (n == 0 || errno != EINTR)
                channelOpen = false; // the doctor closed it: only its exit is left to watch
            if (heard.find("release\n") != std::string::npos)
                return 0;
            continue;
        }
        if (p[1].revents)
            break;
    }
    // The doctor has exited without releasing: killed, crashed, or ended without finishing its session.
    RootFs fs(options.root);
    const UndoReport r = undoJournal(fs, options.paths, doctor);
    const std::string who = "the doctor (PID " + std::to_string(doctorPid) + ") ended without putting the machine back";
    switch (r.outcome) {
    case UndoReport::Outcome::NothingToDo:
        return 0;
    case UndoReport::Outcome::Restored:
        say(who + "; restored:");
        for (const std::string& line : r.lines)
            say("  " + line);
        return 0;
    default:
        say(who + "; " + r.sentence);
        for (const std::string& line : r.lines)
            say("  " + line);
        return 1;
    }
}

} // namespace rtscope::doctor
