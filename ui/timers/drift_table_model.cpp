#include "ui/timers/drift_table_model.h"

#include "ui/common/colors.h"
#include "ui/common/text_format.h"

#include "engine/util/units.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <cmath>

namespace rtscope {

namespace {
QString slopeText(double nsPerTick)
{
    const double us = nsPerTick / 1e3;
    return QString("%1%2 µs/tick").arg(us < 0 ? "−" : "+").arg(std::abs(us), 0, 'f', std::abs(us) < 10 ? 2 : 1);
}
} // namespace

DriftTableModel::DriftTableModel(QObject* parent)
    : RowTableModel({tr("Method"), tr("Tick N"), tr("Drift after N"), tr("Slope"), tr("Rate"), tr("of nominal"),
                     tr("Missed"), tr("Lateness p50"), tr("p99"), tr("Dropped")},
                    parent)
{
    Q_ASSERT(columnCount() == Count);
}

void DriftTableModel::setSnapshot(const DriftSnapshot& s)
{
    m_nominalHz = s.nominalHz;
    assignRowsBy(s.methods, &DriftMethodStats::method);
    emit headerDataChanged(Qt::Horizontal, 0, Count - 1);
}

QVariant DriftTableModel::data(const QModelIndex& index, int role) const
{
    if (!isCell(index))
        return {};
    const DriftMethodStats& r = rowAt(index);
    if (role == RawValueRole)
        return rawColumn(
            r, index.column(), [](const DriftMethodStats& r) { return QString::fromLatin1(driftMethodName(r.method)); },
            &DriftMethodStats::lastTick, &DriftMethodStats::driftNs, &DriftMethodStats::slopeNsPerTick,
            &DriftMethodStats::rateHz, &DriftMethodStats::ratePercent, &DriftMethodStats::missedTicks,
            &DriftMethodStats::latenessP50Ns, &DriftMethodStats::latenessP99Ns, &DriftMethodStats::drops);
    if (role == Qt::DisplayRole) {
        const bool any = r.wakes > 0;
        switch (Column(index.column())) {
        case Method:
            return QString::fromLatin1(driftMethodLabel(r.method)) +
                   (r.error.empty() ? QString() : QString(" ⚠ %1").arg(screenText(r.error)));
        case Ticks:
            return QString::number(r.lastTick);
        case Drift:
            return any ? signedDurationQt(r.driftNs) : QString("–");
        case Slope:
            return r.lastTick >= 2 ? slopeText(r.slopeNsPerTick) : QString("–");
        case RateHz:
            return any ? QString("%1 Hz").arg(r.rateHz, 0, 'f', r.rateHz < 100 ? 2 : 1) : QString("–");
        case RatePercent:
            return any ? QString("%1 %").arg(r.ratePercent, 0, 'f', 1) : QString("–");
        case Missed:
            return QString::number(r.missedTicks);
        case LatenessP50:
            return any ? signedDurationQt(r.latenessP50Ns) : QString("–");
        case LatenessP99:
            return any ? signedDurationQt(r.latenessP99Ns) : QString("–");
        case Dropped:
            return QString::number(r.drops);
        case Count:
            break;
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return int((index.column() == Method ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    if (role == Qt::FontRole && index.column() == Drift)
        return boldFont();
    if (role == Qt::ForegroundRole && index.column() == Dropped && r.drops > 0)
        return QBrush(QColor(colors::kWarningRed));
    if (role == Qt::ToolTipRole && !r.error.empty())
        return screenText(r.error);
    return {};
}

QVariant DriftTableModel::headerText(int column) const
{
    if (column == RateHz && m_nominalHz > 0)
        return tr("Rate (nominal %1 Hz)").arg(m_nominalHz, 0, 'f', m_nominalHz < 100 ? 2 : 0);
    return ColumnTableModel::headerText(column);
}

} // namespace rtscope

#include "moc_drift_table_model.cpp"
