#pragma once
// A spin box for a duration with its unit in the text ("250 µs", "1.5 ms"): typing accepts any unit the CLI
// accepts (bare numbers are µs, as in cyclictest), and the arrows walk a 1-2-5 ladder, which suits a range
// spanning five decades better than a fixed step.
#include <QDoubleSpinBox>

#include <cstdint>

namespace rtscope {

class DurationSpinBox : public QDoubleSpinBox {
    Q_OBJECT
public:
    explicit DurationSpinBox(QWidget* parent = nullptr);

    void setRangeNs(int64_t minNs, int64_t maxNs);
    int64_t valueNs() const { return int64_t(value()); }
    void setValueNs(int64_t ns) { setValue(double(ns)); }

    /// "20 µs", "1.5 ms", "1 s": three significant digits at most, trailing zeros dropped.
    static QString formatNs(int64_t ns);

    void stepBy(int steps) override;
    QValidator::State validate(QString& text, int& pos) const override;
    QString textFromValue(double value) const override;
    double valueFromText(const QString& text) const override;

protected:
    StepEnabled stepEnabled() const override;
};

} // namespace rtscope
