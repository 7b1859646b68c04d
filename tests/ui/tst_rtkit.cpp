// Real-time priority from rtkit (ui/common/rtkit_client.*) against a real rtkit-daemon on a private system bus that
// this test starts: dbus-daemon with a system-like config, polkitd (rtkit asks it; it authorizes root) and
// rtkit-daemon. The test thread then gives up CAP_SYS_NICE and RLIMIT_RTPRIO (tests/common/privilege_drop.h), so the
// kernel refuses SCHED_FIFO, and a grantable RtThread gets it from rtkit. ctest runs this unit in its own process,
// and RLIMIT_RTTIME, which the client lowers, is put back.
#include "engine/rt/rt_environment.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "tests/common/privilege_drop.h"
#include "ui/common/rtkit_client.h"
#include "ui/system_panel.h"

#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include <QAbstractButton>
#include <QApplication>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QFile>
#include <QMessageBox>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>

#include <QtTest>

#include <sched.h>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

using namespace rtscope;

namespace {

const char* const kRtkitDaemon = "/usr/libexec/rtkit-daemon";
const char* const kPolkitDaemon = "/usr/lib/polkit-1/polkitd";
constexpr int kRtkitMax = 20;

// A thread that blocks every millisecond until stopped, as a measuring thread does.
Error startSleeper(RtThread& t, int priority, bool grantable)
{
    ThreadSpec spec;
    spec.policy = Policy::Fifo;
    spec.priority = priority;
    spec.cpu = onlineCpuList().front();
    spec.name = "rtscope-rtkit";
    spec.grantable = grantable;
    return t.start(spec, [](const std::atomic<bool>& stop) {
        while (!stop.load(std::memory_order_acquire))
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
}

} // namespace

class TestRtkit : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QProcess m_bus, m_polkit, m_rtkit;
    QString m_address;
    test::MaybeSkip m_skip; // why the daemons are not there, for every test that needs them
    rlimit m_rttime{};
    std::shared_ptr<RtkitGrant> m_grant;

    static bool waitForName(const QString& address, const QString& name)
    {
        QDBusConnection bus = QDBusConnection::connectToBus(address, "tst-rtkit-watch");
        bool up = false;
        for (int i = 0; i < 300 && !up; ++i) {
            up = bus.isConnected() && bus.interface()->isServiceRegistered(name).value();
            if (!up)
                QThread::msleep(30);
        }
        QDBusConnection::disconnectFromBus("tst-rtkit-watch");
        return up;
    }

    test::MaybeSkip startDaemons()
    {
        using test::Skip, test::SkipKind;
        if (geteuid() != 0)
            return Skip{SkipKind::Root, "rtkit-daemon and polkitd need root to start on a private bus"};
        for (const char* bin : {kRtkitDaemon, kPolkitDaemon})
            if (!QFile::exists(bin))
                return Skip{SkipKind::Tool, QString("%1 is not installed (apt-get install rtkit polkitd)").arg(bin)};
        if (QStandardPaths::findExecutable("dbus-daemon").isEmpty())
            return Skip{SkipKind::Tool, "dbus-daemon is not installed (apt-get install dbus-daemon)"};
        // polkitd drops to its own user before it connects: the bus socket's directory must be searchable by it
        // (a QTemporaryDir is 0700).
        QFile::setPermissions(m_dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                                                QFileDevice::ReadOther | QFileDevice::ExeOther |
                                                QFileDevice::ReadGroup | QFileDevice::ExeGroup);
        QFile conf(m_dir.filePath("bus.conf"));
        if (!conf.open(QIODevice::WriteOnly))
            return Skip{SkipKind::Other, "cannot write the bus config in " + m_dir.path()};
        conf.write(QString("<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\" "
                           "\"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
                           "<busconfig><type>system</type><listen>unix:dir=%1</listen><auth>EXTERNAL</auth>"
                           "<policy context=\"default\"><allow user=\"*\"/><allow own=\"*\"/>"
                           "<allow send_destination=\"*\"/><allow receive_sender=\"*\"/></policy></busconfig>\n")
                       .arg(m_dir.path())
                       .toUtf8());
        conf.close();
        m_bus.start("dbus-daemon", {"--config-file=" + conf.fileName(), "--nofork", "--print-address=1"});
        if (!m_bus.waitForStarted(3000) || !m_bus.waitForReadyRead(5000))
            return Skip{SkipKind::Other, "dbus-daemon did not start: " + m_bus.errorString() + " " +
                                             QString::fromUtf8(m_bus.readAllStandardError())};
        m_address = QString::fromUtf8(m_bus.readLine()).trimmed();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("DBUS_SYSTEM_BUS_ADDRESS", m_address);
        m_polkit.setProcessEnvironment(env);
        // polkitd leaves when its standard input reaches end of file or errors (it treats stdin as its controlling
        // channel); QProcess's default stdin pipe does that, /dev/null keeps it up.
        m_polkit.setStandardInputFile(QProcess::nullDevice());
        m_polkit.start(kPolkitDaemon, {"--no-debug"});
        if (!waitForName(m_address, "org.freedesktop.PolicyKit1"))
            return Skip{
                SkipKind::Other,
                QString("polkitd did not take its name on the private bus (%1, exit code %2): %3")
                    .arg(m_polkit.state() == QProcess::Running          ? "running"
                         : m_polkit.exitStatus() == QProcess::CrashExit ? "killed by a signal"
                                                                        : "exited")
                    .arg(m_polkit.exitCode())
                    .arg(QString::fromUtf8(m_polkit.readAllStandardError() + m_polkit.readAllStandardOutput()))};
        // Without a canary, a chroot or dropped privileges (no rtkit user needed), without its resource limits
        // (RLIMIT_FSIZE 0 kills it when it logs to a file); FIFO so the test checks the policy it asked for.
        m_rtkit.setProcessEnvironment(env);
        m_rtkit.start(kRtkitDaemon,
                      {"--stderr", "--no-canary", "--no-drop-privileges", "--no-chroot", "--no-limit-resources",
                       "--scheduling-policy=FIFO", QString("--max-realtime-priority=%1").arg(kRtkitMax),
                       QString("--our-realtime-priority=%1").arg(kRtkitMax + 1)});
        if (!waitForName(m_address, "org.freedesktop.RealtimeKit1"))
            return Skip{SkipKind::Other, "rtkit-daemon did not take its name on the private bus: " +
                                             QString::fromUtf8(m_rtkit.readAllStandardError())};
        return std::nullopt;
    }

private slots:
    void initTestCase()
    {
        getrlimit(RLIMIT_RTTIME, &m_rttime);
        m_skip = startDaemons();
        if (m_skip)
            return;
        SystemProbe probe;
        probe.rtAvailable = false;
        probe.rtUnavailableReason = "RLIMIT_RTPRIO is 0.";
        m_grant = installRtkitGrant(probe, m_address);
        if (!m_grant)
            m_skip = test::Skip{test::SkipKind::Other, "rtkit on the private bus does not answer: " + probe.rtPath};
    }

    void cleanupTestCase()
    {
        setRealtimeGrant(nullptr);
        m_grant.reset();
        for (QProcess* p : {&m_rtkit, &m_polkit, &m_bus}) {
            if (p->state() == QProcess::NotRunning)
                continue;
            p->terminate();
            if (!p->waitForFinished(2000)) {
                p->kill();
                p->waitForFinished(2000);
            }
        }
    }

    void cleanup()
    {
        setrlimit(RLIMIT_RTTIME, &m_rttime); // the client lowered the soft limit
        if (m_grant)
            m_grant->setUseCeiling(false);
    }

    void noRtkitOnTheBus()
    {
        SystemProbe probe;
        probe.rtAvailable = false;
        probe.rtUnavailableReason = "RLIMIT_RTPRIO is 0.";
        const auto none = installRtkitGrant(probe, "unix:path=" + m_dir.filePath("no-such-bus"));
        QVERIFY(!none);
        QVERIFY2(probe.rtPath.starts_with("not available: RLIMIT_RTPRIO is 0. Asked rtkit too: "),
                 probe.rtPath.c_str());
        QVERIFY(SystemPanel::rows(probe).contains(qMakePair(QString("RT path"), QString::fromStdString(probe.rtPath))));

        SystemProbe kernel;
        kernel.rtAvailable = true;
        kernel.rtPath = "CAP_SYS_NICE";
        QVERIFY(!installRtkitGrant(kernel, "unix:path=" + m_dir.filePath("no-such-bus"))); // not even asked
        QVERIFY(SystemPanel::rows(kernel).contains(qMakePair(QString("RT path"), QString("CAP_SYS_NICE"))));
    }

    void limitsAndPanel()
    {
        RTSCOPE_SKIP_IF(m_skip);
        QCOMPARE(m_grant->limits().maxPriority, kRtkitMax);
        QCOMPARE(m_grant->limits().rttimeUsecMax, 200000); // rtkit's default RTTimeUSecMax
        QCOMPARE(realtimeGrant(), std::static_pointer_cast<RealtimeGrant>(m_grant));
        SystemProbe probe;
        probe.rtPath = "rtkit, priority ≤ 20";
        QVERIFY(SystemPanel::rows(probe).contains(qMakePair(QString("RT path"), QString("rtkit, priority ≤ 20"))));
    }

    // A probe read from a recording or a target's hello has no path: the row says so, and never "not available"
    // beside an "available".
    void probeFromElsewhereHasNoPath()
    {
        SystemProbe recorded;
        recorded.rtAvailable = true;
        QVERIFY(SystemPanel::rows(recorded).contains(
            qMakePair(QString("RT path"), QString("available (path not recorded)"))));
        recorded.rtAvailable = false;
        recorded.rtUnavailableReason = "RLIMIT_RTPRIO is 0";
        QVERIFY(SystemPanel::rows(recorded).contains(
            qMakePair(QString("RT path"), QString("not available: RLIMIT_RTPRIO is 0"))));
    }

    void grantsFifoWithoutPrivilege()
    {
        RTSCOPE_SKIP_IF(m_skip);
        test::WithoutRealtimePrivilege drop;
        QVERIFY2(drop.ok(), "could not drop CAP_SYS_NICE and RLIMIT_RTPRIO");

        // Not grantable (a busy-wait thread, a hog): the kernel's refusal stands, rtkit is not asked.
        RtThread refused;
        const Error e = startSleeper(refused, 10, false);
        QVERIFY(e);
        QVERIFY2(e.message.find("permission denied") != std::string::npos, e.message.c_str());
        // (the thread is named rtscope-rtkit: look for the sentence a refused grant adds, "rtkit (priority ≤ N)
        // refused")
        QVERIFY2(e.message.find("refused too") == std::string::npos, e.message.c_str());

        RtThread t;
        const Error ok = startSleeper(t, 10, true);
        QVERIFY2(!ok, ok.message.c_str());
        QVERIFY(t.granted());
        const int raw = sched_getscheduler(t.tid());
        QCOMPARE(raw & ~SCHED_RESET_ON_FORK, SCHED_FIFO);
        QVERIFY(raw & SCHED_RESET_ON_FORK); // rtkit's mark
        const SchedState st = schedulingOf(t.tid());
        QCOMPARE(st.policy, Policy::Fifo);
        QCOMPARE(st.priority, 10);
        QCOMPARE(t.spec().priority, 10);
        rlimit rt{};
        getrlimit(RLIMIT_RTTIME, &rt);
        QVERIFY(rt.rlim_cur != RLIM_INFINITY && rt.rlim_cur <= 200000);
        QVERIFY(t.stop());
    }

    void aboveTheMaximumOnlyWithConsent()
    {
        RTSCOPE_SKIP_IF(m_skip);
        test::WithoutRealtimePrivilege drop;
        QVERIFY(drop.ok());
        RtThread t;
        const Error e = startSleeper(t, 50, true);
        QVERIFY(e);
        QVERIFY2(e.message.find("rtkit (priority ≤ 20) refused too: it gives priorities up to 20") != std::string::npos,
                 e.message.c_str());
        QVERIFY(e.message.find("asks for 50") != std::string::npos);

        // The dialog: "No" keeps the refusal, "Yes" runs at rtkit's maximum.
        for (const auto button : {QMessageBox::No, QMessageBox::Yes}) {
            if (button == QMessageBox::Yes)
                QVERIFY(startSleeper(t, 50, true)); // refused again, so there is something to offer
            QTimer::singleShot(50, [button] {
                if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget()))
                    box->button(button)->click();
            });
            QCOMPARE(offerRtkitCeiling(nullptr), button == QMessageBox::Yes);
        }
        QVERIFY(m_grant->useCeiling());
        QVERIFY(!offerRtkitCeiling(nullptr)); // nothing refused since
        const Error ok = startSleeper(t, 50, true);
        QVERIFY2(!ok, ok.message.c_str());
        QCOMPARE(schedulingOf(t.tid()).priority, kRtkitMax);
        QCOMPARE(t.spec().priority, kRtkitMax);
        QVERIFY(t.stop());
    }

    void kernelPathUnchanged()
    {
        // With the privilege (root here), the kernel gives the policy: rtkit is installed but not asked, and its
        // maximum does not apply.
        RTSCOPE_SKIP_IF(m_skip);
        RTSCOPE_SKIP_IF(test::withoutFifo(probeSystem()));
        RtThread t;
        const Error ok = startSleeper(t, 50, true);
        QVERIFY2(!ok, ok.message.c_str());
        QVERIFY(!t.granted());
        QCOMPARE(sched_getscheduler(t.tid()), SCHED_FIFO);
        QCOMPARE(schedulingOf(t.tid()).priority, 50);
        QVERIFY(t.stop());
    }
};

RTSCOPE_TEST_MAIN(TestRtkit)
#include "tst_rtkit.moc"
