#pragma once
// Runs the real rtscope binary (RTSCOPE_BINARY, set by ctest) as a child process for the CLI tests: exit code,
// standard output and standard error, with a timeout that kills a hung run instead of hanging the suite; and the
// checks every subcommand's test makes the same way (a refusal, the help, Ctrl-C, no real-time privilege).
#include "tests/common/test_skip.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <string>
#include <sys/types.h>
#include <unistd.h>

namespace rtscope::test {

struct Run {
    int exitCode = -1; ///< -1 when the process crashed or timed out
    QString out;
    QString err;
};

inline QString binary()
{
    return qEnvironmentVariable("RTSCOPE_BINARY");
}

/// Runs @p program (the rtscope binary by default) with @p args; @p env replaces the environment when given.
inline Run run(const QStringList& args, int timeoutMs = 40000, const QString& program = binary(),
               const QProcessEnvironment& env = QProcessEnvironment())
{
    QProcess p;
    if (!env.isEmpty())
        p.setProcessEnvironment(env);
    p.start(program, args);
    Run r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

inline QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Why `rtscope @p args` was not refused as bad input: exit code 2, @p expected in its standard error and nothing
/// on standard output (nothing ran). Empty when it was; @p result, when given, gets the run.
inline QString refusalProblem(const QStringList& args, const QString& expected, Run* result = nullptr)
{
    const Run r = run(args);
    if (result)
        *result = r;
    if (r.exitCode != 2)
        return QString("exit code %1, not 2; stderr: %2").arg(r.exitCode).arg(r.err);
    if (!r.err.contains(expected))
        return "stderr lacks '" + expected + "': " + r.err;
    if (!r.out.isEmpty())
        return "something ran: " + r.out;
    return {};
}

/// The columns of a table of refusals, each row checked by checkRefusalRow(): the arguments ("args", a QStringList)
/// and what standard error must say ("expected", a QString).
inline void addRefusalColumns()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
}

/// The running row of a table of refusals (addRefusalColumns()): `rtscope args` refused as bad input, saying
/// expected, as refusalProblem() checks. @p result, when given, gets the run. False, with the failure recorded, when
/// it was not.
inline bool checkRefusalRow(Run* result = nullptr)
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const QString problem = refusalProblem(args, expected, result);
    return QTest::qVerify(problem.isEmpty(), "refusalProblem(args, expected).isEmpty()", qPrintable(problem), __FILE__,
                          __LINE__);
}

/// The flags among @p flags that `rtscope @p command --help` does not mention (or why the help failed).
inline QStringList missingFromHelp(const QStringList& command, const QStringList& flags)
{
    const Run h = run(command + QStringList{"--help"});
    if (h.exitCode != 0)
        return {QString("--help exited with %1").arg(h.exitCode)};
    QStringList missing;
    for (const QString& flag : flags)
        if (!h.out.contains(flag))
            missing << flag;
    return missing;
}

/// Sends @p signal to @p p (unless it has ended), waits up to @p finishMs for it to exit (killing it after that) and
/// fills @p r: exitCode -1 when it crashed or had not exited. Returns how long after the signal it exited.
inline qint64 signalAndCollect(QProcess& p, int signal, int finishMs, Run& r)
{
    QElapsedTimer sinceSignal;
    sinceSignal.start();
    if (p.state() == QProcess::Running)
        ::kill(pid_t(p.processId()), signal);
    const bool exited = p.waitForFinished(finishMs);
    const qint64 after = sinceSignal.elapsed();
    if (!exited) {
        p.kill();
        p.waitForFinished();
    }
    r.exitCode = exited && p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return after;
}

/// Starts rtscope with @p args, sends it @p signal after @p afterMs (unless it has ended by then) and waits up to
/// @p finishMs for it to exit. exitCode is -1 when it crashed or had not exited by then; @p exitedAfterMs, when
/// given, gets how long after the signal it exited.
inline Run runAndInterrupt(const QStringList& args, int afterMs, int signal, int finishMs = 3000,
                           qint64* exitedAfterMs = nullptr)
{
    QProcess p;
    p.start(binary(), args);
    Run r;
    if (!p.waitForStarted()) {
        r.err = "did not start";
        return r;
    }
    p.waitForFinished(afterMs); // a sleep that ends early if the run does
    const qint64 after = signalAndCollect(p, signal, finishMs, r);
    if (exitedAfterMs)
        *exitedAfterMs = after;
    return r;
}

