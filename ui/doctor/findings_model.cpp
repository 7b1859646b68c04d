#include "ui/doctor/findings_model.h"

#include "engine/util/printable.h"
#include "ui/common/colors.h"
#include "ui/common/text_format.h"

#include <QColor>

namespace rtscope {

using doctor::Finding;
using doctor::TrialResult;

namespace {

QString machineText(const std::string& machineText)
{
    return screenText(printable(machineText));
}

} // namespace

FindingsModel::FindingsModel(QObject* parent)
    : RowTableModel(
          {tr("#"), tr("Tail"), tr("Culprit"), tr("Fix"), tr("Applies"), tr("Trial"), tr("p99 without → with")}, parent)
{
    Q_ASSERT(columnCount() == ColumnCount);
}

void FindingsModel::setFindings(const std::vector<Finding>& findings)
{
    assignRowsBy(findings, &Finding::id);
}

const Finding* FindingsModel::finding(int row) const
{
    return row >= 0 && row < rowCount() ? &m_rows[size_t(row)] : nullptr;
}

int FindingsModel::rowOf(const std::string& id) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].id == id)
            return int(i);
    return -1;
}

QString FindingsModel::verdictText(const Finding& f)
{
    switch (f.trial.verdict) {
    case doctor::Verdict::Helped:
        return tr("helped");
    case doctor::Verdict::NoEffect:
        return tr("no effect");
    case doctor::Verdict::Hurt:
        return tr("hurt");
    case doctor::Verdict::NotTried:
        break;
    }
    return tr("not tried"); // why not is in the row's tooltip and the detail below the table
}

QString FindingsModel::p99Text(const TrialResult& trial)
{
    if (trial.verdict == doctor::Verdict::NotTried || trial.before.samples == 0)
        return QStringLiteral("—");
    return QStringLiteral("%1 → %2 µs")
        .arg(QString::fromStdString(doctor::usText(trial.before.p99Us)),
             QString::fromStdString(doctor::usText(trial.after.p99Us)));
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const
{
    const Finding* f = finding(index.row());
    if (!f)
        return {};
    if (role == Qt::DisplayRole) {
        switch (Column(index.column())) {
        case Rank:
            return index.row() + 1;
        case Share:
            return f->tailShare > 0 || f->share > 0 ? QString::fromStdString(doctor::shareText(f->tailShare))
                                                    : QStringLiteral("—");
        case Culprit:
            return machineText(f->title);
        case Fix:
            return machineText(f->fix.target) + QStringLiteral(": ") + machineText(f->fix.from) +
                   QStringLiteral(" → ") + machineText(f->fix.to);
        case When:
            return f->fix.runtime ? tr("now") : tr("reboot");
        case Verdict:
            return verdictText(*f);
        case P99:
            return p99Text(f->trial);
        case ColumnCount:
            break;
        }
    } else if (role == Qt::ToolTipRole) {
        if (index.column() == Verdict && !f->trial.why.empty())
            return machineText(f->trial.why);
        return machineText(f->evidence);
    } else if (role == Qt::ForegroundRole && index.column() == Verdict) {
        switch (f->trial.verdict) {
        case doctor::Verdict::Helped:
            return QColor(colors::kGreen800);
        case doctor::Verdict::Hurt:
            return QColor(colors::kWarningRed);
        default:
            return {};
        }
    } else if (role == Qt::TextAlignmentRole && (index.column() == Rank || index.column() == Share)) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant FindingsModel::headerToolTip(int column) const
{
    if (column == Share)
        return tr("The share of the worst wake-ups' lateness this finding explains");
    return {};
}

} // namespace rtscope

#include "moc_findings_model.cpp"
