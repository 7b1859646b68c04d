#pragma once
// What the doctor's tests share (engine/doctor): a fake machine (a /proc, /sys, /dev and cgroup tree in a temporary
// directory that answers the way the kernel does where a plain file cannot: the bracketed THP modes, a managed IRQ's
// refusal, the files the kernel puts in a new cgroup directory, a debugfs mount), a record of the real machine's
// knobs that puts them back even when a test fails, and the session options that start the real guardian
// (RTSCOPE_BINARY doctor guardian).
#include "engine/doctor/session.h"
#include "tests/common/test_util.h"

#include <QByteArray>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <sched.h>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>

namespace rtscope::test {

/// The options of a session whose guardian is the rtscope binary under test, journaling in @p journalDir.
inline doctor::DoctorSession::Options doctorOptions(const QString& journalDir, const std::string& command = "test")
{
    doctor::DoctorSession::Options o;
    o.paths.dir = journalDir.toStdString();
    o.guardian.executable = qEnvironmentVariable("RTSCOPE_BINARY").toStdString();
    o.guardian.arguments = {"doctor", "guardian"};
    o.command = command;
    return o;
}

inline QString textOf(const Error& e)
{
    return QString::fromStdString(e.message);
}

/// The knob, or null (after a warning with the refusal) when the factory refused it.
inline std::unique_ptr<doctor::Knob> knobOrNull(doctor::Expected<std::unique_ptr<doctor::Knob>> k)
{
    if (!k)
        qWarning("%s", k.error().message.c_str());
    return k ? std::move(k).value() : nullptr;
}

/// What the knob reads now, or "<why not>".
inline std::string readBack(const doctor::Knob& k)
{
    const doctor::Expected<std::string> v = k.read();
    return v ? *v : "<" + v.error().message + ">";
}

/// The PM QoS value in force on this machine, read as the binary s32 /dev/cpu_dma_latency gives; -1 unreadable.
inline int32_t dmaLatencyInForce()
{
    int32_t v = -1;
    const int fd = ::open("/dev/cpu_dma_latency", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (::read(fd, &v, sizeof v) != ssize_t(sizeof v))
            v = -1;
        ::close(fd);
    }
    return v;
}

/// A fake machine rooted at a temporary directory (see the top of the file). Every path is the machine's
/// ("/proc/irq/36/smp_affinity_list"); put() and get() work on the files directly, behind the knobs' back.
class FakeMachine : public doctor::RootFs {
public:
    explicit FakeMachine(const QString& dir)
        : RootFs(dir.toStdString())
        , m_dir(dir)
    {
        put("/proc/sys/kernel/timer_migration", "1\n");
        put("/proc/sys/kernel/sched_rt_runtime_us", "950000\n");
        put("/proc/sys/kernel/sched_rt_period_us", "1000000\n");
        put("/proc/sys/kernel/nmi_watchdog", "0\n");
        put("/proc/sys/kernel/watchdog", "1\n");
        put("/proc/sys/kernel/watchdog_cpumask", "0-1\n");
        put("/proc/sys/kernel/core_pattern", "core\n");
        put("/proc/sys/vm/stat_interval", "1\n");
        for (const char* irq : {"24", "36"}) {
            put(std::string("/proc/irq/") + irq + "/smp_affinity_list", "0-1\n");
            put(std::string("/proc/irq/") + irq + "/effective_affinity_list", "1\n");
        }
        put("/sys/kernel/irq/36/actions", "virtio1-req.0\n");
        put("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
        put("/sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never\n");
        put("/sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "1\n");
        put("/sys/devices/virtual/workqueue/cpumask", "3\n");
        put("/sys/devices/system/cpu/cpuidle/current_driver", "acpi_idle\n");
        put("/sys/devices/system/cpu/cpu1/cpuidle/state2/name", "C1\n");
        put("/sys/devices/system/cpu/cpu1/cpuidle/state2/disable", "0\n");
        QDir(m_dir).mkpath("sys/kernel/debug");
        const int32_t noConstraint = 2'000'000'000;
        put("/dev/cpu_dma_latency", std::string(reinterpret_cast<const char*>(&noConstraint), 4));
        const std::string v1 = "/sys/fs/cgroup/cpuset";
        put(v1 + "/cpuset.cpus", "0-1\n");
        put(v1 + "/cpuset.mems", "0\n");
        put(v1 + "/cpuset.cpu_exclusive", "1\n");
        put(v1 + "/cpuset.sched_load_balance", "1\n");
        put(v1 + "/tasks", "1\n");
        const std::string v2 = "/sys/fs/cgroup/unified";
        put(v2 + "/cgroup.controllers", "cpuset cpu memory\n");
        put(v2 + "/cgroup.subtree_control", "memory\n");
        put(v2 + "/cpuset.cpus.effective", "0-1\n");
        put(v2 + "/cgroup.procs", "1\n");
        put("/proc/" + std::to_string(::getpid()) + "/mounts",
            "cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0\n"
            "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n");
    }

    /// Writes a file of the tree as the test sets it up (making its directories).
    void put(const std::string& path, const std::string& text)
    {
        const QString full = m_dir + QString::fromStdString(path);
        QDir().mkpath(QFileInfo(full).path());
        QFile f(full);
        if (f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            f.write(text.data(), qint64(text.size()));
    }
    /// The file's whole text ("" when missing).
    std::string get(const std::string& path) const
    {
        QFile f(m_dir + QString::fromStdString(path));
        return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
    }
    bool has(const std::string& path) const { return QFileInfo::exists(m_dir + QString::fromStdString(path)); }

    /// Every file of the tree and its bytes: "nothing was changed" is this map before and after.
    std::map<QString, QByteArray> snapshot() const
    {
        std::map<QString, QByteArray> files;
        QDirIterator it(m_dir, QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QFile f(path);
            files[path.mid(m_dir.size())] = f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<dir>");
        }
        return files;
    }

    /// The kernel's refusal of a write to @p path (a managed IRQ: EPERM).
    void refuse(const std::string& path, int err) { m_refused[path] = err; }
    /// The v2 partition reads back invalid, with the kernel's reason, like a partition whose CPUs are not exclusive.
    void partitionsInvalid(bool invalid) { m_invalidPartitions = invalid; }
    /// Called with the path before every write a knob makes (the write-ahead check looks at the journal then).
    std::function<void(const std::string&)> beforeWrite;
    int writes = 0;

    int writeText(std::string_view path, std::string_view text) override
    {
        const std::string p(path);
        std::string value(text);
        while (!value.empty() && value.back() == '\n')
            value.pop_back();
        if (beforeWrite)
            beforeWrite(p);
        ++writes;
        if (const auto r = m_refused.find(p); r != m_refused.end())
            return r->second;
        if (!has(p))
            return ENOENT;
        const std::string name = p.substr(p.rfind('/') + 1);
        if (p == "/sys/kernel/mm/transparent_hugepage/enabled")
            return bracketed({"always", "madvise", "never"}, value, p);
        if (p == "/sys/kernel/mm/transparent_hugepage/defrag")
            return bracketed({"always", "defer", "defer+madvise", "madvise", "never"}, value, p);
        if (p == "/sys/kernel/debug/sched/preempt") {
            if (value != "none" && value != "voluntary" && value != "full" && value != "lazy")
                return EINVAL;
            m_preempt = value;
            put(p, preemptText());
            return 0;
        }
        if (name == "cgroup.subtree_control") {
            std::set<std::string> on;
            std::istringstream words(get(p));
            for (std::string w; words >> w;)
                on.insert(w);
            value.front() == '+' ? (void)on.insert(value.substr(1)) : (void)on.erase(value.substr(1));
            std::string list;
            for (const std::string& w : on)
                list += (list.empty() ? "" : " ") + w;
            put(p, list + "\n");
            return 0;
        }
        if (name == "cpuset.cpus.partition" && m_invalidPartitions && value != "member") {
            put(p, value + " invalid (Cpu list in cpuset.cpus not exclusive)\n");
            return 0;
        }
        return RootFs::writeText(path, text);
    }

    // The kernel fills a new cgroup directory with its control files; v1 when the parent has "tasks".
    int makeDirectory(std::string_view path) override
    {
        const std::string p(path);
        if (const int err = RootFs::makeDirectory(path))
            return err;
        const std::string parent = p.substr(0, p.rfind('/'));
        if (has(parent + "/tasks")) {
            put(p + "/cpuset.cpus", "\n");
            put(p + "/cpuset.mems", "\n");
            put(p + "/cpuset.cpu_exclusive", "0\n");
            put(p + "/cpuset.sched_load_balance", "1\n");
            put(p + "/tasks", "");
        } else if (has(parent + "/cgroup.procs")) {
            put(p + "/cpuset.cpus", "\n");
            put(p + "/cpuset.cpus.partition", "member\n");
            put(p + "/cgroup.procs", "");
        }
        return 0;
    }
    // … and removes them with the directory.
    int removeDirectory(std::string_view path) override
    {
        QDir dir(m_dir + QString::fromStdString(std::string(path)));
        if (!dir.exists())
            return ENOENT;
        for (const QString& f : dir.entryList(QDir::Files))
            dir.remove(f);
        return RootFs::removeDirectory(path);
    }

    int mountDebugfs(std::string_view path) override
    {
        if (m_mounted)
            return EBUSY;
        m_mounted = true;
        put(std::string(path) + "/sched/preempt", preemptText());
        return 0;
    }
    int unmount(std::string_view path) override
    {
        if (!m_mounted)
            return EINVAL;
        m_mounted = false;
        QDir(m_dir + QString::fromStdString(std::string(path)) + "/sched").removeRecursively();
        return 0;
    }
    bool isDebugfsMount(std::string_view) const override { return m_mounted; }

private:
    int bracketed(std::initializer_list<const char*> modes, const std::string& value, const std::string& path)
    {
        std::string text;
        bool known = false;
        for (const char* m : modes) {
            known = known || value == m;
            text += (text.empty() ? "" : " ") + (value == m ? "[" + std::string(m) + "]" : std::string(m));
        }
        if (!known)
            return EINVAL;
        put(path, text + "\n");
        return 0;
    }
    std::string preemptText() const
    {
        std::string text;
        for (const char* m : {"none", "voluntary", "full", "lazy"})
            text += (text.empty() ? "" : " ") + (m_preempt == m ? "(" + std::string(m) + ")" : std::string(m));
        return text + "\n";
    }

    QString m_dir;
    std::map<std::string, int> m_refused;
    bool m_invalidPartitions = false;
    bool m_mounted = false;
    std::string m_preempt = "none";
};

/// A fake machine and an empty journal directory, each in a temporary directory of its own: what most doctor tests
/// start from.
struct FakeDoctorDirs {
    QTemporaryDir machineDir;
    QTemporaryDir journalDir;
    FakeMachine machine{machineDir.path()};
};

/// The first line of a file of the real machine, as a person would cat it.
inline std::string realValue(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

/// The knobs of the real machine the tests change, read at construction. restore() writes back any that differ (also
/// from the destructor, so that a failed test leaves nothing changed) after `undoJournal` had its chance.
class RealMachineRecord {
public:
    RealMachineRecord() = default;
    /// Reads the values: call it while no other doctor has anything changed (after beginning a session, or under
    /// the lock), so that they are the machine's own.
    void capture()
    {
        for (const char* p :
             {"/proc/sys/kernel/timer_migration", "/proc/sys/kernel/sched_rt_runtime_us",
              "/proc/sys/kernel/watchdog_cpumask", "/sys/kernel/mm/transparent_hugepage/enabled",
              "/sys/kernel/mm/transparent_hugepage/defrag", "/sys/kernel/mm/transparent_hugepage/khugepaged/defrag",
              "/sys/devices/virtual/workqueue/cpumask", "/sys/fs/cgroup/cpuset/cpuset.sched_load_balance"})
            m_values[p] = realValue(p);
        for (const QString& irq : QDir("/proc/irq").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            const std::string p = "/proc/irq/" + irq.toStdString() + "/smp_affinity_list";
            m_values[p] = realValue(p);
        }
    }
    ~RealMachineRecord()
    {
        if (!m_values.empty())
            restore();
    }
    RealMachineRecord(const RealMachineRecord&) = delete;
    RealMachineRecord& operator=(const RealMachineRecord&) = delete;

    const std::string& before(const std::string& path) const { return m_values.at(path); }
    /// "path: now X, was Y" for every knob that differs now.
    QStringList changed() const
    {
        QStringList out;
        for (const auto& [path, value] : m_values)
            if (const std::string now = realValue(path); now != value)
                out << QString::fromStdString(path + ": now '" + now + "', was '" + value + "'");
        return out;
    }
    /// changed() under the doctor's lock, when no session (of this test or another on the machine) has anything
    /// changed: what a doctor left behind, not what one is changing now. An empty list from a lock not taken in time
    /// would say nothing, so that is a line of its own.
    QStringList changedWhenNoDoctor() const
    {
        auto lock = waitForLock();
        if (!lock)
            return {"the doctor's lock was not free within 2 minutes: " + QString::fromStdString(lock.error().message)};
        return changed();
    }
    /// The doctor's lock, waited for up to @p timeoutMs.
    static doctor::Expected<doctor::JournalLock> waitForLock(int timeoutMs = 120000)
    {
        QElapsedTimer t;
        t.start();
        // On a machine where no doctor has run since boot, the lock's directory is not there yet: made as a doctor
        // makes it before it takes the lock.
        if (Error e = doctor::prepareJournalDir(doctor::JournalPaths{}))
            return e;
        auto lock = doctor::JournalLock::tryAcquire(doctor::JournalPaths{});
        while (!lock && t.elapsed() < timeoutMs) {
            QThread::msleep(20);
            lock = doctor::JournalLock::tryAcquire(doctor::JournalPaths{});
        }
        return lock;
    }
    /// Waits up to @p timeoutMs for changed() to be empty; how long it took, or -1.
    qint64 waitUntilRestored(int timeoutMs) const
    {
        QElapsedTimer t;
        t.start();
        while (!changed().isEmpty()) {
            if (t.elapsed() > timeoutMs)
                return -1;
            QThread::msleep(5);
        }
        return t.elapsed();
    }
    void restore() const
    {
        doctor::RootFs fs;
        const doctor::UndoReport r = doctor::undoJournal(fs, doctor::JournalPaths{});
        if (r.outcome != doctor::UndoReport::Outcome::NothingToDo && r.outcome != doctor::UndoReport::Outcome::Restored)
            qWarning("undo after the test: %s", r.sentence.c_str());
        // By hand only under the lock: another test's session may have changed the same knobs meanwhile.
        auto lock = waitForLock();
        if (!lock) {
            qWarning("could not take the doctor's lock to check the machine: %s", lock.error().message.c_str());
            return;
        }
        for (const auto& [path, value] : m_values) {
            const std::string now = realValue(path);
            if (now == value)
                continue;
            // THP modes read "[x]": the value to write is the marked one.
            std::string v = value;
            if (const size_t a = v.find('['); a != std::string::npos)
                v = v.substr(a + 1, v.find(']') - a - 1);
            std::ofstream(path) << v << "\n";
            qWarning("restored %s by hand: '%s' (it read '%s')", path.c_str(), value.c_str(), now.c_str());
        }
    }

private:
    std::map<std::string, std::string> m_values;
};

/// Captures @p record under the doctor's lock, when no journal is left behind: with one, the machine is not itself
/// (another test or doctor died with changes applied), and a record of it would make restore() put those changes back
/// after `--undo` removed them. Empty when captured; else why not, for the caller's QFAIL.
inline QString captureCleanMachine(RealMachineRecord& record)
{
    auto lock = RealMachineRecord::waitForLock();
    if (!lock)
        return "the doctor's lock was not free within 2 minutes: " + QString::fromStdString(lock.error().message);
    if (QFile::exists(QString::fromStdString(doctor::JournalPaths{}.journal())))
        return "a doctor's journal is left behind in /run/rtscope: the machine is not in its own state "
               "(rtscope doctor --undo puts it back)";
    record.capture();
    return {};
}

/// Declares @p record: the real machine's knobs as they are with no doctor running (captureCleanMachine(), which
/// waits for another test's doctor to end); the calling test fails when they cannot be read.
#define RTSCOPE_CLEAN_MACHINE(record)                                                                                  \
    rtscope::test::RealMachineRecord record;                                                                           \
    if (const QString whyNotClean = rtscope::test::captureCleanMachine(record); !whyNotClean.isEmpty())                \
    QFAIL(qPrintable(whyNotClean))

/// Begins a session on the real machine with the default journal (/run/rtscope), waiting up to @p timeoutMs while
/// another doctor (or another test) holds it: tests that change the real machine take turns through the same lock.
inline doctor::Expected<std::unique_ptr<doctor::DoctorSession>> beginRealSession(doctor::RootFs& fs,
                                                                                 int timeoutMs = 120000)
{
    QElapsedTimer t;
    t.start();
    for (;;) {
        auto s = doctor::DoctorSession::begin(fs, doctorOptions(QString::fromStdString(doctor::kDefaultJournalDir)));
        if (s || s.error().kind != ErrorKind::Unavailable || t.elapsed() > timeoutMs)
            return s;
        QThread::msleep(100);
    }
}

} // namespace rtscope::test
