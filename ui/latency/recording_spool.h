#pragma once
// Every live run of the latency page is recorded to a spool file while it runs (engine RecordingWriter on the run
// sink), so that "Save run as recording…" and the exports — cyclictest histogram, JSON, CSV of raw samples — hold
// every sample of the run, however long, without keeping the samples in memory.
#include "engine/io/recording.h"

#include <QObject>
#include <QString>
#include <QTemporaryDir>

#include <memory>

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

private:
    RecordingSpool(LatencyPage* page, const SystemProbe& probe);

    QTemporaryDir m_dir;
    std::unique_ptr<RecordingWriter> m_writer;
};

} // namespace rtscope
