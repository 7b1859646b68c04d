#pragma once
// Runs the real rtscope binary (RTSCOPE_BINARY, set by ctest) as a child process for the CLI tests: exit code,
// standard output and standard error, with a timeout that kills a hung run instead of hanging the suite.
#include <QByteArray>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

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

} // namespace rtscope::test
