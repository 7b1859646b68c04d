#include "ui/compare/compare_table_model.h"

namespace rtscope {

namespace {

double compareSortValue(const BinPercentile& p)
{
    return p.lowerBound ? double(p.us) + 0.5 : double(p.us);
}

} // namespace

CompareTableModel::CompareTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

void CompareTableModel::setResults(std::vector<ComparedResult> results, std::vector<QColor> colors)
{
    beginResetModel();
    m_results = std::move(results);
    m_colors = std::move(colors);
    m_colors.resize(m_results.size());
    endResetModel();
}

int CompareTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_results.size());
}

int CompareTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CompareTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const ComparedResult& r = m_results[size_t(index.row())];
    const auto percentile = [&](const BinPercentile& p) -> QVariant {
        if (role == SortRole)
            return compareSortValue(p);
        if (role == Qt::ToolTipRole && p.lowerBound)
            return tr("Among the %1 samples beyond the file's last bin (%2 µs): the file says only that it is at "
                      "least that")
                .arg(groupedCount(r.overflows))
                .arg(r.binsUs);
        return role == Qt::DisplayRole ? comparedPercentileText(r, p) : QVariant();
    };
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Samples ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role == Qt::DecorationRole && index.column() == File)
        return m_colors[size_t(index.row())];
    switch (index.column()) {
    case File:
        if (role == Qt::ToolTipRole)
            return tr("%1 (%2)%3").arg(r.path, r.format, r.note.isEmpty() ? QString() : " — " + r.note);
        if (role == Qt::DisplayRole || role == SortRole)
            return r.note.isEmpty() ? r.fileName : "⚠ " + r.fileName;
        return {};
    case Host:
        return role == Qt::DisplayRole || role == SortRole ? QVariant(r.host) : QVariant();
    case Kernel:
        return role == Qt::DisplayRole || role == SortRole ? QVariant(r.kernel) : QVariant();
    case Cpus:
        return role == Qt::DisplayRole || role == SortRole ? QVariant(r.cpus) : QVariant();
    case Samples:
        if (role == SortRole)
            return double(r.samples);
        return role == Qt::DisplayRole ? QVariant(groupedCount(r.samples)) : QVariant();
    case P50:
        return percentile(r.p50);
    case P99:
        return percentile(r.p99);
    case P999:
        return percentile(r.p999);
    case P9999:
        return percentile(r.p9999);
    case Max:
        if (role == SortRole)
            return double(r.maxUs);
        return role == Qt::DisplayRole ? QVariant(r.samples ? QString::number(r.maxUs) : QString("no samples"))
                                       : QVariant();
    case Overflows:
        if (role == SortRole)
            return double(r.overflows);
        if (role == Qt::ToolTipRole)
            return tr("Samples at or beyond the file's last bin, %1 µs").arg(r.binsUs);
        return role == Qt::DisplayRole ? QVariant(groupedCount(r.overflows)) : QVariant();
    default:
        return {};
    }
}

QVariant CompareTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char* const kNames[ColumnCount] = {"File",        "Host",     "Kernel",   "CPUs",
                                                    "Samples",     "p50 (µs)", "p99 (µs)", "p99.9 (µs)",
                                                    "p99.99 (µs)", "Max (µs)", "Overflows"};
    return section >= 0 && section < ColumnCount ? QVariant(tr(kNames[section])) : QVariant();
}

} // namespace rtscope
