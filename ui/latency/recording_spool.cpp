#include "ui/latency/recording_spool.h"

#include "ui/latency/latency_page.h"
#include "ui/latency/latency_source.h"

#include <QDir>
#include <QStandardPaths>

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

namespace {
// The cache directory is on disk where /tmp may be memory; the spool directory goes when the app exits.
QString spoolTemplate()
{
    const QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    if (!cache.isEmpty() && QDir().mkpath(cache))
        return cache + "/run-XXXXXX";
    return QDir::tempPath() + "/rtscope-run-XXXXXX";
}
} // namespace

RecordingSpool::RecordingSpool(LatencyPage* page, const SystemProbe& probe)
    : QObject(page)
    , m_dir(spoolTemplate())
{
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
