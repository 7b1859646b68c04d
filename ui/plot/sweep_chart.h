#pragma once
// The sweep's result: p50, p99, p99.9 and max latency against the setting (OTHER, FIFO 1, FIFO 50, …), in the
// order the settings ran, on a log latency axis. Lines join neighbouring settings only: a failed setting breaks
// them and is labelled "failed" instead of being drawn as a zero; settings still to run are named on the axis.
#include "ui/plot/plot_data.h"
#include "ui/plot/restyled_widget.h"

#include <QList>
#include <QPointF>
#include <QStringList>

#include <memory>
#include <vector>

namespace rtscope {

/// One setting of a sweep as the chart shows it.
struct SweepChartPoint {
    enum class State { Pending, Running, Done, Failed };
    QString label; ///< "FIFO 80"
    State state = State::Pending;
    double p50Us = 0; ///< the figures, for Done only
    double p99Us = 0;
    double p999Us = 0;
    double maxUs = 0;
};

class SweepChart : public plot::RestyledWidget {
    Q_OBJECT
public:
    explicit SweepChart(QWidget* parent = nullptr);
    ~SweepChart() override;

    void setPoints(const std::vector<SweepChartPoint>& points);

    // What is drawn, for tests.
    QStringList categoryLabels() const;
    /// Every drawn point of one percentile (MarkerRole::Median, P99, P999 or Max), x = the setting's index.
    QList<QPointF> points(MarkerRole role) const;
    /// How many "failed" labels are shown in the plot.
    int failedLabels() const;
    double latencyAxisMin() const;
    double latencyAxisMax() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace rtscope
