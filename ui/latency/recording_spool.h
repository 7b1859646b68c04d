#pragma once
// Every live run of the latency page is recorded to a spool file while it runs (engine RecordingWriter on the run
// sink), so that "Save run as recording…" and the exports — cyclictest histogram, JSON, CSV of raw samples — hold
// every sample of the run, however long, without keeping the samples in memory.
#include "engine/formats/scratch_dir.h"
#include "engine/recording/recording_writer.h"

#include <QObject>
#include <QString>
#include <QTemporaryDir>

#include <cstdint>
#include <memory>
#include <optional>
#include <sys/types.h>

namespace rtscope {

class LatencyPage;

class RecordingSpool : public QObject {
    Q_OBJECT
public:
    /// The spool stops taking samples beyond this size (the file then says how many it did not keep).
    static constexpr uint64_t kMaxSpoolBytes = uint64_t(2) << 30;

    /// Attaches a spool to @p page's live experiment; null when the page has no live source (tests' replays).
    /// The spool is a child of the page: it outlives every run of the page's experiment.
    static RecordingSpool* attach(LatencyPage* page, const SystemProbe& probe);

    QString path() const;
    RecordingWriter::Status status() const { return m_writer->status(); }

    /// Where spools go: "<cache>/run-XXXXXX", or "<tmp>/rtscope-run-XXXXXX" without a cache directory.
    static QString spoolTemplate();
    /// The file in each spool directory that names its owner (kScratchOwnerFile, engine/formats/scratch_dir.h).
    static constexpr const char* kOwnerFile = kScratchOwnerFile;
    /// Field 22 of /proc/@p pid/stat, or nothing when there is no such process (rtscope::processStartTime).
    static std::optional<uint64_t> processStartTime(pid_t pid);

    struct Cleanup {
        int removed = 0;    ///< spool directories removed
        uint64_t bytes = 0; ///< the size of the files in them
    };
    /// Removes the spool directories that match @p spoolTemplate whose owner is gone (removeStaleScratchDirs): a
    /// spool of a killed app (kill -9, a crash) holds up to kMaxSpoolBytes and would otherwise stay for good.
    static Cleanup removeStaleSpools(const QString& spoolTemplate);

private:
    RecordingSpool(LatencyPage* page, const SystemProbe& probe);

    QTemporaryDir m_dir;
    std::unique_ptr<RecordingWriter> m_writer;
};

} // namespace rtscope
