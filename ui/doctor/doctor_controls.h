#pragma once
// The Doctor page's controls (docs/doctor.md, "The Doctor page"): the CPU to tune, the measuring thread (policy,
// priority, period), the load the whole run carries, how long it measures (quick, default, thorough) and whether it
// only diagnoses or also tries the fixes. The panel edits a DoctorPlan; its validate() is the one judge.
#include "engine/doctor/doctor_run.h"
#include "ui/widgets/experiment_controls.h"

namespace rtscope {

class DoctorControls : public ExperimentControls {
    Q_OBJECT
public:
    explicit DoctorControls(const std::vector<int>& cpus, QWidget* parent = nullptr);

    /// @p base with the panel's fields (CPU, policy, priority, period, load, depth, trials) set.
    doctor::DoctorPlan plan(doctor::DoctorPlan base = {}) const;
    /// Shows @p plan's fields (emits nothing).
    void setPlan(const doctor::DoctorPlan& plan);

private:
    QComboBox* m_cpu;
    QComboBox* m_policy;
    QSpinBox* m_priority;
    QSpinBox* m_periodUs;
    QComboBox* m_load;
    QComboBox* m_depth;
    QCheckBox* m_tryFixes;
};

} // namespace rtscope
