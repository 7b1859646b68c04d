#include "ui/widgets/duration_spin_box.h"

#include "engine/util/units.h"
#include "ui/plot/plot_math.h"

#include <QLocale>

#include <cmath>

namespace rtscope {

DurationSpinBox::DurationSpinBox(QWidget* parent)
    : QDoubleSpinBox(parent)
{
    setDecimals(0); // the value is in whole nanoseconds
    setKeyboardTracking(false);
    setAccelerated(true);
    setCorrectionMode(QAbstractSpinBox::CorrectToPreviousValue);
}

void DurationSpinBox::setRangeNs(int64_t minNs, int64_t maxNs)
{
    setRange(double(minNs), double(maxNs));
}

QString DurationSpinBox::formatNs(int64_t ns)
{
    struct Unit {
        int64_t ns;
        const char* name;
    };
    static const Unit units[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "µs"}, {1, "ns"}};
    for (const Unit& u : units) {
        if (ns >= u.ns || u.ns == 1) {
            const double v = double(ns) / double(u.ns);
            // 3 significant digits, trailing zeros dropped: "1.5 ms", "250 µs", "20 µs".
            QString text = QString::number(v, 'g', std::max(3, int(std::floor(std::log10(std::max(v, 1.0)))) + 1));
            return text + " " + QString::fromUtf8(u.name);
        }
    }
    return QString::number(ns) + " ns";
}

QString DurationSpinBox::textFromValue(double value) const
{
    return formatNs(int64_t(std::llround(value)));
}

double DurationSpinBox::valueFromText(const QString& text) const
{
    const auto ns = parseDuration(text.trimmed().toStdString());
    return ns ? double(*ns) : value();
}

QValidator::State DurationSpinBox::validate(QString& text, int&) const
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return QValidator::Intermediate;
    const auto ns = parseDuration(t.toStdString());
    if (!ns)
        return QValidator::Intermediate; // maybe a unit still being typed
    return (double(*ns) >= minimum() && double(*ns) <= maximum()) ? QValidator::Acceptable : QValidator::Intermediate;
}

void DurationSpinBox::stepBy(int steps)
{
    double v = value();
    for (int i = 0; i < std::abs(steps); ++i)
        v = steps > 0 ? plot::niceCeil(v * 1.0001) : plot::niceFloor(v * 0.9999);
    setValue(std::clamp(v, minimum(), maximum()));
    selectAll();
}

QAbstractSpinBox::StepEnabled DurationSpinBox::stepEnabled() const
{
    StepEnabled e;
    if (value() > minimum())
        e |= StepDownEnabled;
    if (value() < maximum())
        e |= StepUpEnabled;
    return e;
}

} // namespace rtscope

#include "moc_duration_spin_box.cpp"
