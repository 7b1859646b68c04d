// SIGKILL of a doctor in the middle of a change, on this machine: a child process begins a real session (journal in
// /run/rtscope, the real guardian), changes timer migration, the workqueue mask, THP defrag, an IRQ's affinity and
// the cpu_dma_latency request, then writes one more knob and is killed before it could journal that write as done.
// The guardian puts everything back within 2 s (read back from the files; the measured time is printed). Killed
// together with its guardian, the doctor leaves the machine changed and the journal behind, and `rtscope doctor
// --undo` puts it back. The knobs are recorded before and put back by hand should a check fail (RealMachineRecord).
#include "engine/doctor/session.h"

#include "tests/common/doctor_test_util.h"
#include "tests/common/test_main.h"

#include <QtTest>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::doctor;
using rtscope::test::RealMachineRecord;
using rtscope::test::realValue;

namespace {

// A knob that makes its change and then stops the process before the session can journal it as applied: the
// instant a SIGKILL is the hardest on the journal (the entry still says "applying").
class StopAfterWriteKnob final : public Knob {
public:
    StopAfterWriteKnob(RootFs& fs, std::unique_ptr<Knob> inner, int notifyFd)
        : Knob(fs, inner->change())
        , m_inner(std::move(inner))
        , m_notify(notifyFd)
    {}
    std::string label() const override { return m_inner->label(); }
    Expected<std::string> read() const override { return m_inner->read(); }
    Error apply() override
    {
        if (Error e = m_inner->capture())
            return e;
        if (Error e = m_inner->apply())
            return e;
        (void)!::write(m_notify, "changed\n", 8);
        for (;;)
            ::pause();
    }
    Error revert() override { return m_inner->revert(); }
    std::string undoCommand() const override { return m_inner->undoCommand(); }

protected:
    Error write(const std::string&) override { return Error::none(); }

private:
    std::unique_ptr<Knob> m_inner;
    int m_notify;
};

void tell(int fd, const std::string& line)
{
    const std::string l = line + "\n";
    (void)!::write(fd, l.data(), l.size());
}

// The doctor in the child process: never returns.
[[noreturn]] void doctorChild(int notify)
{
    RootFs fs;
    auto s = test::beginRealSession(fs, 60000);
    if (!s) {
        tell(notify, "error " + s.error().message);
        ::_exit(1);
    }
    DoctorSession& session = **s;
    tell(notify, "guardian " + std::to_string(session.guardian().identity().pid));
    const auto apply = [&](Expected<std::unique_ptr<Knob>> k) {
        const Error e = k ? session.apply(std::move(k).value()) : k.error();
        if (e) {
            tell(notify, "error " + e.message);
            ::_exit(1);
        }
    };
    apply(sysctlKnob(fs, "kernel.timer_migration", realValue("/proc/sys/kernel/timer_migration") == "1" ? "0" : "1"));
    apply(workqueueCpumaskKnob(fs, {0}));
    apply(thpKnob(fs, "defrag", "never"));
    apply(cpuDmaLatencyKnob(fs, 0));
    // The first device IRQ the kernel lets move (a managed one refuses, changing nothing).
    for (const QString& irq : QDir("/proc/irq").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        auto k = irqAffinityKnob(fs, irq.toInt(), {0});
        if (k && realValue("/proc/irq/" + irq.toStdString() + "/smp_affinity_list") != "0" &&
            !session.apply(std::move(k).value())) {
            tell(notify, "irq " + irq.toStdString());
            break;
        }
    }
    auto last = sysctlKnob(fs, "kernel.watchdog_cpumask", "0");
    if (!last)
        ::_exit(1);
    const Error e = session.apply(std::make_unique<StopAfterWriteKnob>(fs, std::move(last).value(), notify));
    tell(notify, "error " + e.message); // apply() does not return unless it failed
    ::_exit(1);
}

struct Child {
    pid_t pid = -1;
    pid_t guardian = -1;
    QString irq;
    QString error;
};

// Forks the doctor and reads what it says until its last knob is written (or it fails).
Child startDoctor()
{
    Child c;
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0)
        return c;
    c.pid = ::fork();
    if (c.pid == 0) {
        ::close(p[0]);
        doctorChild(p[1]);
    }
    ::close(p[1]);
    std::string heard;
    char buf[512];
    for (;;) {
        pollfd pf{p[0], POLLIN, 0};
        if (::poll(&pf, 1, 90000) <= 0)
            break;
        const ssize_t n = ::read(p[0], buf, sizeof buf);
        if (n <= 0)
            break;
        heard.append(buf, size_t(n));
        if (heard.find("changed\n") != std::string::npos || heard.find("error ") != std::string::npos)
            break;
    }
    ::close(p[0]);
    for (const QString& line : QString::fromStdString(heard).split('\n')) {
        if (line.startsWith("guardian "))
            c.guardian = line.mid(9).toInt();
        else if (line.startsWith("irq "))
            c.irq = line.mid(4);
        else if (line.startsWith("error "))
            c.error = line.mid(6);
    }
    if (heard.find("changed\n") == std::string::npos && c.error.isEmpty())
        c.error = "the doctor said: " + QString::fromStdString(heard);
    return c;
}

void killAndReap(pid_t pid)
{
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
}

// Exited (a zombie counts: its parent may be the paused doctor, which reaps nothing).
bool gone(pid_t pid, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    for (;;) {
        const std::optional<ProcessIdentity> p = ProcessIdentity::of(pid);
        if (!p || !p->alive())
            return true;
        if (t.elapsed() > timeoutMs)
            return false;
        QThread::msleep(5);
    }
}

