#pragma once
// The inversion page's control panel (left dock) and the one place where its widgets and InversionConfig
// meet. The CPU list also offers the reserved CPU, so that choosing it is refused with validate()'s sentence
// rather than silently impossible. "Then compare with" is not part of the config: it asks the page to hold a
// finished run as the reference and run again with another lock, so one Start shows both.
#include "engine/experiments/locks/inversion_config.h"
#include "ui/widgets/experiment_controls.h"
#include "ui/widgets/widget_mapper.h"

#include <memory>
#include <optional>
#include <vector>

namespace rtscope {

/// The widgets an InversionConfig maps to (owned by InversionControls).
struct InversionControlWidgets {
    QComboBox* lock = nullptr;
    DurationSpinBox* burst = nullptr;
    DurationSpinBox* hold = nullptr;
    DurationSpinBox* period = nullptr;
    DurationSpinBox* duration = nullptr;
    QComboBox* cpu = nullptr; ///< -1 = auto
    QSpinBox* lowPriority = nullptr;
    QSpinBox* mediumPriority = nullptr;
    QSpinBox* highPriority = nullptr;
};

class InversionConfigMapper : public WidgetMapper<InversionControlWidgets> {
public:
    using WidgetMapper::WidgetMapper;

    void populate(const std::vector<int>& cpus);
    /// Sentences for the fields of @p config these controls cannot show (validate() covers the ranges).
    QStringList unrepresentable(const InversionConfig& config) const;
    /// Shows @p config without emitting the widgets' change signals. Call unrepresentable() first.
    void setConfig(const InversionConfig& config);
    InversionConfig config(const InversionConfig& base) const;
};

class InversionControls : public MappedControls<InversionConfigMapper> {
    Q_OBJECT
public:
    explicit InversionControls(const std::vector<int>& cpus, QWidget* parent = nullptr);

    /// The lock of the follow-up run, if one is chosen.
    std::optional<LockKind> compareWith() const;
    void setCompareWith(std::optional<LockKind> lock);

private:
    QComboBox* m_compare;
};

} // namespace rtscope
