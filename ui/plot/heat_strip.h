#pragma once
// A heat strip: one row per CPU, one column per time interval, the colour the largest wake-up latency measured in
// that interval on a labelled log scale (µs). A noisy core shows as a hot row at a glance. An interval in which no
// wake-up was measured is hatched, never painted as a small latency; an interval in which samples were lost is
// outlined and flagged. Drawn with QPainter: hundreds of cells a frame are too many items for Qt Charts.
#include "ui/plot/plot_data.h"

#include <QColor>
#include <QRect>
#include <QWidget>

#include <cstdint>
#include <vector>

namespace rtscope {

struct HeatCell {
    bool covered = false; ///< the interval belongs to the run and its data was seen (false: leave it blank)
    uint32_t samples = 0; ///< wake-ups measured in the interval; 0 = none (hatched)
    double maxUs = 0;     ///< the largest latency among them
    uint64_t lost = 0;    ///< samples dropped or missing from the sequence, noticed during the interval
};

struct HeatRow {
    QString label;               ///< "CPU 1"
    QString note;                ///< "2 hogs · isolated" (second line of the row label)
    std::vector<HeatCell> cells; ///< oldest first; the last cell is the newest interval and ends at 0 s
};

struct HeatStripData {
    double intervalSec = 0.25; ///< time one cell covers
    double spanSec = 10;       ///< the x axis shows [−spanSec, 0] s
    std::vector<HeatRow> rows;
    std::vector<VerticalMarker> markers; ///< x in seconds relative to the end of the newest interval (≤ 0)
    /// What a cell's value (HeatCell::maxUs) is, for a strip that shows another quantity in µs than the largest
    /// wake-up latency (the noise lab: the CPU time lost in the interval). Empty: the latency texts.
    QString legendTitle; ///< replaces "Colour = max latency per 100 ms interval (µs, log scale)"
    QString valueTip;    ///< a cell's tooltip line: %1 the value in µs
    QString noValueText; ///< the hatched swatch and tooltip for a cell with no samples
    /// The title row's keys for "no samples" (hatched) and "samples lost" (outlined): off for a strip whose cells
    /// always have a value and never lose one.
    bool keys = true;
};

class HeatStrip : public QWidget {
    Q_OBJECT
public:
    /// The colour scale starts at 10 … 1000 µs and only widens (by decades) to take what the data needs: a run whose
    /// maxima stay between them uses the whole range of colours.
    static constexpr double kDefaultScaleMinUs = 10;
    static constexpr double kDefaultScaleMaxUs = 1000;

    explicit HeatStrip(QWidget* parent = nullptr);

    void setData(const HeatStripData& data);
    const HeatStripData& data() const { return m_data; }
    /// Back to the default colour scale (a new run).
    void resetScale();

    double scaleMinUs() const { return m_loUs; }
    double scaleMaxUs() const { return m_hiUs; }
    /// The colour of a maximum of @p us on the current scale (values outside it get the end colours).
    QColor colorFor(double us) const;
    QColor noSamplesColor() const;
    QColor lostColor() const;

    /// Where cell (@p row, @p column) is drawn; empty when it is outside the time axis.
    QRect cellRect(int row, int column) const;
    /// The cell under @p pos as (row, column), or (−1, −1).
    std::pair<int, int> cellAt(const QPoint& pos) const;
    QString cellToolTip(int row, int column) const;
    /// The legend's title, which names the interval, the unit and the scale.
    QString legendTitle() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Geometry {
        QRect title;
        QRect labels; ///< the row-label column
        QRect plot;   ///< the cells
        int rowHeight = 0;
        int axisTop = 0;   ///< tick labels of the time axis
        int legendTop = 0; ///< colour bar and swatches
        int markerTop = 0; ///< marker labels, above the plot
    };
    Geometry geometry() const;
    int preferredHeight() const;
    double xFor(double tSec, const QRect& plot) const;
    void drawRows(QPainter& p, const Geometry& g) const;
    void drawAxis(QPainter& p, const Geometry& g) const;
    void drawLegend(QPainter& p, const Geometry& g) const;
    void drawMarkers(QPainter& p, const Geometry& g) const;
    void drawSwatches(QPainter& p, const Geometry& g) const;
    void drawHatch(QPainter& p, const QRect& r) const;
    void drawLostFlag(QPainter& p, const QRect& r) const;

    HeatStripData m_data;
    double m_loUs = kDefaultScaleMinUs;
    double m_hiUs = kDefaultScaleMaxUs;
};

} // namespace rtscope
