#pragma once
// Small helpers more than one test unit needs. The units of an area are compiled together in unity files
// (tests/CMakeLists.txt), so a helper two units define for themselves under one name does not compile: it lives
// here instead.
#include "engine/rt/cpu_topology.h"

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace rtscope::test {

/// The problems a validation returned, as one line for a failure message.
inline QString joined(const std::vector<std::string>& problems)
{
    QStringList l;
    for (const auto& p : problems)
        l << QString::fromStdString(p);
    return l.join(" | ");
}

/// The CPUs this process may use that are online and not isolated, in order.
inline std::vector<int> usableCpus()
{
    const CpuTopology t = CpuTopology::current();
    std::vector<int> cpus;
    for (int c : t.allowed)
        if (t.usable(c))
            cpus.push_back(c);
    return cpus;
}

} // namespace rtscope::test
