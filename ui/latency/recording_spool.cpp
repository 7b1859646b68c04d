#include "ui/latency/recording_spool.h"

#include "ui/common/latency_source.h"
#include "ui/latency/latency_page.h"

#include "engine/formats/scratch_dir.h"

#include <QDir>
#include <QStandardPaths>

#include <limits>
#include <string>
#include <unistd.h>

namespace rtscope {

RecordingSpool* RecordingSpool::attach(LatencyPage* page, const SystemProbe& probe)
{
    auto* live = dynamic_cast<LiveLatencySource*>(&page->source());
    if (!live)
        return nullptr;
    auto* spool = new RecordingSpool(page, probe);
    live->experiment().setRunSink(spool->m_writer.get());
    return spool;
}

// The cache directory is on disk where /tmp may be memory; the spool directory goes when the app exits.
QString RecordingSpool::spoolTemplate()
{
    const QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    if (!cache.isEmpty() && QDir().mkpath(cache))
        return cache + "/run-XXXXXX";
    return QDir::tempPath() + "/rtscope-run-XXXXXX";
}

std::optional<uint64_t> RecordingSpool::processStartTime(pid_t pid)
{
    return rtscope::processStartTime(pid);
}

RecordingSpool::Cleanup RecordingSpool::removeStaleSpools(const QString& spoolTemplate)
{
    const ScratchCleanup done = removeStaleScratchDirs(spoolTemplate.toStdString());
    return {done.removed, done.bytes};
}

RecordingSpool::RecordingSpool(LatencyPage* page, const SystemProbe& probe)
    : QObject(page)
    , m_dir(spoolTemplate())
{
    // Who owns this spool, so that a later start can remove it should this process die without removing it.
    if (m_dir.isValid())
        if (const Error e = writeScratchOwner(m_dir.path().toStdString()))
            qWarning("rtscope: %s", e.message.c_str());
    RecordingWriter::Limits limits;
    limits.maxFileBytes = kMaxSpoolBytes;
    m_writer = std::make_unique<RecordingWriter>(probe, path().toStdString(), limits);
    m_writer->setCommand("rtscope desktop app");
}

QString RecordingSpool::path() const
{
    return m_dir.filePath(QStringLiteral("run") + kRecordingSuffix);
}

} // namespace rtscope

#include "moc_recording_spool.cpp"
