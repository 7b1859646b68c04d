#pragma once
// Small pieces the three workbench pages (per-CPU, RT threads, sweep) share, so none of them copies another: the
// words that mark a CPU the kernel keeps apart, and the look of the stats tables. What every lab uses (engine
// sentences as Qt strings, the usable CPUs, the curve colours, the loss banner) is in ui/common.
#include <QString>

class QTableView;

namespace rtscope {

struct SystemProbe;

namespace workbench {

/// "isolated · nohz_full" for a CPU the kernel keeps apart (isolcpus=, nohz_full=), empty for an ordinary one.
QString cpuNote(const SystemProbe& probe, int cpu);

/// A statistics table for a lecture hall: larger type, bold header, no selection, swatches in the first column.
void styleStatsTable(QTableView* table);
/// Exactly the header and @p rows rows tall (at most @p maxRows; more scroll), so the charts get the rest.
void fitTableHeight(QTableView* table, int rows, int maxRows = 8);

} // namespace workbench
} // namespace rtscope
