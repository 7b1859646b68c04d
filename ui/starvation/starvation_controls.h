#pragma once
// The starvation page's control panel (left dock) and the one place where its widgets and StarvationConfig meet.
// The widgets offer exactly the ranges StarvationConfig allows; the CPU list also offers the reserved CPUs, so
// that choosing one is refused with validate()'s sentence instead of silently being impossible.
#include "engine/experiments/starvation/starvation_config.h"
#include "ui/widgets/experiment_controls.h"
#include "ui/widgets/widget_mapper.h"

#include <QStringList>

#include <memory>
#include <vector>

namespace rtscope {

/// The widgets a StarvationConfig maps to (owned by StarvationControls).
struct StarvationControlWidgets {
    DurationSpinBox* burst = nullptr;
    DurationSpinBox* gap = nullptr;
    QSpinBox* bursts = nullptr; ///< 0 = repeat until stopped
    QComboBox* policy = nullptr;
    QSpinBox* priority = nullptr;
    QSpinBox* counters = nullptr;
    QSpinBox* counterNice = nullptr;
    QComboBox* cpu = nullptr; ///< -1 = auto
    QCheckBox* controlCounter = nullptr;
};

class StarvationConfigMapper : public WidgetMapper<StarvationControlWidgets> {
public:
    using WidgetMapper::WidgetMapper;

    /// Fills the choices and ranges from StarvationConfig's limits and the kernel's priority range.
    void populate(const std::vector<int>& cpus);
    /// Sentences for the fields of @p config that these controls cannot show.
    QStringList unrepresentable(const StarvationConfig& config) const;
    /// Shows @p config in the controls without emitting their change signals. Call unrepresentable() first.
    void setConfig(const StarvationConfig& config);
    /// The config the controls describe; fields without a control (sampler priority, reserved CPUs, control
    /// CPU) come from @p base.
    StarvationConfig config(const StarvationConfig& base) const;
};

/// The frame (problems, run status, the hint, read-only while the spinner runs, edited()) is ExperimentControls'.
class StarvationControls : public MappedControls<StarvationConfigMapper> {
    Q_OBJECT
public:
    explicit StarvationControls(const std::vector<int>& cpus, QWidget* parent = nullptr);
};

} // namespace rtscope
