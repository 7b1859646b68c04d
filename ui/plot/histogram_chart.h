#pragma once
// The jitter histogram: latency against count as a step line on a log count axis, linear or log latency axis,
// percentile markers, and an optional frozen reference curve in a second colour.
#include "ui/plot/plot_data.h"

#include <QList>
#include <QPointF>
#include <QWidget>

#include <memory>

namespace rtscope {

class HistogramChart : public QWidget {
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

    // What is drawn, for tests and the benchmark.
    QList<QPointF> livePoints() const;
    QList<QPointF> referencePoints() const;
    double latencyAxisMin() const;
    double latencyAxisMax() const;
    double countAxisMax() const;
    int axisUpdates() const; ///< how often an axis range was actually changed
    int visibleMarkers() const;
    QString liveName() const;
    QString referenceName() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace rtscope
