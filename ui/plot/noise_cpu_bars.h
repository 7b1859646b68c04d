#pragma once
// The noise lab's per-CPU bars (docs/experiments/noise.md): for each measured CPU, in large text how much of it the
// busy-polling thread got ("99.82 % available"), a thin bar of the whole run to scale (available and lost), and
// below it a wide bar of only the lost time, split by who took it (IRQ, softirq, thread, NMI, unexplained, or
// untraced when nothing could be attributed), each part labelled with its share of the CPU. The lost time is
// usually well under 1 % of a CPU: to scale it would be a hair, so it gets a bar of its own, and the thin bar above
// keeps the real proportion in view. Colours come from the Okabe–Ito set (legible to colour-blind eyes and on a
// projector) and are shared with the culprit table. A QPainter widget taking plain data.
#include "ui/plot/laid_out_widget.h"

#include <QColor>
#include <QRectF>
#include <QString>

#include <vector>

namespace rtscope {

/// One part of a CPU's time, in the order of the legend.
enum class NoisePart : uint8_t { Available, Irq, Softirq, Thread, Nmi, Unexplained, Untraced };

struct NoiseBarSegment {
    NoisePart part = NoisePart::Unexplained;
    double percent = 0; ///< of the CPU's runtime
    QString valueText;  ///< written with units, for the label ("0.071 % · 3.6 ms")
};

struct NoiseBarRow {
    QString label;    ///< "CPU 1"
    QString headline; ///< "99.82 % available"
    QString detail;   ///< "lost 0.18 % (9.1 ms of 5.0 s) · 1 234 gaps · longest 45.2 µs"
    double availablePercent = 100;
    std::vector<NoiseBarSegment> lost; ///< the noise kinds, in legend order (parts of 0 % may be left out)
    QString note;                      ///< why this CPU's row is empty or partial ("no data yet", an error)
};

struct NoiseBarsData {
    std::vector<NoiseBarRow> rows;
};

class NoiseCpuBars : public plot::LaidOutWidget {
    Q_OBJECT
public:
    explicit NoiseCpuBars(QWidget* parent = nullptr);

    void setData(NoiseBarsData data);
    const NoiseBarsData& data() const { return m_data; }

    static QColor partColor(NoisePart part, bool dark);
    /// "0.071 %": a share of a CPU with as many decimals as a small one needs to be read at all (the bars, the
    /// table and the page's lines write every share with it).
    static QString percentText(double percent);
    /// The label of a part in the legend ("IRQ", "softirq", "thread", "NMI", "unexplained (HW/VM)", …).
    static QString partName(NoisePart part);
    /// A readable text colour on @p background.
    static QColor textOn(const QColor& background);

    /// Where the lost-time block of @p part in row @p row is drawn (empty when it has none), for tests.
    QRectF lostBlock(int row, NoisePart part) const;
    /// The text drawn in or beside that block ("IRQ 0.071 %"), empty when none.
    QString lostLabel(int row, NoisePart part) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    struct Block {
        NoisePart part;
        QRectF rect;
        QString label;
        bool inside = true; ///< the label fits inside the block
    };
    struct RowLayout {
        QRectF title;
        QRectF scaleBar;
        QRectF lostBar;
        QRectF detail;
        std::vector<Block> blocks;
    };
    void relayout() override;
    /// The lost-time block of @p part in row @p row, or null.
    const Block* block(int row, NoisePart part) const;
    int rowHeight() const;
    int legendHeight() const;
    void drawLegend(QPainter& p) const;
    void drawRow(QPainter& p, const NoiseBarRow& row, const RowLayout& layout) const;

    NoiseBarsData m_data;
    std::vector<RowLayout> m_layout;
};

} // namespace rtscope
