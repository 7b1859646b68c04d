#pragma once
// The sweep page's control panel (left dock) and the one place where its widgets and SweepConfig meet: the latency
// controls (period, CPUs, waiter, hogs) without policy and priority — those come from the list of settings — plus
// the settings, the time each one runs, and the load: none, built-in hogs, or your own command.
#include "engine/experiments/sweep/sweep_experiment.h"

#include <QStringList>
#include <QWidget>

#include <vector>

class QComboBox;
class QLineEdit;

namespace rtscope {

class DurationSpinBox;
class LatencyControls;

class SweepControls : public QWidget {
    Q_OBJECT
public:
    enum class Load { None, Hogs, Command };

    explicit SweepControls(const std::vector<int>& cpus, QWidget* parent = nullptr);

    /// The config the controls describe; fields without a control come from @p base.
    SweepConfig config(const SweepConfig& base) const;
    /// Sentences for text the engine cannot read (the settings list, an empty command); empty when it parses.
    QStringList textProblems() const;
    /// Sentences for the fields of @p config these controls cannot show.
    QStringList unrepresentable(const SweepConfig& config) const;
    /// Shows @p config without emitting edited(). Call unrepresentable() first.
    void setConfig(const SweepConfig& config);
    /// The panel is its own mapper (PolledExperimentPage reads it through mapper()).
    SweepControls& mapper() { return *this; }
    /// A running sweep's config is fixed: the form is read-only until it stops.
    void setRunning(bool running);

    void showProblems(const QStringList& problems);
    void clearProblems() { showProblems({}); }
    QStringList problems() const;
    void setStatus(const QString& text);

    /// The CPU choices become @p cpus (LatencyControls::setCpus(), whose edited() is this panel's).
    void setCpus(const std::vector<int>& cpus);
    LatencyControls* latencyControls() const { return m_latency; }
    QLineEdit* settingsEdit() const { return m_settings; }
    DurationSpinBox* eachEdit() const { return m_each; }
    QComboBox* loadBox() const { return m_load; }
    QLineEdit* commandEdit() const { return m_command; }

signals:
    void edited();

private:
    Load load() const;
    void updateEnabled();

    LatencyControls* m_latency;
    QLineEdit* m_settings;
    DurationSpinBox* m_each;
    QComboBox* m_load;
    QLineEdit* m_command;
    bool m_running = false;
};

} // namespace rtscope