// Runs the binary under test with @p args; its exit code and standard output.
std::pair<int, QString> runRtscope(const QStringList& args)
{
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0)
        return {-1, {}};
    const std::string binary = qEnvironmentVariable("RTSCOPE_BINARY").toStdString();
    std::vector<std::string> a{binary};
    for (const QString& s : args)
        a.push_back(s.toStdString());
    std::vector<char*> argv;
    for (std::string& s : a)
        argv.push_back(s.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(p[1], STDOUT_FILENO);
        ::execv(binary.c_str(), argv.data());
        ::_exit(127);
    }
    ::close(p[1]);
    QByteArray out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(p[0], buf, sizeof buf)) > 0)
        out.append(buf, n);
    ::close(p[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, QString::fromUtf8(out)};
}

// `rtscope doctor --undo`, again while it finds the lock held (exit 1, "a doctor (PID …"): another test's session
// begins on this machine at any time, and even a session refused because of a journal left behind holds the lock for
// the instant it takes to look.
std::pair<int, QString> undoWhenFree()
{
    QElapsedTimer t;
    t.start();
    for (;;) {
        const auto [code, out] = runRtscope({"doctor", "--undo"});
        if (code != 1 || t.elapsed() > 120000)
            return {code, out};
        QThread::msleep(50);
    }
}

// Whether the journal in /run/rtscope is the one of the doctor @p pid.
bool journalOwnedBy(pid_t pid)
{
    QFile f(QString::fromStdString(JournalPaths{}.journal()));
    if (!f.open(QIODevice::ReadOnly))
        return false;
    const nlohmann::json j = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
    return j.is_object() && j.value("owner", nlohmann::json::object()).value("pid", 0) == pid;
}

// Waits until no doctor holds the lock or a journal, then records the machine: its values are then its own.
bool recordWhenNoDoctor(RealMachineRecord& record)
{
    RootFs fs;
    QElapsedTimer t;
    t.start();
    while (journalStatus(fs, JournalPaths{}).state != JournalState::None) {
        if (t.elapsed() > 120000)
            return false;
        QThread::msleep(100);
    }
    record.capture();
    return true;
}

} // namespace

class TestDoctorGuardian : public QObject {
    Q_OBJECT
private slots:
    void guardianRestoresAfterSigkill()
    {
        RealMachineRecord record;
        QVERIFY(recordWhenNoDoctor(record));
        const int32_t dmaBefore = test::dmaLatencyInForce();
        const Child c = startDoctor();
        QVERIFY2(c.error.isEmpty(), qPrintable(c.error));
        QVERIFY(!c.irq.isEmpty());
        const QStringList changed = record.changed();
        QVERIFY2(changed.size() == 5, qPrintable(changed.join("; "))); // 3 sysctl/sysfs + IRQ + watchdog_cpumask
        QCOMPARE(test::dmaLatencyInForce(), 0);

        // The guardian removes the journal once every change is put back and read back as before (Knob::revert
        // reads each one back), so the journal's end is the restore's end. The values are then read again under
        // the doctor's lock: another test's session may begin on this machine the moment the guardian has gone.
        QElapsedTimer sinceKill;
        sinceKill.start();
        killAndReap(c.pid);
        while (journalOwnedBy(c.pid) && sinceKill.elapsed() < 2000)
            QThread::msleep(1);
        const qint64 restoredMs = sinceKill.elapsed();
        qInfo("SIGKILL -> the guardian restored every change and removed the journal after %lld ms", restoredMs);
        QVERIFY2(restoredMs < 2000, "the journal of the killed doctor is still there after 2 s");
        const QStringList left = record.changedWhenNoDoctor();
        QVERIFY2(left.isEmpty(), qPrintable(left.join("; ")));
        QCOMPARE(test::dmaLatencyInForce(), dmaBefore); // the kernel dropped the request with the process
        QVERIFY(gone(c.guardian, 2000));
    }

    void undoRestoresAfterDoctorAndGuardianWereKilled()
    {
        RealMachineRecord record;
        QVERIFY(recordWhenNoDoctor(record));
        const Child c = startDoctor();
        QVERIFY2(c.error.isEmpty(), qPrintable(c.error));
        QVERIFY(c.guardian > 0);
        QCOMPARE(::kill(c.guardian, SIGKILL), 0); // the doctor's child, not ours: no waitpid here
        QVERIFY(gone(c.guardian, 2000));
        killAndReap(c.pid);
        QThread::msleep(300); // long enough for a guardian, had one survived
        const QStringList changed = record.changed();
        QVERIFY2(changed.size() == 5, qPrintable("left changed: " + changed.join("; ")));
        RootFs fs;
        const JournalStatus status = journalStatus(fs, JournalPaths{});
        QCOMPARE(int(status.state), int(JournalState::LeftBehind));

        const auto [code, out] = undoWhenFree();
        QVERIFY2(code == 0, qPrintable(out));
        QVERIFY2(out.contains("sysctl kernel.watchdog_cpumask: 0 -> ") && out.contains("(restored)") &&
                     out.contains("Restored 6 setting(s)"),
                 qPrintable(out));
        const QStringList left = record.changedWhenNoDoctor();
        QVERIFY2(left.isEmpty(), qPrintable(left.join("; ")));
        const auto [again, nothing] = undoWhenFree();
        QCOMPARE(again, 0);
        QVERIFY2(nothing.contains("Nothing to undo"), qPrintable(nothing));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestDoctorGuardian)
#include "tst_doctor_guardian.moc"
