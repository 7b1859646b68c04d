#pragma once
// The latency timeline: the last N seconds scrolling, min/max per pixel column so a single spike is never
// averaged away, labelled vertical lines where the configuration changed. Time is relative seconds (0 = now).
#include "ui/plot/plot_data.h"

#include <QList>
#include <QPointF>
#include <QWidget>

#include <memory>

namespace rtscope {

class TimelineChart : public QWidget {
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
    void clear();

    // What is drawn, for tests and the benchmark.
    QList<QPointF> envelope() const;
    int columns() const; ///< pixel columns the data was decimated to
    double latencyAxisMax() const;
    int axisUpdates() const;
    int visibleMarkers() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace rtscope
