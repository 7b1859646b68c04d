#pragma once
// The sleep-floor page's control panel (left dock) and the one place where its widgets and SleepFloorConfig
// meet. The requests are typed as a list of durations; text that is not a duration is reported by name.
#include "engine/experiments/timers/sleep_floor_config.h"
#include "ui/timers/drift_controls.h"

#include "ui/widgets/experiment_controls.h"
#include "ui/widgets/widget_mapper.h"

#include <QStringList>
#include <QWidget>

#include <map>
#include <memory>
#include <vector>

class QLabel;

namespace rtscope {

/// The widgets a SleepFloorConfig maps to (owned by SleepFloorControls).
struct SleepFloorControlWidgets {
    QLineEdit* requests = nullptr; ///< "0, 1ns, 10ns, …": bare numbers are µs, as everywhere
    QSpinBox* samples = nullptr;
    std::map<SleepMethod, QCheckBox*> methods;
    QComboBox* slack = nullptr; ///< SlackChoice
    DurationSpinBox* slackCustom = nullptr;
    QComboBox* policy = nullptr; ///< SCHED_OTHER or SCHED_FIFO
    QSpinBox* priority = nullptr;
    QCheckBox* load = nullptr;
    DurationSpinBox* margin = nullptr;
    QComboBox* cpu = nullptr; ///< -1 = auto
};

class SleepFloorConfigMapper : public WidgetMapper<SleepFloorControlWidgets> {
public:
    static constexpr int kDefaultRtPriority = 80;

    using WidgetMapper::WidgetMapper;

    void populate(const std::vector<int>& cpus);
    /// Sentences for the fields of @p config these controls cannot show.
    QStringList unrepresentable(const SleepFloorConfig& config) const;
    /// Items of the request list that are not durations, as sentences naming the field ("requests: …").
    QStringList textProblems() const;
    void setConfig(const SleepFloorConfig& config);
    /// The config the controls describe (unreadable request items are left out: see textProblems()).
    SleepFloorConfig config(const SleepFloorConfig& base) const;
    void updateEnabled();

    /// "0, 1 ns, 10 µs": the list as the field shows it.
    static QString requestText(const std::vector<int64_t>& requestsNs);

    SlackWidgets slackWidgets() const { return {m_w.slack, m_w.slackCustom}; }
};

class SleepFloorControls : public MappedControls<SleepFloorConfigMapper> {
    Q_OBJECT
public:
    explicit SleepFloorControls(const std::vector<int>& cpus, QWidget* parent = nullptr);
};

} // namespace rtscope
