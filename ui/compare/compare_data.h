#pragma once
// Several latency results side by side (File › Compare results…, `rtscope --compare`): each file is read through
// the one importer of its format — cyclictest's -h text or --json (ui/latency/latency_import.*), an rtscope
// recording (replayRecordingFile, engine/recording/) — and turned into whole-µs cyclictest figures, the ones a
// cyclictest export of the recording would hold, so that every row of the comparison is computed the same way.
#include "engine/recording/recording_replay.h"
#include "ui/latency/latency_import.h"
#include "ui/plot/plot_data.h"

#include <QString>

#include <cstdint>

namespace rtscope {

/// One file's figures, all its threads summed (docs/import-export.md, "Comparing results").
struct ComparedResult {
    QString path;
    QString fileName;
    QString format; ///< "histogram", "JSON" or "recording"
    QString host;   ///< "unknown" when the file does not say
    QString kernel; ///< "unknown" when the file does not say
    QString cpus;   ///< "1, 3"; "unknown (2 threads)" when the file does not say
    uint64_t samples = 0;
    BinPercentile p50, p99, p999, p9999; ///< a lowerBound one lies beyond the last bin: only "≥ binsUs" is known
    int64_t maxUs = 0;
    uint64_t overflows = 0; ///< samples beyond the last bin
    size_t binsUs = 0;      ///< the file's bins cover [0, binsUs) µs
    HistogramCurve curve;   ///< the bins, and the maximum when it lies beyond them
    QString note;           ///< what the figures lack (a recording cut short, samples not kept); empty if nothing
};

/// Reads @p path: a recording by its signature, cyclictest's text or JSON otherwise. False with @p error, one
/// sentence naming the file and why, when it is none of them (or cannot be read). @p progress as for
/// replayRecordingFile (a recording's reading only; a cancelled one fails with "cancelled").
bool readComparedResult(const QString& path, ComparedResult& out, QString& error,
                        const RecordingProgress& progress = {});

/// A percentile for a table cell: "57", "> last bin (≥ 10000)" when it lies among the overflows, "no samples".
QString comparedPercentileText(const ComparedResult& r, const BinPercentile& p);

} // namespace rtscope
