#include "ui/noise/noise_culprit_model.h"

#include "ui/common/text_format.h"
#include "ui/plot/chart_style.h"

#include <QGuiApplication>
#include <QPalette>

namespace rtscope {

NoisePart noisePartOf(NoiseKind kind)
{
    switch (kind) {
    case NoiseKind::Irq:
        return NoisePart::Irq;
    case NoiseKind::Softirq:
        return NoisePart::Softirq;
    case NoiseKind::Nmi:
        return NoisePart::Nmi;
    case NoiseKind::Thread:
        return NoisePart::Thread;
    case NoiseKind::Unexplained:
        return NoisePart::Unexplained;
    case NoiseKind::Untraced:
        return NoisePart::Untraced;
    }
    return NoisePart::Unexplained;
}

QString noiseCountText(uint64_t count)
{
    QString digits = QString::number(count);
    for (qsizetype i = digits.size() - 3; i > 0; i -= 3)
        digits.insert(i, QChar(0x2009));
    return digits;
}

NoiseCulpritModel::NoiseCulpritModel(QObject* parent)
    : RowTableModel({tr("Kind"), tr("Name"), tr("CPU"), tr("PID · sched"), tr("Count"), tr("Total"), tr("% of CPU"),
                     tr("Max single")},
                    parent)
{
    Q_ASSERT(columnCount() == Columns);
}

void NoiseCulpritModel::setCulprits(const std::vector<NoiseCulprit>& culprits)
{
    assignRows(culprits, culprits.size() == m_rows.size());
}

QVariant NoiseCulpritModel::data(const QModelIndex& index, int role) const
{
    if (!isCell(index))
        return {};
    const NoiseCulprit& r = rowAt(index);
    if (role == Qt::DecorationRole && index.column() == Kind)
        return NoiseCpuBars::partColor(noisePartOf(r.kind), plot::isDarkPalette(QGuiApplication::palette()));
    if (role == Qt::TextAlignmentRole)
        return int((index.column() >= Count || index.column() == Cpu ? Qt::AlignRight : Qt::AlignLeft) |
                   Qt::AlignVCenter);
    if (role == RawValueRole)
        return rawColumn(r, index.column(), &NoiseCulprit::kind, &NoiseCulprit::name, &NoiseCulprit::cpu,
                         &NoiseCulprit::pid, &NoiseCulprit::count, &NoiseCulprit::totalNs, &NoiseCulprit::percent,
                         &NoiseCulprit::maxNs);
    if (role == Qt::ToolTipRole && index.column() == PidSched && r.pid > 0)
        return QString("%1 · %2").arg(r.pid).arg(screenText(r.sched));
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (Column(index.column())) {
    case Kind:
        // The bars' short name ("unexplained"): the legend above says what it stands for.
        return role == Qt::ToolTipRole
                   ? QString::fromLatin1(noiseKindLabel(r.kind))
                   : NoiseCpuBars::partName(noisePartOf(r.kind)).section(QStringLiteral(" ("), 0, 0);
    case Name:
        return screenText(r.name);
    case Cpu:
        return r.cpu >= 0 ? QString::number(r.cpu) : QString("–");
    case PidSched:
        if (r.pid <= 0)
            return QString("–");
        // "RT 50", "nice 0": the policy family in brackets is in the tooltip, so the names keep the width.
        return r.sched.empty()
                   ? QString::number(r.pid)
                   : QString("%1 · %2").arg(r.pid).arg(screenText(r.sched).section(QStringLiteral(" ("), 0, 0));
    case Count:
        return noiseCountText(r.count);
    case Total:
        return durationQt(r.totalNs);
    case Percent:
        return NoiseCpuBars::percentText(r.percent);
    case MaxSingle:
        return durationQt(r.maxNs);
    case Columns:
        break;
    }
    return {};
}

QVariant NoiseCulpritModel::headerToolTip(int column) const
{
    switch (column) {
    case Count:
        return tr("How many times it ran inside a gap of the poller");
    case Total:
        return tr("Its time inside the poller's gaps, over the whole run");
    case Percent:
        return tr("That time as a share of the measured CPU's runtime");
    case MaxSingle:
        return tr("Its longest single stretch inside one gap");
    default:
        return {};
    }
}

} // namespace rtscope

#include "moc_noise_culprit_model.cpp"
