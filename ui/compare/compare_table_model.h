#pragma once
// The comparison's table: a row per file (file, host, kernel, CPUs, samples, p50 … p99.99, max, overflows). Sorting
// is the view's (a QSortFilterProxyModel on SortRole), worst maximum first by default.
#include "ui/compare/compare_data.h"

#include "ui/common/column_table_model.h"
#include <QColor>

#include <vector>

namespace rtscope {

class CompareTableModel : public RowTableModel<ComparedResult> {
    Q_OBJECT
public:
    enum Column { File, Host, Kernel, Cpus, Samples, P50, P99, P999, P9999, Max, Overflows, ColumnCount };
    /// What a column sorts by: µs or counts as numbers (a percentile beyond the last bin just past the bins' end,
    /// above every value inside them), the text otherwise.
    static constexpr int SortRole = RawValueRole;

    explicit CompareTableModel(QObject* parent = nullptr);

    /// @p colors[i] is the colour of @p results[i]'s curve (a swatch in its File cell).
    void setResults(std::vector<ComparedResult> results, std::vector<QColor> colors);
    const std::vector<ComparedResult>& results() const { return m_rows; }

    QVariant data(const QModelIndex& index, int role) const override;

private:
    std::vector<QColor> m_colors;
};

} // namespace rtscope
