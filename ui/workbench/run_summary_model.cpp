#include "ui/workbench/run_summary_model.h"

#include "ui/common/colors.h"
#include "ui/common/text_format.h"

#include <QBrush>
#include <QFont>

#include <algorithm>

namespace rtscope {

RunSummaryModel::RunSummaryModel(const QString& nameHeader, QObject* parent)
    : RowTableModel({nameHeader, tr("Samples"), tr("Min (µs)"), tr("Avg (µs)"), tr("p50 (µs)"), tr("p99 (µs)"),
                     tr("p99.9 (µs)"), tr("Max (µs)"), tr("Skipped"), tr("Dropped"), tr("Gaps"), tr("Notes")},
                    parent)
{
    Q_ASSERT(columnCount() == ColumnCount);
}

void RunSummaryModel::setRows(std::vector<SummaryRow> rows)
{
    const bool sameCount = rows.size() == m_rows.size();
    assignRows(std::move(rows), sameCount);
}

void RunSummaryModel::setCheckable(bool on)
{
    m_checkable = on;
    if (!m_rows.empty())
        emit dataChanged(index(0, Name), index(rowCount() - 1, Name));
}

bool RunSummaryModel::isChecked(int row) const
{
    if (row < 0 || row >= rowCount())
        return false;
    return std::find(m_unchecked.begin(), m_unchecked.end(), m_rows[size_t(row)].name) == m_unchecked.end();
}

QVariant RunSummaryModel::raw(const SummaryRow& r, int column) const
{
    if (column == Name)
        return r.name;
    if (column == Note)
        return r.note;
    if (!r.summary)
        return {};
    using S = LatencyRunSummary;
    return rawColumn(*r.summary, column - Samples, &S::samples, &S::minNs, &S::avgNs, &S::p50Ns, &S::p99Ns, &S::p999Ns,
                     &S::maxNs, &S::skipped, &S::drops, &S::seqGaps);
}

QVariant RunSummaryModel::display(const SummaryRow& r, int column) const
{
    if (column == Name || column == Note)
        return raw(r, column);
    const QVariant v = raw(r, column);
    if (!v.isValid())
        return QStringLiteral("–");
    switch (column) {
    case Samples:
    case Skipped:
    case Dropped:
    case Gaps:
        return QString::number(v.toULongLong());
    case Avg:
        return r.summary->samples ? formatMicros(v.toDouble()) : QStringLiteral("–");
    default:
        return r.summary->samples ? formatMicros(double(v.toLongLong())) : QStringLiteral("–");
    }
}

QVariant RunSummaryModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SummaryRow& r = rowAt(index);
    const int column = index.column();
    const bool lost = r.summary && (r.summary->drops > 0 || r.summary->seqGaps > 0);
    switch (role) {
    case RawValueRole:
        return raw(r, column);
    case Qt::DisplayRole:
        return display(r, column);
    case Qt::DecorationRole:
        return column == Name && r.color.isValid() ? QVariant(r.color) : QVariant();
    case Qt::CheckStateRole:
        if (column == Name && m_checkable)
            return isChecked(index.row()) ? Qt::Checked : Qt::Unchecked;
        return {};
    case Qt::TextAlignmentRole:
        return int(column == Name || column == Note ? (Qt::AlignLeft | Qt::AlignVCenter)
                                                    : (Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if ((column == Note && r.failed) || (lost && (column == Dropped || column == Gaps)))
            return QBrush(QColor(colors::kWarningRed));
        return {};
    case Qt::FontRole:
        if (column == Name || column == Max || column == P999 || (column == Note && r.failed))
            return boldFont();
        return {};
    case Qt::ToolTipRole:
        switch (column) {
        case Note:
            return r.note;
        case Skipped:
            return tr("Periods missed entirely: the thread woke more than a whole period late.");
        case Dropped:
            return tr("Samples the ring buffer refused because it was full. Must be 0.");
        case Gaps:
            return tr("Samples missing from the sequence as the collector saw it. Must be 0.");
        default:
            return {};
        }
    default:
        return {};
    }
}

bool RunSummaryModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!m_checkable || role != Qt::CheckStateRole || index.column() != Name ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    const QString& name = rowAt(index).name;
    const bool checked = value.toInt() == Qt::Checked;
    auto it = std::find(m_unchecked.begin(), m_unchecked.end(), name);
    if (checked && it != m_unchecked.end())
        m_unchecked.erase(it);
    else if (!checked && it == m_unchecked.end())
        m_unchecked.push_back(name);
    emit dataChanged(index, index, {Qt::CheckStateRole});
    emit checkedChanged();
    return true;
}

Qt::ItemFlags RunSummaryModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (m_checkable && index.isValid() && index.column() == Name)
        f |= Qt::ItemIsUserCheckable;
    return f;
}

QVariant RunSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    return ColumnTableModel::headerData(section, orientation, role);
}

} // namespace rtscope

#include "moc_run_summary_model.cpp"
