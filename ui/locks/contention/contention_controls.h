#pragma once
// The contention page's control panel (left dock) and the one place where its widgets and ContentionConfig
// meet. The widgets offer ContentionConfig's own limits; a config they cannot show is reported, never clamped.
#include "engine/experiments/locks/contention_config.h"
#include "ui/widgets/experiment_controls.h"
#include "ui/widgets/widget_mapper.h"

#include <map>
#include <memory>
#include <vector>

namespace rtscope {

/// The widgets a ContentionConfig maps to (owned by ContentionControls).
struct ContentionControlWidgets {
    std::map<LockKind, QCheckBox*> kinds; ///< one switch per contention kind
    QSpinBox* threads = nullptr;
    QComboBox* placement = nullptr; ///< Placement
    QComboBox* cpu = nullptr;       ///< -1 = auto; one-cpu only
    QComboBox* policy = nullptr;
    QSpinBox* priority = nullptr; ///< FIFO/RR only
    QSpinBox* nice = nullptr;
    DurationSpinBox* hold = nullptr;
    DurationSpinBox* work = nullptr;
    DurationSpinBox* duration = nullptr; ///< per kind
    QSpinBox* spinLimit = nullptr;
    QCheckBox* stealing = nullptr;
};

class ContentionConfigMapper : public WidgetMapper<ContentionControlWidgets> {
public:
    using WidgetMapper::WidgetMapper;

    /// Fills choices and ranges from ContentionConfig's limits and the kernel's priority range.
    void populate(const std::vector<int>& cpus);
    /// Sentences for the fields of @p config these controls cannot show (validate() covers the ranges).
    QStringList unrepresentable(const ContentionConfig& config) const;
    /// Shows @p config without emitting the widgets' change signals. Call unrepresentable() first.
    void setConfig(const ContentionConfig& config);
    /// The config the controls describe. The kinds keep @p base's order when the same set is ticked (a preset
    /// may run pi before mutex); a new set runs in the canonical order.
    ContentionConfig config(const ContentionConfig& base) const;
    /// Priority only for FIFO/RR, nice only for the others, CPU only for one-cpu, the adaptive tunables only
    /// when rtscope's adaptive lock is ticked.
    void updateEnabled();
};

class ContentionControls : public MappedControls<ContentionConfigMapper> {
    Q_OBJECT
public:
    explicit ContentionControls(const std::vector<int>& cpus, QWidget* parent = nullptr);
};

} // namespace rtscope