/// A copy of the binary in a directory nobody (uid 65534) may enter, made once per test process: the build tree may
/// be under a home directory nobody cannot enter (a clone in /root, as on a fresh machine, is mode 700). Empty, and
/// @p skip saying why, when it cannot be made.
inline QString binaryNobodyMayRun(MaybeSkip& skip)
{
    static QTemporaryDir copyDir;
    const QString copy = copyDir.filePath("rtscope");
    if (!QFile::exists(copy)) {
        const auto rx = QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                        QFileDevice::ReadGroup | QFileDevice::ExeGroup | QFileDevice::ReadOther | QFileDevice::ExeOther;
        if (!copyDir.isValid() || !QFile::copy(binary(), copy) || !QFile::setPermissions(copyDir.path(), rx) ||
            !QFile::setPermissions(copy, rx)) {
            skip = Skip{SkipKind::Other, "cannot copy the binary to a directory nobody may enter"};
            return {};
        }
    }
    return copy;
}

/// Runs rtscope with @p args as a user without real-time privilege: nobody, RLIMIT_RTPRIO 0, no capabilities
/// (setpriv and prlimit). When that cannot be done here (not root, no setpriv(1), or nobody may not run the
/// binary) @p skip says why, for the caller's RTSCOPE_SKIP_IF.
inline Run runWithoutRtPrivilege(const QStringList& args, MaybeSkip& skip)
{
    if (geteuid() != 0) {
        skip = Skip{SkipKind::Root, "only root may drop to an unprivileged user (nobody) for this check"};
        return {};
    }
    const QString setpriv = QStandardPaths::findExecutable("setpriv");
    if (setpriv.isEmpty()) {
        skip = Skip{SkipKind::Tool, "setpriv(1) (util-linux) is not installed: it drops to nobody for this check"};
        return {};
    }
    const QString copy = binaryNobodyMayRun(skip);
    if (copy.isEmpty())
        return {};
    const QStringList asNobody{"--reuid=65534",       "--regid=65534", "--clear-groups", "--inh-caps=-all",
                               "--bounding-set=-all", "prlimit",       "--rtprio=0",     copy};
    const Run r = run(asNobody + args, 30000, setpriv);
    if (r.exitCode == -1 || (r.err.contains("Permission denied") && !r.err.contains("rtscope")))
        skip = Skip{SkipKind::Other, "cannot run the binary as nobody here: " + r.err};
    return r;
}

/// The command that starts this build's agent on pipes, `rtscope agent --stdio` and then @p flags, as --target-cmd
/// and spawnAgentProcess() take it. exec: the agent replaces the shell, so its pid is the child's (for the thread
/// census).
inline std::string agentStdioCommand(const std::string& flags = {})
{
    return "exec '" + binary().toStdString() + "' agent --stdio" + (flags.empty() ? "" : " " + flags);
}

/// The start of a unit that talks to `rtscope agent --stdio` over pipes: RTSCOPE_BINARY must name the built rtscope,
/// and a write to an agent that has gone fails (EPIPE) instead of killing the test (SIGPIPE ignored).
inline void setUpAgentPipes()
{
    QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope");
    std::signal(SIGPIPE, SIG_IGN);
}

/// The base of a CLI unit's test class: a scratch folder, and setUp() for initTestCase, which checks that
/// RTSCOPE_BINARY names the built rtscope and that the folder is there.
class CliTest : public QObject {
protected:
    QTemporaryDir m_dir;
    QString path(const char* name) const { return m_dir.filePath(name); }

    void setUp()
    {
        QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope");
        QVERIFY(m_dir.isValid());
    }
};

} // namespace rtscope::test
