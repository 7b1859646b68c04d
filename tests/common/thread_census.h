#pragma once
// Counts this process's threads by name, from /proc/self/task/*/comm: the tests' proof that every worker an
// experiment started has been joined (rtscope names its threads "rtscope-…").
#include <QDir>
#include <QFile>
#include <QString>

namespace rtscope::test {

inline int threadsAlive(const char* prefix = "rtscope-")
{
    int n = 0;
    const QDir tasks("/proc/self/task");
    for (const QString& tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(tid) + "/comm");
        if (comm.open(QIODevice::ReadOnly) && comm.readAll().startsWith(prefix))
            ++n;
    }
    return n;
}

} // namespace rtscope::test
