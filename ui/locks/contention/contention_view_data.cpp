#include "ui/locks/contention/contention_view_data.h"

#include "engine/export/lock_lab_report.h"
#include "ui/common/histogram_data.h"

#include <algorithm>
#include <numeric>

namespace rtscope {

namespace {
double percentOf(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * double(part) / double(whole) : 0.0;
}

double per1k(uint64_t events, uint64_t acquisitions)
{
    return acquisitions ? 1000.0 * double(events) / double(acquisitions) : 0.0;
}

int colorIndexOf(LockKind k)
{
    const auto& kinds = ContentionConfig::contentionKinds();
    const auto it = std::find(kinds.begin(), kinds.end(), k);
    return it == kinds.end() ? int(kinds.size()) : int(it - kinds.begin());
}
} // namespace

std::vector<ContentionKindSummary> summarizeContention(const ContentionSnapshot& s)
{
    std::vector<ContentionKindSummary> out;
    for (size_t i = 0; i < s.kinds.size(); ++i) {
        ContentionKindSummary k;
        k.kind = i < s.config.kinds.size() ? s.config.kinds[i] : LockKind::Mutex;
        if (const ContentionKindResult* r = s.kinds[i].get()) {
            k.kind = r->kind;
            k.state = r->state;
            k.elapsedSec = double(r->elapsedNs) / 1e9;
            k.acquisitions = r->counts.acquisitions;
            k.acquisitionsPerSec = r->acquisitionsPerSec;
            k.vsMutex = throughputVsMutex(s, *r);
            k.waitSamples = r->wait.count();
            k.waitP50Ns = r->wait.percentile(50);
            k.waitP99Ns = r->wait.percentile(99);
            k.waitMaxNs = r->wait.max();
            k.voluntarySwitches = r->voluntarySwitches;
            k.involuntarySwitches = r->involuntarySwitches;
            k.voluntaryPer1k = per1k(r->voluntarySwitches, r->counts.acquisitions);
            k.involuntaryPer1k = per1k(r->involuntarySwitches, r->counts.acquisitions);
            k.cpuNsPerAcquisition = r->cpuNsPerAcquisition;
            k.fairness = r->fairness;
            k.minShare = r->minShare;
            k.maxShare = r->maxShare;
            k.uncontendedPercent = percentOf(r->counts.uncontended, r->counts.acquisitions);
            k.spunPercent = percentOf(r->counts.spun, r->counts.acquisitions);
            k.sleptPercent = percentOf(r->counts.slept, r->counts.acquisitions);
            k.counts = r->counts;
            k.samplesDropped = r->samplesDropped;
            k.error = QString::fromStdString(r->error);
        }
        k.colorIndex = colorIndexOf(k.kind);
        out.push_back(std::move(k));
    }
    return out;
}

std::vector<size_t> throughputRanking(const std::vector<ContentionKindSummary>& kinds)
{
    std::vector<size_t> order(kinds.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&kinds](size_t a, size_t b) {
        const ContentionKindSummary& x = kinds[a];
        const ContentionKindSummary& y = kinds[b];
        if (x.hasFigures() != y.hasFigures())
            return x.hasFigures();
        return x.acquisitionsPerSec > y.acquisitionsPerSec;
    });
    return order;
}

ContentionChartData contentionChartData(const ContentionSnapshot& s, const std::vector<ContentionKindSummary>& kinds)
{
    ContentionChartData d;
    for (size_t i : throughputRanking(kinds)) {
        const ContentionKindSummary& k = kinds[i];
        ContentionBar bar;
        bar.name = QString::fromLatin1(lockKindName(k.kind));
        bar.colorIndex = k.colorIndex;
        bar.acquisitionsPerSec = k.acquisitionsPerSec;
        bar.voluntaryPer1k = k.voluntaryPer1k;
        bar.involuntaryPer1k = k.involuntaryPer1k;
        bar.measured = k.hasFigures();
        switch (k.state) {
        case KindRunState::Pending:
            bar.label = QObject::tr("pending");
            break;
        case KindRunState::Failed:
            bar.label = QObject::tr("failed");
            break;
        default:
            if (!k.hasFigures()) {
                bar.label = QString::fromLatin1(kindRunStateName(k.state)); // "running": no acquisition yet
                break;
            }
            bar.label = formatRate(k.acquisitionsPerSec);
            if (k.vsMutex > 0)
                bar.label += " · " + formatRatio(k.vsMutex);
            if (k.state == KindRunState::Running)
                bar.label += QObject::tr(" · running");
            else if (k.state == KindRunState::Stopped)
                bar.label += QObject::tr(" · stopped");
            break;
        }
        d.bars.push_back(std::move(bar));
    }
    for (size_t i = 0; i < kinds.size() && i < s.kinds.size(); ++i) {
        const ContentionKindSummary& k = kinds[i];
        if (!s.kinds[i] || k.waitSamples == 0)
            continue;
        ContentionWaitCurve curve;
        curve.colorIndex = k.colorIndex;
        // The legend names the kind only: five entries must fit under the chart; the table has the percentiles.
        curve.curve = histogramCurve(s.kinds[i]->wait, QString::fromLatin1(lockKindName(k.kind)));
        d.waits.push_back(std::move(curve));
    }
    return d;
}

QString formatRate(double v)
{
    if (v >= 1e6)
        return QString("%1 M/s").arg(v / 1e6, 0, 'f', 2);
    if (v >= 1e3)
        return QString("%1 k/s").arg(v / 1e3, 0, 'f', 1);
    return QString("%1 /s").arg(v, 0, 'f', 0);
}

QString formatRatio(double ratio)
{
    return QString("%1×").arg(ratio, 0, 'f', 2);
}

QString formatPercent(double percent)
{
    return QString("%1 %").arg(percent, 0, 'f', 1);
}

} // namespace rtscope
