// ctest: parallel. Forks a fake 'rtscope-measure' process; checks by PID.
// Another rtscope measuring on the same CPU is found in /proc: a child process whose thread is named like
// rtscope's measuring thread and pinned to a CPU is reported for that CPU, with its PID, and not for a CPU it
// cannot run on; the calling process's own measuring threads are not "another instance".
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_threads.h"

#include "tests/common/test_main.h"

#include <QThread>
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace rtscope;

namespace {

// A child process whose only thread is named kMeasuringThreadName and pinned to @p cpu; killed on destruction.
class FakeInstance {
public:
    explicit FakeInstance(int cpu)
    {
        int ready[2];
        if (pipe(ready) != 0)
            return;
        m_pid = fork();
        if (m_pid == 0) {
            // Only system calls from here on: the parent has other threads.
            prctl(PR_SET_NAME, kMeasuringThreadName, 0, 0, 0);
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            sched_setaffinity(0, sizeof set, &set);
            const char c = 1;
            (void)!write(ready[1], &c, 1);
            for (;;)
                pause();
        }
        close(ready[1]);
        char c = 0;
        m_ready = m_pid > 0 && read(ready[0], &c, 1) == 1;
        close(ready[0]);
    }
    ~FakeInstance()
    {
        if (m_pid > 0) {
            kill(m_pid, SIGKILL);
            waitpid(m_pid, nullptr, 0);
        }
    }
    bool ready() const { return m_ready; }
    pid_t pid() const { return m_pid; }

private:
    pid_t m_pid = -1;
    bool m_ready = false;
};

bool hasPid(const std::vector<SystemThread>& threads, pid_t pid)
{
    return std::any_of(threads.begin(), threads.end(), [&](const SystemThread& t) { return t.pid == pid; });
}

} // namespace

class TestOtherInstances : public QObject {
    Q_OBJECT
private slots:
    void findsAnotherProcessMeasuringOnTheCpu()
    {
        const CpuTopology topo = CpuTopology::current();
        const int cpu = topo.lastUsable();
        QVERIFY(cpu >= 0);
        FakeInstance other(cpu);
        QVERIFY(other.ready());
        const std::vector<SystemThread> found = threadsNamedOnCpus(kMeasuringThreadName, {cpu}, getpid());
        QVERIFY2(hasPid(found, other.pid()), "the other process's measuring thread was not found");
        for (const SystemThread& t : found)
            if (t.pid == other.pid()) {
                QCOMPARE(t.tid, other.pid());
                QCOMPARE(QString::fromStdString(t.allowedCpus), QString::number(cpu));
            }
        const int elsewhere = topo.otherThan({cpu});
        if (elsewhere >= 0) {
            // Pinned to `cpu` and (after the affinity change) running there: nothing to say about another CPU.
            bool reported = true;
            for (int i = 0; i < 50 && reported; ++i) {
                reported = hasPid(threadsNamedOnCpus(kMeasuringThreadName, {elsewhere}, getpid()), other.pid());
                if (reported)
                    QThread::msleep(20); // its last CPU may still be the one it was forked on
            }
            QVERIFY2(!reported, "reported for a CPU it may not run on");
        }
    }

    void ownThreadsAreNotAnotherInstance()
    {
        std::atomic<bool> named{false}, stop{false};
        std::thread t([&] {
            pthread_setname_np(pthread_self(), kMeasuringThreadName);
            named = true;
            while (!stop)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
        });
        while (!named)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const std::vector<int> all = CpuTopology::current().online;
        const bool excluded = !hasPid(threadsNamedOnCpus(kMeasuringThreadName, all, getpid()), getpid());
        const bool seenWhenAsked = hasPid(threadsNamedOnCpus(kMeasuringThreadName, all, 0), getpid());
        stop = true;
        t.join();
        QVERIFY(excluded);
        QVERIFY(seenWhenAsked);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestOtherInstances)
#include "tst_other_instances.moc"
