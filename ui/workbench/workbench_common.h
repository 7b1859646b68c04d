#pragma once
// Small pieces the three workbench pages (per-CPU, RT threads, sweep) share, so none of them copies another: engine
// sentences as Qt strings, the usable CPUs with the GUI thread's own affinity lent back, one colour per compared
// curve, the words that mark a CPU the kernel keeps apart, and the look of the stats tables and loss banners.
#include "engine/rt/cpu_topology.h"

#include <QColor>
#include <QStringList>

#include <string>
#include <vector>

class QLabel;
class QPalette;
class QTableView;

namespace rtscope {

struct SystemProbe;

namespace workbench {

QStringList toQt(const std::vector<std::string>& sentences);

/// The CPUs a config may use. The engine reads the calling thread's affinity, and the main window may have parked
/// the GUI thread off a busy CPU, which must not shrink what a config may use.
CpuTopology usableCpus();

/// A distinct colour for the @p index-th of several compared curves (CPUs, settings): the histogram line, the table
/// swatch and the heat-strip row share it. Blue and orange first, as on the latency page.
QColor curveColor(int index, const QPalette& palette);

/// "isolated · nohz_full" for a CPU the kernel keeps apart (isolcpus=, nohz_full=), empty for an ordinary one.
QString cpuNote(const SystemProbe& probe, int cpu);

/// The red banner that says data was lost (dropped samples, sequence gaps); hidden while @p text is empty.
void styleLossWarning(QLabel* label);
void setLossWarning(QLabel* label, const QString& text);

/// A statistics table for a lecture hall: larger type, bold header, no selection, swatches in the first column.
void styleStatsTable(QTableView* table);
/// Exactly the header and @p rows rows tall (at most @p maxRows; more scroll), so the charts get the rest.
void fitTableHeight(QTableView* table, int rows, int maxRows = 8);

} // namespace workbench
} // namespace rtscope
