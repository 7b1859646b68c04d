#include "ui/locks/inversion/inversion_table_model.h"

#include "ui/common/colors.h"
#include "ui/common/text_format.h"
#include "ui/plot/chart_style.h"

#include <QBrush>
#include <QFont>
#include <QGuiApplication>

namespace rtscope {

InversionTableModel::InversionTableModel(QObject* parent)
    // Two-line headers keep every column on screen next to the lanes.
    : ColumnTableModel({tr("Run"), tr("Lock"), tr("Periods"), tr("Found the\nlock held"), tr("Missed"),
                        tr("High's wait\np50"), tr("p99"), tr("max"), tr("Medium ran while\nhigh waited"),
                        tr("Dropped")},
                       parent)
{
    Q_ASSERT(columnCount() == Count);
}

void InversionTableModel::setLive(const std::optional<InversionRunSummary>& live)
{
    setRun(m_live, live);
}

void InversionTableModel::setReference(const std::optional<InversionRunSummary>& reference)
{
    setRun(m_reference, reference);
}

void InversionTableModel::setRun(std::optional<InversionRunSummary>& run,
                                 const std::optional<InversionRunSummary>& summary)
{
    const bool countChanged = summary.has_value() != run.has_value();
    if (countChanged)
        beginResetModel();
    run = summary;
    rowsChanged(countChanged);
}

void InversionTableModel::rowsChanged(bool countChanged)
{
    if (countChanged) {
        endResetModel();
        return;
    }
    allCellsChanged();
}

int InversionTableModel::liveRow() const
{
    return m_live ? (m_reference ? 1 : 0) : -1;
}

const InversionRunSummary* InversionTableModel::rowAt(int row, bool* reference) const
{
    if (m_reference && row == 0) {
        *reference = true;
        return &*m_reference;
    }
    *reference = false;
    return row == liveRow() ? &*m_live : nullptr;
}

int InversionTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_reference.has_value()) + int(m_live.has_value());
}

QVariant InversionTableModel::data(const QModelIndex& index, int role) const
{
    if (!isCell(index))
        return {};
    bool reference = false;
    const InversionRunSummary* r = rowAt(index.row(), &reference);
    if (!r)
        return {};
    const bool any = r->periods > 0;
    using S = InversionRunSummary;
    if (role == RawValueRole)
        return rawColumn(
            *r, index.column(), [reference](const S&) { return reference ? QString("reference") : QString("live"); },
            [](const S& r) { return QString::fromLatin1(lockKindName(r.lock)); }, &S::periods, &S::contended,
            &S::missed, &S::waitP50Ns, &S::waitP99Ns, &S::waitMaxNs, &S::mediumRanWhileHighWaitedNs, &S::drops);
    if (role == Qt::DisplayRole) {
        switch (Column(index.column())) {
        case Run:
            return reference ? tr("reference") : tr("live · %1").arg(r->state);
        case Lock:
            return QString::fromLatin1(lockKindName(r->lock));
        case Periods:
            return QString::number(r->periods);
        case Contended:
            return QString::number(r->contended);
        case Missed:
            return QString::number(r->missed);
        case WaitP50:
            return any ? formatLatency(double(r->waitP50Ns)) : QString("–");
        case WaitP99:
            return any ? formatLatency(double(r->waitP99Ns)) : QString("–");
        case WaitMax:
            return any ? formatLatency(double(r->waitMaxNs)) : QString("–");
        case MediumRan:
            return any ? tr("%1 (%2 / period)")
                             .arg(formatLatency(double(r->mediumRanWhileHighWaitedNs)),
                                  formatLatency(r->mediumPerPeriodNs()))
                       : QString("–");
        case Dropped:
            return QString::number(r->drops);
        case Count:
            break;
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return int((index.column() <= Lock ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    if (role == Qt::FontRole && (index.column() == WaitP50 || index.column() == MediumRan))
        return boldFont();
    if (role == Qt::ForegroundRole) {
        if (index.column() == Dropped && r->drops > 0)
            return QBrush(QColor(colors::kWarningRed));
        if (reference && index.column() == Run)
            return QBrush(plot::chartColors(QGuiApplication::palette()).reference);
    }
    if (role == Qt::ToolTipRole && index.column() == MediumRan)
        return tr("The inversion: time in which the medium thread ran while high waited for the lock. The low "
                  "thread (the holder) ran %1 of high's waits.")
            .arg(formatLatency(double(r->lowRanWhileHighWaitedNs)));
    if (role == Qt::ToolTipRole && index.column() == Run && !r->error.isEmpty())
        return r->error;
    if (role == Qt::ToolTipRole && index.column() == Lock)
        return inversionLockText(r->lock);
    return {};
}

} // namespace rtscope

#include "moc_inversion_table_model.cpp"
