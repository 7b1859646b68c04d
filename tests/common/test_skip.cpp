#include "tests/common/test_skip.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <QtTest/QtTest>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace rtscope::test {

namespace {

struct KindName {
    SkipKind kind;
    const char* name;
};
constexpr std::array kKindNames{
    KindName{SkipKind::RtPrivilege, "no-rt-privilege"},
    KindName{SkipKind::Deadline, "no-sched-deadline"},
    KindName{SkipKind::Tracefs, "no-tracefs"},
    KindName{SkipKind::Root, "not-root"},
    KindName{SkipKind::Cpus, "few-cpus"},
    KindName{SkipKind::Tool, "no-tool"},
    KindName{SkipKind::Kernel, "kernel"},
    KindName{SkipKind::Sanitizer, "sanitizer"},
    KindName{SkipKind::Privileged, "privileged"},
    KindName{SkipKind::OptIn, "opt-in"},
    KindName{SkipKind::Other, "other"},
};

struct Found {
    bool has = false;
    QString why;
};

// Each check runs in a thread of its own, so that nothing of it stays on the test's threads, and the thread widens
// its affinity first: SCHED_DEADLINE is refused (EPERM) to a thread pinned narrower than its root domain, and a test
// may have pinned the thread that skips.
template <typename Try> Found inFreshThread(Try attempt)
{
    Found f;
    std::thread([&] {
        cpu_set_t all;
        CPU_ZERO(&all);
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            CPU_SET(cpu, &all);
        sched_setaffinity(0, sizeof all, &all); // the kernel keeps the CPUs of the cpuset
        f = attempt();
    }).join();
    return f;
}

Found tryFifo()
{
    return inFreshThread([] {
        const sched_param p{1};
        const int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
        if (err == 0)
            return Found{true, "a thread here became SCHED_FIFO 1"};
        return Found{false, QString("SCHED_FIFO 1 was refused here: %1").arg(std::strerror(err))};
    });
}

// struct sched_attr of sched_setattr(2); glibc 2.36 does not declare it, and <linux/sched/types.h> clashes with
// <sched.h> there.
struct DeadlineAttr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
};

Found tryDeadline()
{
    return inFreshThread([] {
        DeadlineAttr a{};
        a.size = sizeof a;
        a.sched_policy = SCHED_DEADLINE;
        a.sched_runtime = 100'000;
        a.sched_deadline = a.sched_period = 10'000'000;
        if (syscall(SYS_sched_setattr, 0, &a, 0) == 0)
            return Found{true, "a thread here became SCHED_DEADLINE (100 µs every 10 ms)"};
        // EBUSY is admission control saying the CPUs are booked (by another test running now): the privilege is there.
        const int err = errno;
        if (err == EBUSY)
            return Found{true, "SCHED_DEADLINE is permitted here (admission control answered EBUSY: booked now)"};
        return Found{false, QString("SCHED_DEADLINE was refused here: %1").arg(std::strerror(err))};
    });
}

// A tracefs mount whose instances this process may create: what a trace session needs (engine/trace).
Found tryTracefs()
{
    constexpr long kTracefsMagic = 0x74726163; // include/uapi/linux/magic.h
    std::ifstream mounts("/proc/self/mounts");
    std::string dev, dir, type, rest;
    QStringList seen;
    while (mounts >> dev >> dir >> type && std::getline(mounts, rest)) {
        struct statfs fs {};
        if (type != "tracefs" || statfs(dir.c_str(), &fs) != 0 || long(fs.f_type) != kTracefsMagic)
            continue;
        const std::string instances = dir + "/instances";
        if (faccessat(AT_FDCWD, instances.c_str(), W_OK | X_OK, AT_EACCESS) == 0)
            return {true, QString("tracefs is mounted at %1 and this process may create instances").arg(dir.c_str())};
        seen << QString::fromStdString(dir);
    }
    return {false, seen.isEmpty() ? QString("no tracefs is mounted")
                                  : "tracefs is mounted at " + seen.join(", ") + " but this process may not write it"};
}

// Root as a privileged machine's root is: uid 0 with CAP_SYS_ADMIN in effect (a container's root often lacks it).
Found tryRoot()
{
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    const bool sysAdmin = syscall(SYS_capget, &header, data) == 0 && (data[0].effective & (1u << CAP_SYS_ADMIN));
    if (geteuid() == 0 && sysAdmin)
        return {true, "this process is root with CAP_SYS_ADMIN"};
    return {false, geteuid() == 0 ? "this process is root without CAP_SYS_ADMIN" : "this process is not root"};
}

