#pragma once
// The starvation lab's progress chart: one rate line per counter thread (operations per second against seconds
// since the run started), the spinner's bursts shaded, and the windows in which a starved counter ran anyway
// (RT throttling / the fair server) highlighted in another colour with their length.
#include "ui/plot/restyled_widget.h"

#include <QList>
#include <QPointF>
#include <QString>

#include <memory>
#include <vector>

namespace rtscope {

/// A stretch of the time axis, in seconds since the run started.
struct TimeBand {
    double t0 = 0;
    double t1 = 0;
    QString label;
};

struct RateLine {
    QString name;
    bool control = false;  ///< drawn dashed: the counter away from the spinner
    QList<QPointF> points; ///< (seconds, ops/s), oldest first
};

struct StarvationChartData {
    std::vector<RateLine> lines;
    std::vector<TimeBand> bursts;
    std::vector<TimeBand> windows;
    double xMin = 0; ///< the time range to show, seconds
    double xMax = 1;
};

class StarvationChart : public plot::RestyledWidget {
    Q_OBJECT
public:
    static constexpr int kMaxLines = 9;

    explicit StarvationChart(QWidget* parent = nullptr);
    ~StarvationChart() override;

    /// Replaces everything: one replace() per line; lines longer than two points per pixel column are reduced
    /// to the min and max of each column, so a burst's zero never disappears.
    void setData(const StarvationChartData& data);
    void clear();

    // What is drawn, for tests.
    int lineCount() const;
    QList<QPointF> linePoints(int line) const; ///< as drawn: (seconds, million ops/s)
    int visibleBursts() const;
    int visibleWindows() const;
    QStringList windowLabels() const;
    double xAxisMin() const;
    double xAxisMax() const;
    double yAxisMax() const; ///< in ops/s

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace rtscope
