#pragma once
// Small helpers both lock-lab pages use.
#include "engine/rt/cpu_topology.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <string>
#include <vector>

namespace rtscope {

QStringList toQStringList(const std::vector<std::string>& lines);
/// A configured duration as the controls show it ("1 µs", "1.5 ms").
QString durationText(int64_t ns);
/// The CPUs a config may use. The engine reads the calling thread's affinity, and the main window may have parked
/// the GUI thread off a busy CPU, which must not shrink what a config may use.
CpuTopology unpinnedTopology();

} // namespace rtscope