// What @p tryIt finds, tried once, on the first question.
template <Found (*tryIt)()> const Found& foundOnce()
{
    static const Found f = tryIt();
    return f;
}

const Found& found(SkipKind kind)
{
    static const Found none{false, "not a strict kind"};
    switch (kind) {
    case SkipKind::RtPrivilege:
        return foundOnce<tryFifo>();
    case SkipKind::Deadline:
        return foundOnce<tryDeadline>();
    case SkipKind::Tracefs:
        return foundOnce<tryTracefs>();
    case SkipKind::Root:
        return foundOnce<tryRoot>();
    default:
        return none;
    }
}

struct Taken {
    SkipKind kind;
    QString test; ///< Function or Function(tag)
    QString reason;
};

std::vector<Taken>& taken()
{
    static std::vector<Taken> all;
    return all;
}

QString unitName(const char* file)
{
    // tests/<area>/tst_<unit>.cpp -> <area>/<unit>
    const QFileInfo f(QString::fromUtf8(file));
    QString unit = f.completeBaseName();
    if (unit.startsWith("tst_"))
        unit = unit.mid(4);
    return f.dir().dirName() + '/' + unit;
}

QString oneLine(QString s)
{
    s.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    return s.trimmed();
}

} // namespace

const char* skipKindName(SkipKind kind)
{
    for (const KindName& k : kKindNames)
        if (k.kind == kind)
            return k.name;
    return "?";
}

std::optional<SkipKind> skipKindFromName(const QString& name)
{
    for (const KindName& k : kKindNames)
        if (name == QLatin1String(k.name))
            return k.kind;
    return std::nullopt;
}

bool isStrictSkipKind(SkipKind kind)
{
    return kind == SkipKind::RtPrivilege || kind == SkipKind::Deadline || kind == SkipKind::Tracefs ||
           kind == SkipKind::Root;
}

bool machineHas(SkipKind kind)
{
    return isStrictSkipKind(kind) && found(kind).has;
}

QString machineHasWhy(SkipKind kind)
{
    return found(kind).why;
}

SkipOutcome takeSkip(const Skip& skip)
{
    const QString kind = skipKindName(skip.kind);
    if (machineHas(skip.kind))
        return {true, QString("[%1] a skip for a lack this machine does not have (%2), so the test did not run what it "
                              "should; the skip said: %3")
                          .arg(kind, found(skip.kind).why, skip.reason)
                          .toUtf8()};
    QString test = QString::fromUtf8(QTest::currentTestFunction());
    if (const char* tag = QTest::currentDataTag(); tag && *tag)
        test += QString("(%1)").arg(tag);
    taken().push_back({skip.kind, test, oneLine(skip.reason)});
    return {false, QString("[%1] %2").arg(kind, skip.reason).toUtf8()};
}

int finishUnit(const char* unitFile, int failures)
{
    const std::vector<Taken>& all = taken();
    const QString unit = unitName(unitFile);
    const QString logPath = qEnvironmentVariable("RTSCOPE_TEST_SKIP_LOG");
    if (!all.empty()) {
        std::printf("rtscope-test: %zu skipped in %s:\n", all.size(), qPrintable(unit));
        QByteArray log;
        for (const Taken& t : all) {
            std::printf("  SKIP %s [%s] %s\n", qPrintable(t.test), skipKindName(t.kind), qPrintable(t.reason));
            log += QString("%1\t%2\t%3\t%4\n").arg(unit, t.test, skipKindName(t.kind), t.reason).toUtf8();
        }
        std::fflush(stdout);
        if (!logPath.isEmpty()) {
            QDir().mkpath(QFileInfo(logPath).absolutePath());
            QSaveFile out(logPath);
            if (!out.open(QIODevice::WriteOnly) || out.write(log) != log.size() || !out.commit()) {
                std::fprintf(stderr, "rtscope-test: cannot write the skip log %s\n", qPrintable(logPath));
                return failures > 0 ? failures : 1;
            }
        }
    } else if (!logPath.isEmpty()) {
        QFile::remove(logPath);
    }
    if (failures > 0)
        return failures == kSkippedExitCode ? failures + 1 : failures;
    return all.empty() ? 0 : kSkippedExitCode;
}

} // namespace rtscope::test
