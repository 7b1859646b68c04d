// ctest: parallel. Thread listing and escaping; its own sleeping FIFO 1 thread only.
// `rtscope threads` prints names any user chooses (prctl PR_SET_NAME, /proc/PID/task/TID/comm): one that carries a
// terminal escape sequence (retitle the window, clear the screen) or a right-to-left override reaches the terminal
// escaped, as text from a file does, never raw; `--json` stays the real name.
#include "tests/common/cli_process.h"

#include "tests/common/test_main.h"

#include <QFile>
#include <QtTest>

#include <atomic>
#include <nlohmann/json.hpp>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <thread>
#include <unistd.h>

using namespace rtscope::test;

namespace {

// The hostile names: 14 and 12 bytes, within the kernel's 15 (TASK_COMM_LEN 16, the NUL included).
const QByteArray kRetitle("\x1b]0;OWNED\x07\x1b[2J");
const QByteArray kOverride("ab\xe2\x80\xaetxt.exe");

// A thread of this process named @p name for its life: by prctl(PR_SET_NAME) from itself, or by writing its
// /proc/self/task/TID/comm from another thread (either is open to any user for their own tasks).
class NamedThread {
public:
    NamedThread(QByteArray name, bool viaProc)
        : m_name(std::move(name))
    {
        m_thread = std::thread([this, viaProc] {
            m_tid = int(gettid());
            if (!viaProc)
                prctl(PR_SET_NAME, m_name.constData(), 0, 0, 0);
            m_ready = true;
            while (!m_stop)
                usleep(10'000);
        });
        while (!m_ready)
            usleep(1000);
        if (viaProc) {
            QFile comm(QString("/proc/self/task/%1/comm").arg(m_tid));
            m_named = comm.open(QIODevice::WriteOnly) && comm.write(m_name) == m_name.size();
        } else {
            m_named = true;
        }
    }
    ~NamedThread()
    {
        m_stop = true;
        m_thread.join();
    }
    NamedThread(const NamedThread&) = delete;
    NamedThread& operator=(const NamedThread&) = delete;

    /// SCHED_FIFO 1, so the default listing (real-time threads only) shows it too. False without the privilege.
    bool makeRealtime()
    {
        sched_param p{};
        p.sched_priority = 1;
        return pthread_setschedparam(m_thread.native_handle(), SCHED_FIFO, &p) == 0;
    }
    bool named() const { return m_named; }
    int tid() const { return m_tid; }

private:
    QByteArray m_name;
    std::atomic<bool> m_ready{false};
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_tid{0};
    bool m_named = false;
    std::thread m_thread;
};

// Why @p out is not safe for a terminal, or empty: no ESC, BEL or U+202E byte sequence.
QByteArray rawProblem(const QByteArray& out)
{
    if (out.contains('\x1b'))
        return "an ESC byte reached the terminal";
    if (out.contains('\x07'))
        return "a BEL byte reached the terminal";
    if (out.contains("\xe2\x80\xae"))
        return "a right-to-left override reached the terminal";
    return {};
}

} // namespace

class TestThreadsCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope"); }

    void hostileNamesAreEscaped()
    {
        NamedThread retitle(kRetitle, false);
        NamedThread rtl(kOverride, true);
        QVERIFY(retitle.named() && rtl.named());
        QVERIFY2(retitle.makeRealtime(), "SCHED_FIFO 1 refused: the suite runs as root");

        // The default listing (real-time and interrupt threads): the FIFO thread, and the placement line that
        // names its nearest neighbours (it is the lowest: "highest: … at 1" below priority 2).
        const Run rt = run({"threads", "--policy", "fifo", "-p", "2"});
        QCOMPARE(rt.exitCode, 0);
        const QByteArray rtOut = rt.out.toUtf8();
        QVERIFY2(rawProblem(rtOut).isEmpty(), rawProblem(rtOut).constData());
        QVERIFY2(rtOut.contains(QByteArray::number(retitle.tid()) + "  \\x1b]0;OWNED\\x0"), rtOut.constData());

        // Every thread: both names, escaped.
        const Run all = run({"threads", "--all"});
        QCOMPARE(all.exitCode, 0);
        const QByteArray allOut = all.out.toUtf8();
        QVERIFY2(rawProblem(allOut).isEmpty(), rawProblem(allOut).constData());
        QVERIFY2(allOut.contains("ab\\xe2\\x80\\xaetxt."), allOut.constData()); // cut to the 18 columns

        // --json keeps the real name (JSON escapes the control bytes itself).
        const Run json = run({"threads", "--all", "--json"});
        QCOMPARE(json.exitCode, 0);
        QVERIFY2(!json.out.toUtf8().contains('\x1b'), "--json printed a raw ESC");
        const nlohmann::json listed = nlohmann::json::parse(json.out.toStdString());
        bool found = false;
        for (const nlohmann::json& t : listed.at("threads"))
            found = found || t.at("name").get<std::string>() == kOverride.toStdString();
        QVERIFY2(found, "--json lost the real name");
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestThreadsCli)
#include "tst_threads_cli.moc"
