#pragma once
// The sleep-floor chart: actual duration against requested duration on log-log axes, with the y = x line (a
// perfect sleep), one median line per method and its p99 as markers, and clock_getres as a horizontal line. A
// 0 ns request has no logarithm: it sits one decade left of the smallest non-zero request, labelled "0".
#include "ui/plot/restyled_widget.h"

#include <QList>
#include <QPointF>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

namespace rtscope {

/// One method's figures per request, in nanoseconds (requests with no samples yet are left out).
struct SleepFloorCurve {
    QString name;
    bool spins = false; ///< busy-wait or hybrid: drawn dashed, they pay in CPU time instead
    struct Point {
        int64_t requestNs = 0;
        int64_t p50Ns = 0;
        int64_t p99Ns = 0;
    };
    std::vector<Point> points;
};

class SleepFloorChart : public plot::RestyledWidget {
    Q_OBJECT
public:
    static constexpr int kMaxCurves = 8;

    explicit SleepFloorChart(QWidget* parent = nullptr);
    ~SleepFloorChart() override;

    /// Replaces everything; @p requestsNs fixes the request axis (so it does not move as the sweep fills in).
    void setData(const std::vector<SleepFloorCurve>& curves, const std::vector<int64_t>& requestsNs,
                 int64_t clockResolutionNs);
    void clear();

    /// Where a request lands on the x axis (log10 of nanoseconds; 0 ns at the nominal position).
    double requestPosition(int64_t requestNs) const;
    static double durationPosition(int64_t ns); ///< log10 of ns, at least 0 (1 ns)

    // What is drawn, for tests.
    int curveCount() const;
    QString curveName(int curve) const;
    QList<QPointF> medianPoints(int curve) const;
    QList<QPointF> p99Points(int curve) const;
    QList<QPointF> identityPoints() const;
    QStringList requestAxisLabels() const;
    QStringList durationAxisLabels() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// "0", "1 ns", "10 µs", "100 ms": axis labels for powers of ten.
QString decadeLabel(int exponentOfNs);

} // namespace rtscope
