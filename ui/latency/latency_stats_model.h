#pragma once
// The statistics table: one row for the live run and, once held, one for the reference, so the two runs of
// a comparison sit next to each other with the configs that produced them.
#include "ui/latency/latency_view_data.h"

#include <QAbstractTableModel>

#include <optional>

namespace rtscope {

class LatencyStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Samples, Min, Avg, P50, P90, P99, P999, Max, Skipped, Dropped, Config, ColumnCount };
    enum class RowKind { Live, Reference };
    /// The unformatted value: nanoseconds (qlonglong or double for Avg), counts (qulonglong), the label.
    static constexpr int RawValueRole = Qt::UserRole + 1;

    explicit LatencyStatsModel(QObject* parent = nullptr);

    void setLive(const std::optional<LatencyRunSummary>& summary);
    void setReference(const std::optional<LatencyRunSummary>& summary);
    const std::optional<LatencyRunSummary>& live() const { return m_live; }
    const std::optional<LatencyRunSummary>& reference() const { return m_reference; }
    RowKind rowKind(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const LatencyRunSummary& summary(int row) const;
    QVariant raw(const LatencyRunSummary& s, int column) const;

    std::optional<LatencyRunSummary> m_live;
    std::optional<LatencyRunSummary> m_reference;
};

} // namespace rtscope
