#pragma once
// The noise page's culprit table: everything that took time from a measured CPU, longest total first, as the
// snapshot lists it (NoiseSnapshot::culprits): its kind (with the colour of the bars), its name, the CPU it took time
// from, the thread's pid and scheduling, how many times it ran inside a gap, its total time, that time as a share of
// the CPU, and its longest single stretch.
#include "engine/experiments/noise/noise_snapshot.h"
#include "ui/plot/noise_cpu_bars.h"

#include "ui/common/column_table_model.h"

#include <vector>

namespace rtscope {

/// The part of the bars a kind of noise is drawn as (the same colour in the bars, the legend and the table).
NoisePart noisePartOf(NoiseKind kind);
/// A count in groups of three digits with thin spaces ("40 000 000"): readable from the back of a room.
QString noiseCountText(uint64_t count);

class NoiseCulpritModel : public RowTableModel<NoiseCulprit> {
    Q_OBJECT
public:
    // RawValueRole: ns as qlonglong, percent as double, counts as qulonglong.
    enum Column { Kind, Name, Cpu, PidSched, Count, Total, Percent, MaxSingle, Columns };

    explicit NoiseCulpritModel(QObject* parent = nullptr);

    void setCulprits(const std::vector<NoiseCulprit>& culprits);
    const std::vector<NoiseCulprit>& culprits() const { return m_rows; }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    QVariant headerToolTip(int column) const override;
};

} // namespace rtscope
