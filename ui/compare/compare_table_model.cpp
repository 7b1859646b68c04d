#include "ui/compare/compare_table_model.h"

namespace rtscope {

namespace {

double compareSortValue(const BinPercentile& p)
{
    return p.lowerBound ? double(p.us) + 0.5 : double(p.us);
}

} // namespace

CompareTableModel::CompareTableModel(QObject* parent)
    : RowTableModel({tr("File"), tr("Host"), tr("Kernel"), tr("CPUs"), tr("Samples"), tr("p50 (µs)"), tr("p99 (µs)"),
                     tr("p99.9 (µs)"), tr("p99.99 (µs)"), tr("Max (µs)"), tr("Overflows")},
                    parent)
{
    Q_ASSERT(columnCount() == ColumnCount);
}

void CompareTableModel::setResults(std::vector<ComparedResult> results, std::vector<QColor> colors)
{
    colors.resize(results.size());
    m_colors = std::move(colors); // read by data() only, and nothing is emitted before assignRows() resets
    assignRows(std::move(results), false);
}

QVariant CompareTableModel::data(const QModelIndex& index, int role) const
{
    if (!isCell(index))
        return {};
    const ComparedResult& r = rowAt(index);
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

} // namespace rtscope

#include "moc_compare_table_model.cpp"
