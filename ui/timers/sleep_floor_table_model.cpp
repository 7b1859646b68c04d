#include "ui/timers/sleep_floor_table_model.h"

#include "ui/common/text_format.h"

#include "engine/util/units.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QLocale>

namespace rtscope {

namespace {
QString ratio(double r)
{
    if (r <= 0)
        return QStringLiteral("–");
    if (r >= 1000)
        return QString("%1 ×").arg(QLocale().toString(qlonglong(r + 0.5)));
    return QString("%1 ×").arg(r, 0, 'f', r >= 10 ? 0 : 2);
}
} // namespace

SleepFloorTableModel::SleepFloorTableModel(QObject* parent)
    : RowTableModel({tr("Requested"), tr("Method"), tr("Samples"), tr("Median"), tr("p99"), tr("Max"), tr("Overshoot"),
                     tr("× request"), tr("CPU per wait"), tr("CPU share")},
                    parent)
{
    Q_ASSERT(columnCount() == Count);
}

void SleepFloorTableModel::setSnapshot(const SleepFloorSnapshot& s)
{
    const size_t methods = std::max<size_t>(1, s.config.methods.size());
    const bool sameShape = s.cells.size() == m_rows.size() && methods == m_methods;
    m_methods = methods; // read by data() only, and nothing is emitted before assignRows() resets or updates
    assignRows(s.cells, sameShape);
}

QVariant SleepFloorTableModel::data(const QModelIndex& index, int role) const
{
    if (!isCell(index))
        return {};
    const SleepFloorCell& c = rowAt(index);
    const bool any = c.samples > 0;
    if (role == RawValueRole)
        return rawColumn(
            c, index.column(), &SleepFloorCell::requestNs,
            [](const SleepFloorCell& c) { return QString::fromLatin1(sleepMethodName(c.method)); },
            &SleepFloorCell::samples, &SleepFloorCell::p50Ns, &SleepFloorCell::p99Ns, &SleepFloorCell::maxNs,
            &SleepFloorCell::overshootNs, &SleepFloorCell::overshootRatio, &SleepFloorCell::cpuPerWaitNs,
            &SleepFloorCell::cpuShare);
    if (role == Qt::DisplayRole) {
        switch (Column(index.column())) {
        case Request:
            // The first row of each request names it; the others leave it blank, so the groups read at a glance.
            return index.row() % int(m_methods) == 0 ? signedDurationQt(c.requestNs) : QString();
        case Method:
            return QString::fromLatin1(sleepMethodLabel(c.method));
        case Samples:
            return QString::number(c.samples);
        case Median:
            return any ? signedDurationQt(c.p50Ns) : QString("…");
        case P99:
            return any ? signedDurationQt(c.p99Ns) : QString("…");
        case Max:
            return any ? signedDurationQt(c.maxNs) : QString("…");
        case Overshoot:
            return any ? signedDurationQt(c.overshootNs) : QString("…");
        case Ratio:
            return any ? ratio(c.overshootRatio) : QString("…");
        case CpuPerWait:
            return any ? signedDurationQt(int64_t(c.cpuPerWaitNs + 0.5)) : QString("…");
        case CpuShare:
            return any ? QString("%1 %").arg(c.cpuShare * 100, 0, 'f', 0) : QString("…");
        case Count:
            break;
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return int((index.column() == Method || index.column() == Request ? Qt::AlignLeft : Qt::AlignRight) |
                   Qt::AlignVCenter);
    if (role == Qt::FontRole && (index.column() == Median || index.column() == Request))
        return boldFont();
    return {};
}

} // namespace rtscope

#include "moc_sleep_floor_table_model.cpp"
