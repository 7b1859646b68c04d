#pragma once
// cyclictest results made elsewhere (`-h` histogram text or `--json`, measured on a target board, say) turned
// into what the latency page holds as its reference: the histogram curve, the table row and the label, so a
// live run here is drawn over them.
#include "engine/formats/cyclictest_format.h"
#include "ui/common/latency_view_data.h"
#include "ui/plot/plot_data.h"

#include <QString>
#include <QStringList>

namespace rtscope {

/// A cyclictest file as read.
struct CyclictestFile {
    QString fileName; ///< base name, for labels
    QString format;   ///< "histogram" or "JSON"
    CyclictestData data;
};

/// Reads and parses @p path: JSON when its first non-blank character is '{' (after a UTF-8 byte-order mark, if
/// any), cyclictest's -h text otherwise. Only a regular file is read (a FIFO would block). On failure @p error
/// names the file, then the parser's line or key and what it expected.
bool readCyclictestFile(const QString& path, CyclictestFile& out, QString& error);

/// The first 16 bytes of the regular file @p path, to tell a recording from a cyclictest file; false with
/// @p error ("name: why") for anything else, a FIFO included, without blocking.
bool readFileHead(const QString& path, QByteArray& head, QString& error);

/// What a file with several threads offers: "thread 0 (CPU 1): 300 samples", …, then "all 2 threads summed:
/// 600 samples" (the index returned by importedReference's @p thread = -1).
QStringList cyclictestThreadChoices(const CyclictestFile& file);

/// All of @p threads as one histogram of all their samples would read (bins, overflows, count, min, avg, max).
CyclictestThread summedThreads(const std::vector<CyclictestThread>& threads);

/// A percentile of whole-µs bins.
struct BinPercentile {
    int64_t us = 0;
    bool lowerBound = false; ///< the rank lies among the overflows: the value is at least @c us (the bins' end)
};
/// Nearest rank over @p t's whole-µs bins (Histogram::percentile's definition), so the figure is cyclictest's own
/// kind; {0, false} when @p t has no samples.
BinPercentile binPercentile(const CyclictestThread& t, double percent);

/// The reference the page holds.
struct ImportedReference {
    LatencyRunSummary summary; ///< whole-µs figures, as cyclictest measures (truncated)
    HistogramCurve curve;      ///< the file's 1 µs bins and its maximum; other overflows are counted in the legend
    VerticalMarker max;
    QString label;      ///< "board.json, thread 0, 1 000 000 samples" (the thread only when the file has several)
    QString shortLabel; ///< "board.json, thread 0": what fits next to "Reference:" above the chart
    QString note;       ///< what the file cannot tell (percentiles beyond its bins), empty when nothing
};

/// The reference of thread @p thread of @p file, or of all threads summed when @p thread is -1.
ImportedReference importedReference(const CyclictestFile& file, int thread);

/// 1234567 → "1 234 567": sample counts read from the back of a room.
QString groupedCount(uint64_t n);

} // namespace rtscope
