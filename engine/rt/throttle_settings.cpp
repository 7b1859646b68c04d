#include "engine/rt/throttle_settings.h"

#include "engine/rt/rt_environment.h"
#include "engine/util/units.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace rtscope {

namespace {

constexpr const char* kDebugfs = "/sys/kernel/debug";

// Reads one integer with the errno of whatever failed, because "why not" is half of what we report.
std::optional<int64_t> readInteger(const std::string& path, int& err)
{
    err = 0;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        err = errno;
        return std::nullopt;
    }
    char buf[64];
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    err = n < 0 ? errno : 0;
    ::close(fd);
    if (n <= 0) {
        if (err == 0)
            err = EIO;
        return std::nullopt;
    }
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(buf, buf + n, value);
    if (ec != std::errc()) {
        err = EINVAL;
        return std::nullopt;
    }
    return value;
}

bool debugfsMounted()
{
    // An empty mount point is what an unmounted debugfs looks like from user space.
    return ::access((std::string(kDebugfs) + "/sched").c_str(), F_OK) == 0;
}

bool releaseAtLeast(const std::string& release, int major, int minor)
{
    int ma = 0, mi = 0;
    if (std::sscanf(release.c_str(), "%d.%d", &ma, &mi) != 2)
        return false;
    return ma > major || (ma == major && mi >= minor);
}

} // namespace

ThrottleSettings readThrottleSettings(int cpu)
{
    ThrottleSettings s;
    s.cpu = cpu;
    s.rtRuntimeUs = readIntegerFile("/proc/sys/kernel/sched_rt_runtime_us");
    s.rtPeriodUs = readIntegerFile("/proc/sys/kernel/sched_rt_period_us");
    utsname u{};
    if (uname(&u) == 0)
        s.kernelRelease = u.release;
    s.fairServerKernel = releaseAtLeast(s.kernelRelease, 6, 12);

    const std::string dir = std::string(kDebugfs) + "/sched/fair_server/cpu" + std::to_string(cpu);
    if (!debugfsMounted()) {
        s.fairServerNote = std::string("not readable: debugfs is not mounted at ") + kDebugfs +
                           (s.fairServerKernel ? " (as root: mount -t debugfs none /sys/kernel/debug, or run "
                                                 "rtscope inside 'unshare -m' after mounting it there)"
                                               : "; this kernel predates the fair server (6.12) anyway");
        return s;
    }
    int errRuntime = 0, errPeriod = 0;
    s.fairServerRuntimeNs = readInteger(dir + "/runtime", errRuntime);
    s.fairServerPeriodNs = readInteger(dir + "/period", errPeriod);
    if (s.fairServerRuntimeNs && s.fairServerPeriodNs) {
        s.fairServerNote = "read from " + dir;
    } else {
        const int err = errRuntime ? errRuntime : errPeriod;
        const std::string file = dir + (errRuntime ? "/runtime" : "/period");
        s.fairServerRuntimeNs.reset();
        s.fairServerPeriodNs.reset();
        if (err == ENOENT)
            s.fairServerNote = "not readable: " + file + " does not exist (" +
                               (s.fairServerKernel ? "this kernel does not expose its fair server there"
                                                   : "this kernel predates the fair server, added in 6.12") +
                               ")";
        else
            s.fairServerNote = "not readable: " + file + ": " + errnoName(err) + " (" + std::strerror(err) + ")";
    }
    return s;
}

std::string ThrottleSettings::rtThrottlingText() const
{
    if (!rtRuntimeUs || !rtPeriodUs)
        return "not readable (/proc/sys/kernel/sched_rt_runtime_us, sched_rt_period_us)";
    if (*rtRuntimeUs < 0)
        return "disabled (sched_rt_runtime_us = -1)";
    const int64_t leftUs = *rtPeriodUs - *rtRuntimeUs;
    return std::to_string(*rtRuntimeUs) + " us of every " + std::to_string(*rtPeriodUs) + " us (non-RT tasks keep " +
           formatDuration(leftUs * 1000) + " per " + formatDuration(*rtPeriodUs * 1000) + ")";
}

std::string ThrottleSettings::fairServerText() const
{
    if (fairServerRuntimeNs && fairServerPeriodNs)
        return formatDuration(*fairServerRuntimeNs) + " of every " + formatDuration(*fairServerPeriodNs) + " on CPU " +
               std::to_string(cpu);
    return fairServerNote;
}

} // namespace rtscope
