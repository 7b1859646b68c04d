#pragma once
// The latency experiment's control panel (left dock) of the latency page, which the per-CPU and sweep pages reuse
// with a field more or less: policy, priority, period, hogs, CPUs, waiter, and the problems validate() or the engine
// reported, right below the controls that caused them.
#include "ui/widgets/latency_config_mapper.h"

#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;
class QSpinBox;

namespace rtscope {

class PeriodEditor;

class LatencyControls : public QWidget {
    Q_OBJECT
public:
    explicit LatencyControls(const std::vector<int>& cpus, QWidget* parent = nullptr);
    ~LatencyControls() override;

    LatencyConfigMapper& mapper() { return *m_mapper; }
    const LatencyControlWidgets& widgets() const { return m_mapper->widgets(); }

    void showProblems(const QStringList& problems);
    void clearProblems() { showProblems({}); }
    QStringList problems() const { return m_problems; }
    /// One line under the controls saying what is running ("Running: FIFO 80 · 1.00 ms · …").
    void setStatus(const QString& text);

    // For pages that reuse these controls with a field more or less (per-CPU, sweep): the form's rows.
    void insertRow(int row, const QString& label, QWidget* field);
    void setRowVisible(QWidget* field, bool visible);
    /// The greyed hint under the controls (by default: changes apply to the running experiment at once).
    void setHint(const QString& text);

signals:
    /// The user changed a control; the page reads the new config through mapper().
    void edited();

protected:
    void changeEvent(QEvent* event) override;

private:
    void restyleProblems();

    std::unique_ptr<LatencyConfigMapper> m_mapper;
    QFormLayout* m_form;
    QLabel* m_hint;
    QLabel* m_problemLabel;
    QLabel* m_statusLabel;
    QStringList m_problems;
};

} // namespace rtscope
