#pragma once
// The drift lab's chart: cumulative drift (actual wake − (t0 + k·P), µs) against the tick k, one line per timing
// method, reduced to the min and max of each pixel column so a 200 000-tick run costs a few thousand points.
// Linear or log |drift| scale; drag a rectangle to zoom, right-click or resetZoom() to go back.
#include "engine/experiments/timers/drift_experiment.h"
#include "ui/plot/restyled_widget.h"

#include <QList>
#include <QPointF>
#include <QString>

#include <memory>
#include <span>
#include <vector>

namespace rtscope {

struct DriftCurve {
    QString name;
    bool relative = false; ///< the naive loop: drawn thicker, in the warning colour
    std::span<const DriftTick> ticks;
};

class DriftChart : public plot::RestyledWidget {
    Q_OBJECT
public:
    static constexpr int kMaxCurves = 8;

    explicit DriftChart(QWidget* parent = nullptr);
    ~DriftChart() override;

    /// Replaces every line (one replace() each). @p keepAlive owns the memory the spans point into (the
    /// snapshot), so a later zoom or resize can decimate again; @p totalTicks is the run's planned length.
    void setCurves(std::vector<DriftCurve> curves, std::shared_ptr<const void> keepAlive, int64_t totalTicks);
    void clear();

    void setLogScale(bool log);
    bool logScale() const;
    void resetZoom();
    bool zoomed() const;
    /// Zooms the tick axis to [first, last] (what a rubber band does), for tests and keyboard users.
    void zoomTicks(double first, double last);

    // What is drawn, for tests.
    int curveCount() const;
    QString curveName(int curve) const;
    QList<QPointF> curvePoints(int curve) const;
    double tickAxisMin() const;
    double tickAxisMax() const;
    double driftAxisMin() const;
    double driftAxisMax() const;
    int columns() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace rtscope
