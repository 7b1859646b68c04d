#pragma once
// The one place where the latency controls and LatencyConfig meet: config → widgets and widgets → config.
// Ranges the window offers are checked here too, so a value the controls cannot show is reported, never
// clamped behind the user's back.
#include "engine/experiments/latency/latency_config.h"
#include "ui/widgets/widget_mapper.h"

#include <QStringList>

#include <vector>

namespace rtscope {

/// The widgets a LatencyConfig maps to (owned by LatencyControls).
struct LatencyControlWidgets {
    QComboBox* policy = nullptr;
    QSpinBox* priority = nullptr;
    PeriodEditor* period = nullptr;
    QSpinBox* hogs = nullptr;
    QComboBox* cpu = nullptr;    ///< -1 = auto (the highest usable CPU)
    QComboBox* hogCpu = nullptr; ///< -1 = the measuring CPU
    QComboBox* waiter = nullptr;
    QCheckBox* trace = nullptr; ///< "Explain spikes (kernel tracing)": LatencyConfig::trace; may be absent
    /// Policy deadline's runtime and deadline (0 shows "= period"); their form rows are shown only for that policy.
    DurationSpinBox* runtime = nullptr;
    DurationSpinBox* deadline = nullptr;
};

class LatencyConfigMapper : public WidgetMapper<LatencyControlWidgets> {
public:
    // The window's ranges, 10 µs … 1 s period and 0 … 64 hogs, inside validate()'s wider limits (the CLI's): a live
    // view with periods over a second would hardly move, and 64 hogs are far past the 16 that show the lesson.
    static constexpr int64_t kMinPeriodNs = LatencyConfig::kMinPeriodNs;
    static constexpr int64_t kMaxPeriodNs = 1'000'000'000;
    static constexpr int kMaxHogs = 64;
    /// The priority FIFO/RR start with when the user picks them from a non-RT policy.
    static constexpr int kDefaultRtPriority = 80;
    /// The runtime the deadline policy starts with (10 % of the default 1 ms period), and the fields' range.
    static constexpr int64_t kDefaultRuntimeNs = 100'000;
    static constexpr int64_t kMinRuntimeNs = 1'000;
    static constexpr int64_t kMaxDeadlineNs = kMaxPeriodNs;

    using WidgetMapper::WidgetMapper;

    /// Fills the choices: policies, the priority range from sched_get_priority_min/max, the CPUs, the waiters.
    void populate(const std::vector<int>& cpus);
    /// Offers @p cpus as the measuring and hog CPU choices (refillCpuCombo()), without change signals; true when a
    /// chosen CPU is not among them and its box fell back to its first choice.
    bool setCpus(const std::vector<int>& cpus);

    /// Sentences for the fields of @p config that these controls cannot show (outside the window's ranges).
    QStringList unrepresentable(const LatencyConfig& config) const;
    /// Shows @p config in the controls without emitting their change signals. Call unrepresentable() first.
    void setConfig(const LatencyConfig& config);
    /// The config the controls describe; fields without a control (nice, hog policy, limits) come from @p base.
    LatencyConfig config(const LatencyConfig& base) const;

    /// Priority is editable only for FIFO and RR; the runtime and deadline rows are shown only for deadline.
    void updateEnabled();
};

} // namespace rtscope
