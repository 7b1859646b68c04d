#pragma once
// The latency timeline: the last N seconds scrolling, min/max per pixel column so a single spike is never
// averaged away, labelled vertical lines where the configuration changed. Time is relative seconds (0 = now).
// Several curves (one per CPU of a replayed recording) share the axes, each in its colour with a legend entry.
#include "ui/plot/plot_data.h"
#include "ui/plot/restyled_widget.h"

#include <QColor>
#include <QList>
#include <QPointF>

#include <memory>

namespace rtscope {

struct TimelineCurve {
    QString name;
    QColor color; ///< invalid: the live colour
    std::vector<TimelinePoint> points;
};

class TimelineChart : public plot::RestyledWidget {
    Q_OBJECT
public:
    explicit TimelineChart(QWidget* parent = nullptr);
    ~TimelineChart() override;

    void setWindowSeconds(double seconds);
    double windowSeconds() const;
    void setLogLatencyAxis(bool log);
    bool logLatencyAxis() const;

    /// @p points oldest first, at relative seconds; decimated here to one column per pixel of the plot area.
    void setData(const std::vector<TimelinePoint>& points, const std::vector<VerticalMarker>& markers);
    /// As setData(), one curve each; the legend shows when there are two or more.
    void setCurves(const std::vector<TimelineCurve>& curves, const std::vector<VerticalMarker>& markers);
    void clear();
    /// "time (s, 0 = now)" by default; a replay's 0 is the end of the recording.
    void setTimeAxisTitle(const QString& title);

    // What is drawn, for tests and the benchmark.
    QList<QPointF> envelope() const; ///< of the first curve
    int curveCount() const;
    QList<QPointF> curveEnvelope(int index) const;
    QString curveName(int index) const;
    int columns() const; ///< pixel columns the data was decimated to
    double latencyAxisMax() const;
    int axisUpdates() const;
    int visibleMarkers() const;
    /// The widget the plot is drawn on, where a click lands (tests click it at viewPosition()).
    QWidget* plotSurface() const;
    /// The time one pixel column of the plot spans, in seconds (the precision of a click).
    double secondsPerColumn() const;
    /// The chart position of @p tSec, @p latencyUs in the view's coordinates (for tests that click a point).
    QPoint viewPosition(double tSec, double latencyUs) const;

signals:
    /// A click on the plot area: where, in relative seconds and µs (the latency page picks the traced wake-up there).
    void clicked(double tSec, double latencyUs);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace rtscope
