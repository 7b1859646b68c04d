#pragma once
// The lock-contention charts: throughput per lock kind as horizontal bars, fastest at the top, with the
// figure written on each bar; context switches per 1000 acquisitions for the same kinds, stacked (voluntary =
// it slept, involuntary = it was preempted); and every kind's acquisition-wait histogram overlaid on log-log
// axes.
// One colour per lock kind, the same in all three and in the page's table.
#include "ui/plot/plot_data.h"
#include "ui/plot/restyled_widget.h"

#include <QColor>
#include <QList>
#include <QPointF>
#include <QStringList>

#include <memory>
#include <vector>

class QPalette;

namespace rtscope {

struct ContentionBar {
    QString name; ///< "mutex"
    int colorIndex = 0;
    double acquisitionsPerSec = 0;
    double voluntaryPer1k = 0;
    double involuntaryPer1k = 0;
    QString label;         ///< written at the bar's end: "174.5 k/s · 1.00×"
    bool measured = false; ///< false: pending or failed before any acquisition; no figures are drawn for it
};

struct ContentionWaitCurve {
    int colorIndex = 0;
    HistogramCurve curve; ///< buckets in µs; the name goes to the legend
};

struct ContentionChartData {
    std::vector<ContentionBar> bars; ///< top to bottom (the page passes them fastest first)
    std::vector<ContentionWaitCurve> waits;
};

/// The colour of a lock kind, by its index in the page's list of kinds (distinct in light and dark themes).
QColor lockKindColor(int colorIndex, const QPalette& palette);

class ContentionChart : public plot::RestyledWidget {
    Q_OBJECT
public:
    static constexpr int kMaxKinds = 6;

    explicit ContentionChart(QWidget* parent = nullptr);
    ~ContentionChart() override;

    void setData(const ContentionChartData& data);
    void clear();

    // What is drawn, for tests: bars top to bottom.
    QStringList barNames() const;
    QList<double> throughputValues() const; ///< acquisitions/s, as drawn (the axis is in thousands)
    QStringList throughputLabels() const;
    QList<double> switchValues(bool voluntary) const; ///< per 1000 acquisitions
    QStringList switchLabels() const;
    int waitCurveCount() const;
    QString waitCurveName(int index) const;
    QList<QPointF> waitCurvePoints(int index) const;
    QColor waitCurveColor(int index) const;
    double waitAxisMin() const; ///< µs
    double waitAxisMax() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace rtscope
