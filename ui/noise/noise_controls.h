#pragma once
// The noise page's control panel (left dock) and the one place where its widgets and NoiseConfig meet: the CPUs to
// measure (a button per online CPU; none ticked: the highest usable one), the pollers' policy and priority, the
// threshold, how long (until stopped, or a duration) and whether to trace. The widgets offer NoiseConfig's own
// limits; NoiseConfig::validate() is the one judge, and a config they cannot show is reported, never clamped.
#include "engine/experiments/noise/noise_config.h"
#include "ui/widgets/experiment_controls.h"

#include <QStringList>

#include <vector>

class QGridLayout;

namespace rtscope {

class NoiseControls : public ExperimentControls {
    Q_OBJECT
public:
    static constexpr int kDefaultRtPriority = 80;
    static constexpr int64_t kDefaultDurationNs = 10'000'000'000; ///< shown when "for a duration" is picked

    explicit NoiseControls(const std::vector<int>& cpus, QWidget* parent = nullptr);

    /// The config the controls describe; fields without a control come from @p base.
    NoiseConfig config(const NoiseConfig& base) const;
    /// Shows @p config without emitting edited(). Call unrepresentable() first.
    void setConfig(const NoiseConfig& config);
    /// Sentences for the fields of @p config these controls cannot show (a CPU without a button).
    QStringList unrepresentable(const NoiseConfig& config) const;
    /// The panel is its own mapper (PolledExperimentPage reads it through mapper()).
    NoiseControls& mapper() { return *this; }
    /// The CPU buttons become one per CPU of @p cpus (the measured machine's: this computer's or a target's); the
    /// ticked CPUs that remain stay ticked, and edited() is emitted once when a ticked CPU went away.
    void setCpus(const std::vector<int>& cpus);

    /// The button of CPU @p cpu (objectName "cpu<n>"), null when it has none.
    QToolButton* cpuButton(int cpu) const;
    QComboBox* policyBox() const { return m_policy; }
    QSpinBox* priorityBox() const { return m_priority; }
    DurationSpinBox* thresholdBox() const { return m_threshold; }
    QComboBox* lengthBox() const { return m_length; }
    DurationSpinBox* durationBox() const { return m_duration; }
    QCheckBox* traceBox() const { return m_trace; }

private:
    void updateEnabled();
    void setCpuButtons(const std::vector<int>& cpus);

    std::vector<QToolButton*> m_cpus;
    QComboBox* m_policy;
    QSpinBox* m_priority;
    DurationSpinBox* m_threshold;
    QComboBox* m_length; ///< 0 = until stopped, 1 = for a duration
    DurationSpinBox* m_duration;
    QCheckBox* m_trace;
    QGridLayout* m_cpuGrid;
};

} // namespace rtscope
