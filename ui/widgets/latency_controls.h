#pragma once
// The latency experiment's control panel (left dock) of the latency page, which the per-CPU and sweep pages reuse
// with a field more or less: policy, priority, period, hogs, CPUs, waiter, and the problems validate() or the engine
// reported, right below the controls that caused them. The frame (problems, run status, hint, edited()) is
// ExperimentControls'; unlike the other panels this one never goes read-only: every change applies to the running
// experiment at once.
#include "engine/trace/trace_session.h"
#include "ui/widgets/experiment_controls.h"
#include "ui/widgets/latency_config_mapper.h"

#include <memory>
#include <vector>

class QLabel;

namespace rtscope {

class LatencyControls : public MappedControls<LatencyConfigMapper> {
    Q_OBJECT
public:
    explicit LatencyControls(const std::vector<int>& cpus, QWidget* parent = nullptr);

    /// MappedControls::setCpus() for both CPU boxes, the measuring and the hogs'.
    void setCpus(const std::vector<int>& cpus);

    // For pages that reuse these controls with a field more or less (per-CPU, sweep): the form's rows.
    void insertRow(int row, const QString& label, QWidget* field);
    void setRowVisible(QWidget* field, bool visible);

    /// The trace toggle's row (the box and the line under it), for setRowVisible().
    QWidget* traceRow() const { return m_traceRow; }
    /// Enables the "Explain spikes (kernel tracing)" box as @p probe says (TraceSession::probe(), which the
    /// constructor asks): where tracing cannot work the box is disabled, and its tooltip and the line under it give
    /// the reason and the fix; where tracefs needs mounting, that a run will mount it. Tests inject a probe.
    void setTraceProbe(const TraceProbe& probe);
    /// The tracing choice for the measured machine: this computer's tracefs (TraceSession::probe()), or, on a remote
    /// target (@p onTarget), offered with a note: the target's tracefs is checked when the run starts there, and the
    /// anatomy arrives with the run's end (docs/remote.md, Tracing on the target).
    void setTraceTarget(bool onTarget);
    const TraceProbe& traceProbe() const { return m_traceProbe; }
    /// The line under the box (empty: hidden).
    QString traceNote() const;

private:
    QWidget* m_traceRow = nullptr;
    QLabel* m_traceNote = nullptr;
    TraceProbe m_traceProbe;
};

} // namespace rtscope
