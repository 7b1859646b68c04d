#include "ui/latency/recording_spool.h"

#include "ui/common/latency_source.h"
#include "ui/latency/latency_page.h"

#include "engine/formats/output_file.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
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
    QFile stat(QString("/proc/%1/stat").arg(pid));
    if (pid <= 0 || !stat.open(QIODevice::ReadOnly))
        return std::nullopt;
    // "PID (COMM) STATE PPID …": COMM may hold spaces and parentheses, so the fields are counted from the last ')',
    // after which STATE is field 3.
    const QByteArray line = stat.readAll();
    const qsizetype close = line.lastIndexOf(')');
    if (close < 0)
        return std::nullopt;
    const QList<QByteArray> fields = line.mid(close + 1).simplified().split(' ');
    constexpr int kStartTime = 22 - 3;
    bool ok = false;
    const uint64_t start = fields.size() > kStartTime ? fields[kStartTime].toULongLong(&ok) : 0;
    return ok ? std::optional<uint64_t>(start) : std::nullopt;
}

namespace {

// Whether the owner file @p ownerPath names a process that is gone; false when it cannot be read or parsed.
bool ownerIsGone(const QString& ownerPath)
{
    QFile owner(ownerPath);
    if (!owner.open(QIODevice::ReadOnly))
        return false;
    const QList<QByteArray> fields = owner.readAll().simplified().split(' ');
    bool pidOk = false, startOk = false;
    const qlonglong pid = fields.size() == 2 ? fields[0].toLongLong(&pidOk) : 0;
    const qulonglong start = fields.size() == 2 ? fields[1].toULongLong(&startOk) : 0;
    if (!pidOk || !startOk || pid <= 0 || pid > std::numeric_limits<pid_t>::max())
        return false;
    const std::optional<uint64_t> now = RecordingSpool::processStartTime(pid_t(pid));
    return !now || *now != start;
}

uint64_t bytesUnder(const QString& dir)
{
    uint64_t bytes = 0;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        if (!it.fileInfo().isSymLink())
            bytes += uint64_t(it.fileInfo().size());
    }
    return bytes;
}

} // namespace

RecordingSpool::Cleanup RecordingSpool::removeStaleSpools(const QString& spoolTemplate)
{
    Cleanup done;
    const QFileInfo pattern(spoolTemplate);
    QString prefix = pattern.fileName();
    while (prefix.endsWith('X'))
        prefix.chop(1);
    const QDir parent = pattern.dir();
    for (const QFileInfo& dir :
         parent.entryInfoList({prefix + "*"}, QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden)) {
        // In a shared /tmp, a directory of another user's is theirs to clean, whoever runs this.
        if (dir.isSymLink() || dir.ownerId() != ::geteuid())
            continue;
        if (!ownerIsGone(QDir(dir.filePath()).filePath(kOwnerFile)))
            continue;
        const uint64_t bytes = bytesUnder(dir.filePath());
        if (QDir(dir.filePath()).removeRecursively()) {
            ++done.removed;
            done.bytes += bytes;
        }
    }
    return done;
}

RecordingSpool::RecordingSpool(LatencyPage* page, const SystemProbe& probe)
    : QObject(page)
    , m_dir(spoolTemplate())
{
    // Who owns this spool, so that a later start can remove it should this process die without removing it.
    const std::optional<uint64_t> started = processStartTime(::getpid());
    if (m_dir.isValid() && started) {
        const std::string owner = std::to_string(::getpid()) + " " + std::to_string(*started) + "\n";
        if (const Error e = writeFileAtomically(m_dir.filePath(kOwnerFile).toStdString(), owner))
            qWarning("rtscope: %s", e.message.c_str());
    }
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
