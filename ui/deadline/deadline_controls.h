#pragma once
// The deadline page's control panel (left dock), its own mapper: the lesson, and the fields of that lesson only
// (the other lessons' rows are hidden but keep their values). Ranges are wide, the lab's rules are
// DeadlineConfig::validate()'s: the one validation path says what is wrong, in its own sentence.
#include "engine/experiments/deadline/deadline_config.h"
#include "ui/widgets/experiment_controls.h"

#include <QStringList>

#include <vector>

namespace rtscope {

struct DeadlineControlWidgets {
    QComboBox* lesson = nullptr;
    QLineEdit* tasks = nullptr; ///< admission: "RUNTIME/PERIOD …"; empty = the default list
    DurationSpinBox* duration = nullptr;
    QComboBox* runawayPolicy = nullptr;  ///< DeadlineRunawayPolicy
    QSpinBox* runawayPriority = nullptr; ///< the FIFO runaway's
    DurationSpinBox* runawayRuntime = nullptr;
    DurationSpinBox* runawayPeriod = nullptr;
    DurationSpinBox* goodRuntime = nullptr;
    DurationSpinBox* goodPeriod = nullptr;
    DurationSpinBox* goodWork = nullptr;
    QComboBox* counterCpu = nullptr; ///< -1 = auto
    DurationSpinBox* shortWork = nullptr;
    DurationSpinBox* shortPeriod = nullptr;
    DurationSpinBox* longWork = nullptr;
    DurationSpinBox* longPeriod = nullptr;
    QSpinBox* priority = nullptr;
    QComboBox* cpu = nullptr; ///< -1 = auto
};

class DeadlineControls : public ExperimentControls {
    Q_OBJECT
public:
    explicit DeadlineControls(const std::vector<int>& cpus, QWidget* parent = nullptr);
    ~DeadlineControls() override;

    /// The panel is its own mapper (PolledExperimentPage reads it through mapper()).
    DeadlineControls& mapper() { return *this; }
    /// The config the controls describe; the admission tasks as typed (see tasksProblems()).
    DeadlineConfig config(const DeadlineConfig& base) const;
    /// Shows @p config without emitting edited(). Call unrepresentable() first.
    void setConfig(const DeadlineConfig& config);
    /// Sentences for the fields of @p config these controls cannot show.
    QStringList unrepresentable(const DeadlineConfig& config) const;
    /// The task list's text that is not RUNTIME/PERIOD durations, as a sentence (before validate()'s).
    QStringList tasksProblems() const;

    /// The CPU choices become @p cpus, as LatencyControls::setCpus() (edited() once when a chosen CPU fell back to
    /// auto).
    void setCpus(const std::vector<int>& cpus);
    const DeadlineControlWidgets& widgets() const { return m_w; }
    /// "5 ms/10 ms 3 ms/10 ms": the text the task field shows for @p tasks.
    static QString tasksText(const std::vector<DeadlineParams>& tasks);

private:
    void showLessonRows();

    DeadlineControlWidgets m_w;
};

} // namespace rtscope
