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
    : QAbstractTableModel(parent)
{}

void SleepFloorTableModel::setSnapshot(const SleepFloorSnapshot& s)
{
    const bool sameShape = s.cells.size() == m_cells.size() && s.config.methods.size() == m_methods;
    if (!sameShape) {
        beginResetModel();
        m_cells = s.cells;
        m_methods = std::max<size_t>(1, s.config.methods.size());
        endResetModel();
        return;
    }
    m_cells = s.cells;
    if (!m_cells.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, Count - 1));
}

void SleepFloorTableModel::clear()
{
    beginResetModel();
    m_cells.clear();
    endResetModel();
}

int SleepFloorTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_cells.size());
}

int SleepFloorTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : Count;
}

QVariant SleepFloorTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= Count)
        return {};
    const SleepFloorCell& c = m_cells[size_t(index.row())];
    const bool any = c.samples > 0;
    if (role == RawValueRole) {
        switch (Column(index.column())) {
        case Request:
            return qlonglong(c.requestNs);
        case Method:
            return QString::fromLatin1(sleepMethodName(c.method));
        case Samples:
            return qulonglong(c.samples);
        case Median:
            return qlonglong(c.p50Ns);
        case P99:
            return qlonglong(c.p99Ns);
        case Max:
            return qlonglong(c.maxNs);
        case Overshoot:
            return qlonglong(c.overshootNs);
        case Ratio:
            return c.overshootRatio;
        case CpuPerWait:
            return c.cpuPerWaitNs;
        case CpuShare:
            return c.cpuShare;
        case Count:
            break;
        }
        return {};
    }
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
    if (role == Qt::FontRole && (index.column() == Median || index.column() == Request)) {
        QFont f;
        f.setBold(true);
        return f;
    }
    return {};
}

QVariant SleepFloorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Request:
        return tr("Requested");
    case Method:
        return tr("Method");
    case Samples:
        return tr("Samples");
    case Median:
        return tr("Median");
    case P99:
        return tr("p99");
    case Max:
        return tr("Max");
    case Overshoot:
        return tr("Overshoot");
    case Ratio:
        return tr("× request");
    case CpuPerWait:
        return tr("CPU per wait");
    case CpuShare:
        return tr("CPU share");
    case Count:
        break;
    }
    return {};
}

} // namespace rtscope
