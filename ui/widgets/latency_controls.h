#pragma once
// The latency experiment's control panel (left dock) of the latency page, which the per-CPU and sweep pages reuse
// with a field more or less: policy, priority, period, hogs, CPUs, waiter, and the problems validate() or the engine
// reported, right below the controls that caused them. The frame (problems, run status, hint, edited()) is
// ExperimentControls'; unlike the other panels this one never goes read-only: every change applies to the running
// experiment at once.
#include "ui/widgets/experiment_controls.h"
#include "ui/widgets/latency_config_mapper.h"

#include <memory>
#include <vector>

namespace rtscope {

class LatencyControls : public ExperimentControls {
    Q_OBJECT
public:
    explicit LatencyControls(const std::vector<int>& cpus, QWidget* parent = nullptr);
    ~LatencyControls() override;

    LatencyConfigMapper& mapper() { return *m_mapper; }
    const LatencyControlWidgets& widgets() const { return m_mapper->widgets(); }

    // For pages that reuse these controls with a field more or less (per-CPU, sweep): the form's rows.
    void insertRow(int row, const QString& label, QWidget* field);
    void setRowVisible(QWidget* field, bool visible);

private:
    std::unique_ptr<LatencyConfigMapper> m_mapper;
};

} // namespace rtscope
