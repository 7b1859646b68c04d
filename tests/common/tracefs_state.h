#pragma once
// What the tracing tests read of tracefs to check that a session leaves it as it found it: the top-level settings
// and the instances this process made.
#include <QDir>
#include <QString>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace rtscope::test {

/// The text of the file at @p path; empty when it cannot be read.
inline std::string tracefsFileText(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

/// The top-level settings of the tracefs at @p dir that a session must never change, file by file.
inline std::map<std::string, std::string> tracefsGlobalSettings(const std::string& dir)
{
    std::map<std::string, std::string> out;
    for (const char* f : {"tracing_on", "current_tracer", "set_event", "trace_clock", "events/enable",
                          "tracing_cpumask", "buffer_size_kb", "set_event_pid", "trace_options",
                          "events/sched/sched_switch/enable", "events/irq/enable", "events/timer/enable"})
        out[f] = tracefsFileText(dir + "/" + f);
    return out;
}

/// This process's instances in the tracefs at @p dir ("instances/rtscope-<pid>-<n>"), as paths.
inline std::vector<std::string> tracefsOurInstances(const std::string& dir)
{
    std::vector<std::string> out;
    const QString prefix = QString("rtscope-%1-").arg(getpid());
    for (const QString& name : QDir(QString::fromStdString(dir + "/instances")).entryList(QDir::Dirs))
        if (name.startsWith(prefix))
            out.push_back(dir + "/instances/" + name.toStdString());
    return out;
}

} // namespace rtscope::test
