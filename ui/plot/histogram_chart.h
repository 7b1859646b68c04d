#pragma once
// The jitter histogram: latency against count as a step line on a log count axis, linear or log latency axis,
// percentile markers, and an optional frozen reference curve in a second colour.
#include "ui/plot/plot_data.h"
#include "ui/plot/restyled_widget.h"

#include <QColor>
#include <QList>
#include <QPointF>

#include <memory>
#include <vector>

namespace rtscope {

/// An extra curve in a colour of its own, for views that compare several histograms at once (one per CPU, one
/// per setting of a sweep). Overlays share the axes with the live and reference curves.
struct HistogramOverlay {
    HistogramCurve curve;
    QColor color;
};

class HistogramChart : public plot::RestyledWidget {
    Q_OBJECT
public:
    explicit HistogramChart(QWidget* parent = nullptr);
    ~HistogramChart() override;

    void setLogLatencyAxis(bool log);
    bool logLatencyAxis() const;

    /// Replaces the live curve and its markers: one replace() of the whole series per call.
    void setLive(const HistogramCurve& curve, const std::vector<VerticalMarker>& markers);
    /// Shows @p curve frozen in the reference colour; nullptr removes it.
    void setReference(const HistogramCurve* curve);
    void clear();

    /// Replaces the overlays (drawn on top of the live curve, each with its legend entry).
    void setOverlays(const std::vector<HistogramOverlay>& overlays);
    /// Hides the live curve and its legend entry, for views made only of overlays.
    void setLiveVisible(bool visible);
    void setTitle(const QString& title);
    /// What the horizontal axis measures ("latency" by default, "loop length" for the noise lab): its titles become
    /// "<quantity> (µs)" and "<quantity> (µs, log scale)".
    void setValueAxisName(const QString& quantity);
    QString valueAxisTitle() const; ///< the title of the horizontal axis in use

    // What is drawn, for tests and the benchmark.
    QList<QPointF> livePoints() const;
    QList<QPointF> referencePoints() const;
    double latencyAxisMin() const;
    double latencyAxisMax() const;
    double countAxisMax() const;
    int axisUpdates() const; ///< how often an axis range was actually changed
    int visibleMarkers() const;
    /// The labels of the markers shown, sorted, and the x pixel of each line shown (tests).
    QStringList visibleMarkerLabels() const;
    QList<double> visibleMarkerLineX() const;
    /// The widget the plot is drawn on, where a click lands (tests click it at viewPosition()).
    QWidget* plotSurface() const;
    QString liveName() const;
    QString referenceName() const;
    int overlayCount() const;
    QList<QPointF> overlayPoints(int index) const;
    QString overlayName(int index) const;

    /// The view position of latency @p latencyUs at count @p count (for tests that click a bar).
    QPoint viewPosition(double latencyUs, double count) const;

signals:
    /// A click on the plot area at latency @p latencyUs (the latency page picks the traced wake-up nearest to it).
    void clicked(double latencyUs);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace rtscope
