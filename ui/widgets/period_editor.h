#pragma once
// A period over five decades: a log-scaled slider for sweeping and a DurationSpinBox for exact values. Slider
// moves are throttled to one change per kThrottleMs, so dragging does not reconfigure the engine per pixel.
#include <QWidget>

#include <cstdint>

class QSlider;
class QTimer;

namespace rtscope {

class DurationSpinBox;

class PeriodEditor : public QWidget {
    Q_OBJECT
public:
    static constexpr int kSliderSteps = 1000;
    static constexpr int kThrottleMs = 50;

    explicit PeriodEditor(int64_t minNs, int64_t maxNs, QWidget* parent = nullptr);

    int64_t periodNs() const;
    /// Shows @p ns without emitting periodChanged (config → controls).
    void setPeriodNs(int64_t ns);
    int64_t minimumNs() const { return m_minNs; }
    int64_t maximumNs() const { return m_maxNs; }

    QSlider* slider() const { return m_slider; }
    DurationSpinBox* spinBox() const { return m_spin; }

    /// Slider position ↔ period, log-scaled.
    int sliderPosition(int64_t ns) const;
    int64_t periodAt(int sliderPosition) const;

signals:
    /// The user changed the period (spin box at once, slider at most every kThrottleMs).
    void periodChanged(int64_t ns);

private:
    void sliderMoved(int position);

    int64_t m_minNs;
    int64_t m_maxNs;
    QSlider* m_slider;
    DurationSpinBox* m_spin;
    QTimer* m_throttle;
};

} // namespace rtscope
