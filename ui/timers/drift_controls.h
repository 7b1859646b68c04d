#pragma once
// The drift page's control panel (left dock) and the one place where its widgets and DriftConfig meet. The
// widgets offer DriftConfig's own limits; a config they cannot show is reported, never clamped.
#include "engine/experiments/timers/drift_config.h"

#include "ui/timers/timer_controls.h"
#include "ui/widgets/experiment_controls.h"
#include "ui/widgets/widget_mapper.h"

#include <QStringList>
#include <QWidget>

#include <map>
#include <memory>
#include <vector>

class QLabel;

namespace rtscope {

/// The widgets a DriftConfig maps to (owned by DriftControls).
struct DriftControlWidgets {
    PeriodEditor* period = nullptr;
    QSpinBox* workPercent = nullptr; ///< work per tick, % of the period
    QComboBox* lengthMode = nullptr; ///< 0 = ticks, 1 = duration
    QSpinBox* ticks = nullptr;
    DurationSpinBox* duration = nullptr;
    QComboBox* policy = nullptr;
    QSpinBox* priority = nullptr;
    QComboBox* slack = nullptr; ///< SlackChoice
    DurationSpinBox* slackCustom = nullptr;
    QComboBox* cpu = nullptr; ///< -1 = auto
    std::map<WaiterKind, QCheckBox*> methods;
};

class DriftConfigMapper : public WidgetMapper<DriftControlWidgets> {
public:
    static constexpr int kDefaultRtPriority = 80;
    static constexpr int64_t kMinDurationNs = 2 * DriftConfig::kMinPeriodNs;

    using WidgetMapper::WidgetMapper;

    /// Fills choices and ranges from DriftConfig's limits and the kernel's priority range.
    void populate(const std::vector<int>& cpus);
    /// Sentences for the fields of @p config these controls cannot show.
    QStringList unrepresentable(const DriftConfig& config) const;
    /// Shows @p config without emitting the widgets' change signals. Call unrepresentable() first.
    void setConfig(const DriftConfig& config);
    /// The config the controls describe; the stall fields (no control) come from @p base.
    DriftConfig config(const DriftConfig& base) const;
    /// Priority only for FIFO/RR, the custom slack only when chosen, ticks or duration as selected.
    void updateEnabled();

    SlackWidgets slackWidgets() const { return {m_w.slack, m_w.slackCustom}; }
};

class DriftControls : public MappedControls<DriftConfigMapper> {
    Q_OBJECT
public:
    explicit DriftControls(const std::vector<int>& cpus, QWidget* parent = nullptr);
};

} // namespace rtscope
