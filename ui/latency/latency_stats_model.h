#pragma once
// The statistics table: one row for the live run (one per CPU when a replayed recording measured several) and, once
// held, one for the reference, so the runs of a comparison sit next to each other with the configs that produced them.
#include "ui/common/latency_view_data.h"

#include "ui/common/column_table_model.h"
#include <QColor>

#include <optional>
#include <vector>

namespace rtscope {

class LatencyStatsModel : public ColumnTableModel {
    Q_OBJECT
public:
    enum Column { Samples, Min, Avg, P50, P90, P99, P999, Max, Skipped, Dropped, Config, ColumnCount };
    enum class RowKind { Live, Reference };
    // RawValueRole: nanoseconds (qlonglong or double for Avg), counts (qulonglong), the label.

    explicit LatencyStatsModel(QObject* parent = nullptr);

    /// One row of the run, named "Live".
    void setLive(const std::optional<LatencyRunSummary>& summary);
    /// One row of the run per measuring thread: its name ("CPU 2") and the colour of its curves.
    struct LiveRow {
        QString name;
        LatencyRunSummary summary;
        QColor color; ///< invalid: the live colour
    };
    /// A row per measuring thread; empty removes them.
    void setLiveRows(const std::vector<LiveRow>& rows);
    void setReference(const std::optional<LatencyRunSummary>& summary);
    /// The first row of the run, if any.
    std::optional<LatencyRunSummary> live() const;
    int liveRowCount() const { return int(m_live.size()); }
    const std::optional<LatencyRunSummary>& reference() const { return m_reference; }
    RowKind rowKind(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    /// The columns' headers, and each row's name in the run's colour.
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    QVariant headerToolTip(int column) const override;

private:
    const LatencyRunSummary& summary(int row) const;
    QVariant raw(const LatencyRunSummary& s, int column) const;

    std::vector<LiveRow> m_live; ///< the rows of the run
    std::optional<LatencyRunSummary> m_reference;
};

} // namespace rtscope
