#pragma once
// Counts this process's threads by name, from /proc/self/task/*/comm: the tests' proof that every worker an
// experiment started has been joined (rtscope names its threads "rtscope-…").
//
// pthread_join() returns when the kernel clears the thread's tid, part-way through its exit; the task stays
// listed in /proc/self/task a little longer, until it is reaped. A task whose flags carry PF_EXITING (set as
// do_exit() begins) has run its last user instruction, so it no longer counts.
#include <QDir>
#include <QFile>
#include <QString>

#include <sys/types.h>

namespace rtscope::test {

/// True when the task at @p taskDir (/proc/self/task/TID) is gone or has PF_EXITING in its flags.
inline bool exiting(const QString& taskDir)
{
    QFile stat(taskDir + "/stat");
    if (!stat.open(QIODevice::ReadOnly))
        return true;
    const QByteArray text = stat.readAll();
    // After "pid (comm) ": state ppid pgrp session tty_nr tpgid flags …
    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    constexpr unsigned long kPfExiting = 0x4;
    return fields.size() > 6 && (fields[6].toULong() & kPfExiting) != 0;
}

/// Threads alive whose name starts with @p prefix ("rtscope-" counts every worker, the control thread and the
/// collector), or is exactly @p prefix when @p exact.
inline int threadsAlive(const char* prefix = "rtscope-", bool exact = false)
{
    int n = 0;
    const QDir tasks("/proc/self/task");
    for (const QString& tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(tid) + "/comm");
        if (!comm.open(QIODevice::ReadOnly))
            continue;
        const QByteArray name = comm.readAll().trimmed();
        if (exact ? name != prefix : !name.startsWith(prefix))
            continue;
        if (!exiting(tasks.filePath(tid)))
            ++n;
    }
    return n;
}

/// Tasks of another process @p pid that are alive and not exiting (the rule above); 0 when the process is gone or a
/// zombie. The agent tests' thread census of the agent child.
inline int liveTasksOf(pid_t pid)
{
    const QString dir = QString("/proc/%1/task").arg(pid);
    int n = 0;
    for (const QString& tid : QDir(dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        if (!exiting(dir + "/" + tid))
            ++n;
    return n;
}

} // namespace rtscope::test
