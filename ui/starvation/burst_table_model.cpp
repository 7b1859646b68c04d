#include "ui/starvation/burst_table_model.h"

#include "engine/util/units.h"
#include "ui/common/colors.h"
#include "ui/common/text_format.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <cmath>

namespace rtscope {

namespace {
QString duration(int64_t ns)
{
    return durationQt(ns);
}
} // namespace

QString formatCount(double v)
{
    const double a = std::fabs(v);
    if (a < 1e3)
        return QString::number(v, 'f', 0);
    if (a < 1e6)
        return QString::number(v / 1e3, 'f', a < 1e4 ? 2 : a < 1e5 ? 1 : 0) + " k";
    if (a < 1e9)
        return QString::number(v / 1e6, 'f', a < 1e7 ? 2 : a < 1e8 ? 1 : 0) + " M";
    return QString::number(v / 1e9, 'f', a < 1e10 ? 2 : a < 1e11 ? 1 : 0) + " G";
}

QString windowsText(const BurstRecord& b)
{
    if (b.windows.empty())
        return b.spinning() || !b.windowsFinal ? QStringLiteral("none yet") : QStringLiteral("none");
    QStringList parts;
    for (const ThrottleWindow& w : b.windows)
        parts << QString("%1 at +%2").arg(duration(w.lengthNs()), duration(w.offsetNs));
    return QString("%1: %2").arg(b.windows.size()).arg(parts.join(", "));
}

BurstTableModel::BurstTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

void BurstTableModel::setSnapshot(const StarvationSnapshot& s)
{
    std::vector<CounterInfo> counters;
    for (const CounterStats& c : s.counters)
        counters.push_back({QString::fromStdString(c.label), c.control});
    const bool sameShape = counters.size() == m_counters.size() && s.bursts.size() >= m_bursts.size() &&
                           std::equal(counters.begin(), counters.end(), m_counters.begin(),
                                      [](const CounterInfo& a, const CounterInfo& b) { return a.label == b.label; });
    if (!sameShape) {
        beginResetModel();
        m_counters = std::move(counters);
        m_bursts = s.bursts;
        endResetModel();
        return;
    }
    const int old = int(m_bursts.size());
    if (old > 0) {
        for (int r = 0; r < old; ++r)
            m_bursts[size_t(r)] = s.bursts[size_t(r)];
        emit dataChanged(index(0, 0), index(old - 1, columnCount() - 1));
    }
    if (s.bursts.size() > m_bursts.size()) {
        beginInsertRows({}, old, int(s.bursts.size()) - 1);
        m_bursts.insert(m_bursts.end(), s.bursts.begin() + old, s.bursts.end());
        endInsertRows();
    }
}

void BurstTableModel::clear()
{
    beginResetModel();
    m_counters.clear();
    m_bursts.clear();
    endResetModel();
}

int BurstTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_bursts.size());
}

int BurstTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : FirstCounterColumn + 2 * counterCount() + 1;
}

QVariant BurstTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const BurstRecord& b = m_bursts[size_t(index.row())];
    const int col = index.column();
    const int n = counterCount();
    const bool during = col >= FirstCounterColumn && col < FirstCounterColumn + n;
    const bool after = col >= FirstCounterColumn + n && col < FirstCounterColumn + 2 * n;
    const int counter = during ? col - FirstCounterColumn : after ? col - FirstCounterColumn - n : -1;

    if (role == RawValueRole) {
        if (col == Burst)
            return b.index;
        if (col == Spinner)
            return qlonglong(b.spinnerNs());
        if (during)
            return qulonglong(b.during[size_t(counter)]);
        if (after)
            return qulonglong(b.after[size_t(counter)]);
        return int(b.windows.size());
    }
    if (role == Qt::DisplayRole) {
        if (col == Burst) {
            QString text = QString::number(b.index);
            if (b.watchdogDemoted)
                text += QStringLiteral(" ⚠ watchdog");
            else if (b.interrupted)
                text += QStringLiteral(" (stopped)");
            return text;
        }
        if (col == Spinner)
            return b.spinning() ? QStringLiteral("spinning…") : duration(b.spinnerNs());
        if (during)
            return b.spinning() ? QStringLiteral("…") : formatCount(double(b.during[size_t(counter)]));
        if (after) {
            if (b.spinning())
                return QString();
            const QString ops = formatCount(double(b.after[size_t(counter)]));
            return b.gapEndNs ? QString("%1 in %2").arg(ops, duration(b.gapNs())) : ops + QStringLiteral(" …");
        }
        return b.spinning() ? QString() : windowsText(b);
    }
    if (role == Qt::TextAlignmentRole)
        return col == windowsColumn() ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole) {
        if (col == Burst && b.watchdogDemoted)
            return QBrush(QColor(colors::kWarningRed));
        // A starved counter's zero is the lesson; progress during a burst is the kernel's safety net.
        if (during && !b.spinning() && !m_counters[size_t(counter)].control)
            return QBrush(b.during[size_t(counter)] == 0 ? QColor(colors::kGreen800) : QColor(colors::kOrange900));
    }
    if (role == Qt::FontRole && during && !m_counters[size_t(counter)].control) {
        QFont f;
        f.setBold(true);
        return f;
    }
    return {};
}

QVariant BurstTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    const int n = counterCount();
    if (section == Burst)
        return tr("Burst");
    if (section == Spinner)
        return tr("Spinner ran");
    if (section >= FirstCounterColumn && section < FirstCounterColumn + n)
        return tr("%1\nduring burst").arg(m_counters[size_t(section - FirstCounterColumn)].label);
    if (section >= FirstCounterColumn + n && section < FirstCounterColumn + 2 * n)
        return tr("%1\nin the gap after").arg(m_counters[size_t(section - FirstCounterColumn - n)].label);
    if (section == windowsColumn())
        return tr("Windows in the burst\n(length at offset)");
    return {};
}

} // namespace rtscope

#include "moc_burst_table_model.cpp"
