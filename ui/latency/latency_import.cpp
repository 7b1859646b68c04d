#include "ui/latency/latency_import.h"

#include "engine/pipeline/histogram.h"
#include "engine/util/clock.h"
#include "engine/util/input_file.h"

#include <QFileInfo>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <unistd.h>

namespace rtscope {

namespace {

// The parsers refuse more than this too (a cyclictest file cannot plausibly be larger); reading it first would only
// let a hostile file make us allocate.
constexpr size_t kMaxFileBytes = size_t(64) << 20;
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

} // namespace

// Sums threads the way one histogram of all their samples would read.
CyclictestThread summedThreads(const std::vector<CyclictestThread>& threads)
{
    CyclictestThread out;
    double weighted = 0;
    bool any = false;
    for (const CyclictestThread& t : threads) {
        if (t.bins.size() > out.bins.size())
            out.bins.resize(t.bins.size(), 0);
        for (size_t i = 0; i < t.bins.size(); ++i)
            out.bins[i] += t.bins[i];
        out.overflows += t.overflows;
        out.cycles += t.cycles;
        weighted += t.avgUs * double(t.cycles);
        if (t.cycles == 0)
            continue;
        out.minUs = any ? std::min(out.minUs, t.minUs) : t.minUs;
        out.maxUs = any ? std::max(out.maxUs, t.maxUs) : t.maxUs;
        any = true;
    }
    out.avgUs = out.cycles ? weighted / double(out.cycles) : 0;
    return out;
}

// Nearest rank over whole-µs bins (Histogram::percentile's definition), so the figure is cyclictest's own kind.
BinPercentile binPercentile(const CyclictestThread& t, double percent)
{
    if (t.cycles == 0)
        return {};
    const long double exactRank = static_cast<long double>(percent) / 100.0L * static_cast<long double>(t.cycles);
    const uint64_t rank = std::clamp<uint64_t>(static_cast<uint64_t>(std::ceil(exactRank - 1e-9L)), 1, t.cycles);
    uint64_t seen = 0;
    for (size_t i = 0; i < t.bins.size(); ++i) {
        seen += t.bins[i];
        if (seen >= rank)
            return {std::clamp<int64_t>(int64_t(i), t.minUs, t.maxUs), false};
    }
    return {int64_t(t.bins.size()), true};
}

QString groupedCount(uint64_t n)
{
    QString digits = QString::number(n);
    for (qsizetype at = digits.size() - 3; at > 0; at -= 3)
        digits.insert(at, QChar(' '));
    return digits;
}

bool readCyclictestFile(const QString& path, CyclictestFile& out, QString& error)
{
    const QString name = QFileInfo(path).fileName();
    std::string bytes, why;
    if (!readRegularFile(path.toStdString(), kMaxFileBytes, bytes, why)) {
        error = QString("%1: %2").arg(name, QString::fromStdString(why));
        return false;
    }
    std::string_view text(bytes);
    // Editors on Windows save UTF-8 with a byte-order mark, which RFC 8259 (section 8.1) lets a reader ignore: taken
    // for text, it hid the '{' and the JSON was parsed as a histogram.
    if (text.starts_with(kUtf8Bom))
        text.remove_prefix(kUtf8Bom.size());
    const size_t first = text.find_first_not_of(" \t\r\n");
    const bool json = first != std::string_view::npos && text[first] == '{';
    CyclictestData data;
    const bool ok = json ? parseCyclictestJson(text, data, why) : parseCyclictestHistogram(text, data, why);
    if (!ok) {
        error = QString("%1: %2").arg(name, QString::fromStdString(why));
        if (!json && why.find("no '# Histogram'") != std::string::npos)
            error += QString(" (expected the file cyclictest writes with -h US --histfile, or its --json output)");
        return false;
    }
    out.fileName = name;
    out.format = json ? QString("JSON") : QString("histogram");
    out.data = std::move(data);
    return true;
}

bool readFileHead(const QString& path, QByteArray& head, QString& error)
{
    std::string why;
    const UniqueFd fd = openRegularFile(path.toStdString(), why);
    if (!fd) {
        error = QString("%1: %2").arg(QFileInfo(path).fileName(), QString::fromStdString(why));
        return false;
    }
    head.resize(16);
    ssize_t n = -1;
    do
        n = ::read(fd.get(), head.data(), size_t(head.size()));
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        error = QString("%1: cannot read it: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(strerror(errno)));
        return false;
    }
    head.resize(n);
    return true;
}

QStringList cyclictestThreadChoices(const CyclictestFile& file)
{
    QStringList choices;
    const auto& threads = file.data.threads;
    uint64_t total = 0;
    for (size_t i = 0; i < threads.size(); ++i) {
        const CyclictestThread& t = threads[i];
        total += t.cycles;
        choices << (t.cpu >= 0 ? QString("thread %1 (CPU %2): %3 samples").arg(i).arg(t.cpu).arg(groupedCount(t.cycles))
                               : QString("thread %1: %2 samples").arg(i).arg(groupedCount(t.cycles)));
    }
    if (threads.size() > 1)
        choices << QString("all %1 threads summed: %2 samples").arg(threads.size()).arg(groupedCount(total));
    return choices;
}

ImportedReference importedReference(const CyclictestFile& file, int thread)
{
    const auto& threads = file.data.threads;
    const bool sum = thread < 0 || size_t(thread) >= threads.size();
    const CyclictestThread t = sum ? summedThreads(threads) : threads[size_t(thread)];
    // Short enough for the line above the chart: the file, which thread when there are several, the count.
    const QString which = threads.size() < 2 ? QString()
                          : sum              ? QString(", %1 threads").arg(threads.size())
                                             : QString(", thread %1").arg(thread);

    ImportedReference r;
    r.label = QString("%1%2, %3 samples").arg(file.fileName, which, groupedCount(t.cycles));
    r.shortLabel = sum ? file.fileName : file.fileName + which;

    LatencyRunSummary& s = r.summary;
    s.samples = t.cycles;
    s.minNs = t.minUs * kNsPerUs;
    s.avgNs = t.avgUs * double(kNsPerUs);
    s.maxNs = t.maxUs * kNsPerUs;
    QStringList bounds; // percentiles among the overflows: only "at least the histogram's end" is known
    const auto pick = [&](double p, const char* name) {
        const BinPercentile v = binPercentile(t, p);
        if (v.lowerBound)
            bounds << name;
        return v.us * kNsPerUs;
    };
    s.p50Ns = pick(50, "p50");
    s.p90Ns = pick(90, "p90");
    s.p99Ns = pick(99, "p99");
    s.p999Ns = pick(99.9, "p99.9");
    if (!bounds.isEmpty())
        r.note = QString("%1 %2 at least %3 µs: %4 of the samples lie beyond the file's histogram")
                     .arg(bounds.join(", "), bounds.size() == 1 ? "is" : "are")
                     .arg(t.bins.size())
                     .arg(groupedCount(t.overflows));
    // The table's config cell: the warning first, where it is read before the cell is cut.
    s.label =
        (r.note.isEmpty() ? QString() : "⚠ " + r.note + " · ") + QString("cyclictest %1: %2").arg(file.format, r.label);

    // The file says only that its overflows lie between its last bin and the maximum, and a bucket that wide
    // would be drawn as a spike at its middle. So the one overflow whose value is known — the maximum — is drawn,
    // and the legend counts the others, which are not.
    const uint64_t undrawn = t.overflows ? t.overflows - 1 : 0;
    r.curve.name = undrawn ? QString("reference: %1 > %2 µs not drawn").arg(groupedCount(undrawn)).arg(t.bins.size())
                           : QString("reference: %1").arg(file.fileName);
    for (size_t i = 0; i < t.bins.size(); ++i)
        if (t.bins[i])
            r.curve.buckets.push_back({double(i), double(i + 1), t.bins[i]});
    if (t.overflows && t.maxUs >= int64_t(t.bins.size()))
        r.curve.buckets.push_back({double(t.maxUs), double(t.maxUs + 1), 1});
    Histogram maxOnly;
    maxOnly.record(s.maxNs);
    r.max = referenceMaxMarker(maxOnly);
    return r;
}

} // namespace rtscope
