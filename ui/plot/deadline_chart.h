#pragma once
// The deadline lab's chart (docs/experiments/deadline.md), one widget for its three lessons:
// - bars (admission): per step, the bandwidth declared before it, and what the step asked — admitted or refused —
//   stacked against a horizontal line at the kernel's limit;
// - a time axis (isolation, edf): per-job figures as lines or marks against seconds since the run started, with
//   horizontal guides (a declared runtime) and, for edf, one row per task instead of a value axis.
// The header takes plain data; the deadline page (ui/deadline/) turns a snapshot into it.
#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

namespace rtscope {

/// What a series means, which picks its colour (one colour per meaning on every lesson).
enum class DeadlineRole { Runaway, Good, Throttled, Met, Missed, Limit, Reference, Phase };

struct DeadlineSeries {
    enum class Style { Line, Dashed, Dots, Crosses };
    QString name;
    DeadlineRole role = DeadlineRole::Runaway;
    Style style = Style::Line;
    QList<QPointF> points;
};

/// One admission step: the stack is before + (admitted or refused); fractions of one CPU.
struct DeadlineBar {
    QString category;
    double before = 0;   ///< declared before the step (other deadline tasks + the lesson's admitted ones)
    double admitted = 0; ///< the step's bandwidth when the kernel admitted it
    double refused = 0;  ///< the step's bandwidth when the kernel refused it
};

struct DeadlineChartData {
    enum class Kind { Empty, Bars, Time };
    Kind kind = Kind::Empty;
    QString title;
    QString xTitle;
    QString yTitle;
    std::vector<DeadlineBar> bars;
    std::optional<double> limit; ///< bars: the kernel's limit (fraction of one CPU); nullopt = unknown
    QString limitName;
    std::vector<DeadlineSeries> series;
    QStringList rows; ///< time: names of the y rows (row i at y = i); empty = a value axis from 0 to yMax
    double xMin = 0;
    double xMax = 1;
    double yMax = 1;
    QString emptyText; ///< Kind::Empty: what to say instead of a chart
};

class DeadlineChart : public QWidget {
    Q_OBJECT
public:
    explicit DeadlineChart(QWidget* parent = nullptr);
    ~DeadlineChart() override;

    /// Replaces everything drawn.
    void setData(const DeadlineChartData& data);
    const DeadlineChartData& data() const;

    // What is drawn, for tests.
    QString title() const;
    QStringList seriesNames() const;                         ///< every series on the chart, bars and the limit included
    QList<QPointF> points(const QString& name) const;        ///< of a line/scatter series, as drawn
    QStringList categories() const;                          ///< bars: the step labels
    std::vector<double> barValues(const QString& set) const; ///< bars: "declared before", "admitted", "refused"
    QString emptyText() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace rtscope
