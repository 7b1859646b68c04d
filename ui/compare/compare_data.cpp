#include "ui/compare/compare_data.h"

#include "engine/export/report_json.h"

#include <QFileInfo>
#include <QStringList>

namespace rtscope {

namespace {

QString orUnknown(const std::string& s)
{
    return s.empty() ? QString("unknown") : QString::fromStdString(s);
}

QString cpuList(const std::vector<CyclictestThread>& threads)
{
    QStringList cpus;
    for (const CyclictestThread& t : threads) {
        if (t.cpu < 0) // cyclictest's -h text does not say where its threads ran
            return QString("unknown (%1 thread%2)").arg(threads.size()).arg(threads.size() == 1 ? "" : "s");
        cpus << QString::number(t.cpu);
    }
    return cpus.join(", ");
}

// A "# Key: value" comment of a histfile (rtscope's identity lines after the footer, engine/export/run_identity.h, or a
// vendor's own "# Kernel:" / "# Device:" lines before or after it); empty when absent or written "unknown".
QString commentValue(const CyclictestData& data, std::initializer_list<const char*> keys)
{
    for (const auto* lines : {&data.trailer, &data.preamble})
        for (const std::string& line : *lines)
            for (const char* key : keys) {
                const std::string prefix = std::string("# ") + key + ": ";
                if (line.rfind(prefix, 0) == 0) {
                    const QString value = QString::fromStdString(line.substr(prefix.size())).trimmed();
                    return value == "unknown" ? QString() : value;
                }
            }
    return {};
}

// The figures of the file's threads summed, as importedReference() draws and computes them.
void fillFigures(const CyclictestFile& file, ComparedResult& r)
{
    const CyclictestThread t = summedThreads(file.data.threads);
    r.samples = t.cycles;
    r.maxUs = t.maxUs;
    r.overflows = t.overflows;
    r.binsUs = t.bins.size();
    r.p50 = binPercentile(t, 50);
    r.p99 = binPercentile(t, 99);
    r.p999 = binPercentile(t, 99.9);
    r.p9999 = binPercentile(t, 99.99);
    r.cpus = cpuList(file.data.threads);
    // cyclictest's text does not say where its threads ran; rtscope's identity lines do.
    if (const QString measured = commentValue(file.data, {"Measured CPUs"});
        r.cpus.startsWith("unknown") && !measured.isEmpty() && measured != "none")
        r.cpus = measured;
    r.curve = importedReference(file, -1).curve;
    // The maximum is the one overflow whose value is known; the legend counts the others, which are not drawn.
    const uint64_t undrawn = t.overflows ? t.overflows - 1 : 0;
    r.curve.name = undrawn
                       ? QString("%1 (%2 > %3 µs not drawn)").arg(r.fileName, groupedCount(undrawn)).arg(t.bins.size())
                       : r.fileName;
}

} // namespace

bool readComparedResult(const QString& path, ComparedResult& out, QString& error, const RecordingProgress& progress)
{
    const QString name = QFileInfo(path).fileName();
    QByteArray head;
    if (!readFileHead(path, head, error))
        return false;

    ComparedResult r;
    r.path = path;
    r.fileName = name;
    CyclictestFile file;
    if (looksLikeRecording(std::string_view(head.constData(), size_t(head.size())))) {
        RecordingReplayOptions options;
        options.progress = progress;
        const ReplayedRun run = replayRecordingFile(path.toStdString(), options);
        if (!run.snapshot || (!run.read.ok && !run.read.truncated)) {
            error = QString("%1: %2").arg(name, run.read.error.empty() ? QString("cancelled")
                                                                       : QString::fromStdString(run.read.error));
            return false;
        }
        // The recording as its cyclictest export holds it (the same whole-µs bins), so it compares like the rest.
        file.fileName = name;
        file.format = "recording";
        file.data = cyclictestDataFrom(*run.snapshot);
        r.host = orUnknown(run.header.host);
        r.kernel = orUnknown(run.header.probe.kernelRelease);
        QStringList lacks;
        if (run.read.lost)
            lacks << QString("%1 samples were not kept by the recorder").arg(groupedCount(run.read.lost));
        if (!run.read.ok)
            lacks << QString::fromStdString(run.read.error);
        r.note = lacks.join("; ");
    } else {
        if (!readCyclictestFile(path, file, error))
            return false;
        r.host = orUnknown(file.data.host);
        r.kernel = orUnknown(file.data.kernel);
        if (file.data.host.empty())
            if (const QString host = commentValue(file.data, {"Host", "Device"}); !host.isEmpty())
                r.host = host;
        // "# Kernel: 6.18.0-rt #1 SMP PREEMPT_RT …": the release is its first word.
        if (file.data.kernel.empty())
            if (const QString kernel = commentValue(file.data, {"Kernel"}); !kernel.isEmpty())
                r.kernel = kernel.section(' ', 0, 0);
    }
    if (file.data.threads.empty()) {
        error = QString("%1: it holds no measuring thread").arg(name);
        return false;
    }
    r.format = file.format;
    fillFigures(file, r);
    out = std::move(r);
    return true;
}

QString comparedPercentileText(const ComparedResult& r, const BinPercentile& p)
{
    if (r.samples == 0)
        return QString("no samples");
    if (p.lowerBound)
        return QString("> last bin (≥ %1)").arg(p.us);
    return QString::number(p.us);
}

} // namespace rtscope
