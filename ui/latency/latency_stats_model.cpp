#include "ui/latency/latency_stats_model.h"

#include "ui/common/text_format.h"
#include "ui/plot/chart_style.h"

#include <QBrush>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <vector>

namespace rtscope {

LatencyStatsModel::LatencyStatsModel(QObject* parent)
    // The unit on a second line: one word wide, so every column, "dropped" included, fits at 1366×768.
    : ColumnTableModel({tr("samples"), tr("min\nµs"), tr("avg\nµs"), tr("p50\nµs"), tr("p90\nµs"), tr("p99\nµs"),
                        tr("p99.9\nµs"), tr("max\nµs"), tr("skipped"), tr("dropped"), tr("config")},
                       parent)
{
    Q_ASSERT(columnCount() == ColumnCount);
}

int LatencyStatsModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid())
        return 0;
    return int(m_live.size()) + int(m_reference.has_value());
}

LatencyStatsModel::RowKind LatencyStatsModel::rowKind(int row) const
{
    return row < int(m_live.size()) ? RowKind::Live : RowKind::Reference;
}

const LatencyRunSummary& LatencyStatsModel::summary(int row) const
{
    return rowKind(row) == RowKind::Live ? m_live[size_t(row)].summary : *m_reference;
}

std::optional<LatencyRunSummary> LatencyStatsModel::live() const
{
    if (m_live.empty())
        return std::nullopt;
    return m_live.front().summary;
}

void LatencyStatsModel::setLive(const std::optional<LatencyRunSummary>& s)
{
    if (s)
        setLiveRows({{tr("Live"), *s, QColor()}});
    else
        setLiveRows({});
}

void LatencyStatsModel::setLiveRows(const std::vector<LiveRow>& rows)
{
    const int had = int(m_live.size()), has = int(rows.size());
    // 60 times a second the rows only change their figures: dataChanged, never a reset, keeps the view cheap.
    if (has > had) {
        beginInsertRows({}, had, has - 1);
        m_live.insert(m_live.end(), rows.begin() + had, rows.end());
        endInsertRows();
    } else if (has < had) {
        beginRemoveRows({}, has, had - 1);
        m_live.resize(size_t(has));
        endRemoveRows();
    }
    const bool renamed = !std::equal(rows.begin(), rows.end(), m_live.begin(), [](const LiveRow& a, const LiveRow& b) {
        return a.name == b.name && a.color == b.color;
    });
    // The figures shown before, to report only the cells whose text changed: a view repaints one changed cell, but
    // its whole viewport for a range (60 times a second, most figures stay as they were).
    const int kept = std::min(had, has);
    std::vector<QString> before;
    if (!renamed) {
        before.reserve(size_t(kept) * ColumnCount);
        for (int r = 0; r < kept; ++r)
            for (int c = 0; c < ColumnCount; ++c)
                before.push_back(data(index(r, c)).toString());
    }
    std::copy(rows.begin(), rows.end(), m_live.begin());
    if (renamed) {
        if (has > 0) {
            emit dataChanged(index(0, 0), index(has - 1, ColumnCount - 1));
            emit headerDataChanged(Qt::Vertical, 0, has - 1);
        }
        return;
    }
    for (int r = 0; r < kept; ++r)
        for (int c = 0; c < ColumnCount; ++c)
            if (data(index(r, c)).toString() != before[size_t(r * ColumnCount + c)])
                emit dataChanged(index(r, c), index(r, c));
}

void LatencyStatsModel::setReference(const std::optional<LatencyRunSummary>& s)
{
    const int row = int(m_live.size());
    if (s && m_reference) {
        m_reference = s;
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    } else if (s) {
        beginInsertRows({}, row, row);
        m_reference = s;
        endInsertRows();
    } else if (m_reference) {
        beginRemoveRows({}, row, row);
        m_reference.reset();
        endRemoveRows();
    }
}

QVariant LatencyStatsModel::raw(const LatencyRunSummary& s, int column) const
{
    using S = LatencyRunSummary;
    return rawColumn(s, column, &S::samples, &S::minNs, &S::avgNs, &S::p50Ns, &S::p90Ns, &S::p99Ns, &S::p999Ns,
                     &S::maxNs, &S::skipped, &S::drops, &S::label);
}

QVariant LatencyStatsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const LatencyRunSummary& s = summary(index.row());
    const int column = index.column();
    const bool empty = s.samples == 0;
    switch (role) {
    case RawValueRole:
        return raw(s, column);
    case Qt::DisplayRole:
        switch (column) {
        case Samples:
        case Skipped:
        case Dropped:
            return QString::number(raw(s, column).toULongLong());
        case Config:
            return s.label;
        case Avg:
            return empty ? QString("–") : formatMicros(s.avgNs);
        default:
            return empty ? QString("–") : formatMicros(double(raw(s, column).toLongLong()));
        }
    case Qt::TextAlignmentRole:
        return int(column == Config ? (Qt::AlignLeft | Qt::AlignVCenter) : (Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (column == Dropped && s.drops > 0)
            return QBrush(Qt::red);
        return {};
    case Qt::FontRole:
        if ((column == Dropped && s.drops > 0) || column == Max || column == P999) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole:
        if (column == Dropped)
            return tr("Samples the ring buffer refused because it was full (%1 sequence gaps seen). Must be 0.")
                .arg(s.seqGaps);
        if (column == Skipped)
            return tr("Periods missed entirely: the thread woke more than a whole period late.");
        if (column == Config)
            return s.label;
        return {};
    default:
        return {};
    }
}

QVariant LatencyStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Vertical) {
        if (section < 0 || section >= rowCount())
            return {};
        const bool live = rowKind(section) == RowKind::Live;
        if (role == Qt::DisplayRole)
            return live ? m_live[size_t(section)].name : tr("Reference");
        if (role == Qt::ForegroundRole) {
            const plot::ChartColors c = plot::chartColors(QGuiApplication::palette());
            if (live && m_live[size_t(section)].color.isValid())
                return QBrush(m_live[size_t(section)].color);
            return QBrush(live ? c.live : c.reference);
        }
        return {};
    }
    return ColumnTableModel::headerData(section, orientation, role);
}

QVariant LatencyStatsModel::headerToolTip(int column) const
{
    switch (column) {
    case Skipped:
        return tr("Periods missed entirely");
    case Dropped:
        return tr("Samples lost because the ring buffer was full (must be 0)");
    case Config:
        return tr("The configuration that produced the figures");
    default:
        return column >= 0 && column < ColumnCount ? tr("Latency = actual wake-up − deadline, in microseconds")
                                                   : QVariant();
    }
}

} // namespace rtscope

#include "moc_latency_stats_model.cpp"
