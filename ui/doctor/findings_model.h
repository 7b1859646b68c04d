#pragma once
// The doctor's findings as a table (docs/doctor.md, "The Doctor page"): rank, the share of the measured lateness each
// explains, the culprit, the fix (from → to, and whether it needs a reboot), the trial's verdict and p99 before and
// after. Names from the machine are made printable before they are shown.
#include "engine/doctor/findings.h"

#include "ui/common/column_table_model.h"

#include <vector>

namespace rtscope {

class FindingsModel : public RowTableModel<doctor::Finding> {
    Q_OBJECT
public:
    enum Column { Rank, Share, Culprit, Fix, When, Verdict, P99, ColumnCount };

    explicit FindingsModel(QObject* parent = nullptr);

    /// Replaces the rows; the selection's finding keeps its row when it is still there (ids are stable).
    void setFindings(const std::vector<doctor::Finding>& findings);
    const doctor::Finding* finding(int row) const;
    int rowOf(const std::string& id) const;

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

    /// "helped", "no effect", "hurt" or "not tried" (why not: the cell's tooltip), as the Verdict column says it.
    static QString verdictText(const doctor::Finding& finding);
    /// "48.0 → 12.3 µs" (the trial's A and B phases), or "—" without a trial.
    static QString p99Text(const doctor::TrialResult& trial);

protected:
    QVariant headerToolTip(int column) const override;
};

} // namespace rtscope
