#include "ui/widgets/period_editor.h"

#include "ui/plot/plot_math.h"
#include "ui/widgets/duration_spin_box.h"

#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <QTimer>

#include <cmath>

namespace rtscope {

PeriodEditor::PeriodEditor(int64_t minNs, int64_t maxNs, QWidget* parent)
    : QWidget(parent)
    , m_minNs(minNs)
    , m_maxNs(maxNs)
    , m_slider(new QSlider(Qt::Horizontal, this))
    , m_spin(new DurationSpinBox(this))
    , m_throttle(new QTimer(this))
{
    m_slider->setRange(0, kSliderSteps);
    m_slider->setObjectName("periodSlider");
    m_slider->setToolTip(
        tr("Period, log scale: %1 … %2").arg(DurationSpinBox::formatNs(minNs), DurationSpinBox::formatNs(maxNs)));
    m_spin->setRangeNs(minNs, maxNs);
    m_spin->setObjectName("period");
    m_spin->setToolTip(tr("Type a period with its unit (20us, 1.5ms, 1s); a bare number is microseconds"));
    m_throttle->setSingleShot(true);
    m_throttle->setInterval(kThrottleMs);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_slider, 3);
    layout->addWidget(m_spin, 2);

    connect(m_slider, &QSlider::valueChanged, this, &PeriodEditor::sliderMoved);
    connect(m_throttle, &QTimer::timeout, this, [this] { emit periodChanged(periodNs()); });
    connect(m_spin, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(sliderPosition(int64_t(v)));
        m_throttle->stop();
        emit periodChanged(int64_t(v));
    });
    setPeriodNs(1'000'000);
}

int64_t PeriodEditor::periodNs() const
{
    return m_spin->valueNs();
}

void PeriodEditor::setPeriodNs(int64_t ns)
{
    const QSignalBlocker blockSpin(m_spin);
    const QSignalBlocker blockSlider(m_slider);
    m_spin->setValueNs(ns);
    m_slider->setValue(sliderPosition(ns));
}

int PeriodEditor::sliderPosition(int64_t ns) const
{
    const double a = std::log10(double(m_minNs)), b = std::log10(double(m_maxNs));
    const double f = (std::log10(double(std::clamp(ns, m_minNs, m_maxNs))) - a) / (b - a);
    return int(std::lround(f * kSliderSteps));
}

int64_t PeriodEditor::periodAt(int position) const
{
    const double a = std::log10(double(m_minNs)), b = std::log10(double(m_maxNs));
    const double v = std::pow(10.0, a + (b - a) * std::clamp(position, 0, kSliderSteps) / kSliderSteps);
    // Three significant digits: a slider does not pick 1.0372 ms, and the label stays short.
    const double digits = std::pow(10.0, std::floor(std::log10(v)) - 2);
    return std::clamp(int64_t(std::llround(std::round(v / digits) * digits)), m_minNs, m_maxNs);
}

void PeriodEditor::sliderMoved(int position)
{
    {
        const QSignalBlocker block(m_spin);
        m_spin->setValueNs(periodAt(position));
    }
    if (!m_throttle->isActive())
        m_throttle->start();
}

} // namespace rtscope

#include "moc_period_editor.cpp"
