#pragma once
// The breakdown of one wake-up's latency (docs/experiments/anatomy.md) as a stacked bar with values: its parts in
// time order, each as tall as its share, labelled beside; an unknown part is listed without a block. A QPainter
// widget taking plain data (ui/widgets/anatomy_view_data.h builds it); it stands beside the swimlane
// (anatomy_swimlane.h), whose colours it shares.
#include "ui/plot/laid_out_widget.h"

#include <QColor>
#include <QRectF>
#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace rtscope {

/// One part of a wake-up's latency in the stacked bar.
enum class BreakdownRole : uint8_t { TimerDelay, Interrupts, Scheduling, ReturnToUser, Unaccounted };

struct BreakdownPart {
    BreakdownRole role = BreakdownRole::Unaccounted;
    QString name;              ///< "scheduling delay"
    std::optional<int64_t> ns; ///< nullopt: unknown (listed, no block)
    QString valueText;         ///< ns written with its unit ("1.18 ms")
    QString detail;            ///< "stress-ng-cpu 1.18 ms" (the largest contributor), may be empty
};

struct AnatomyBreakdownData {
    int64_t latencyNs = 0;
    QString latencyText; ///< "1.21 ms"
    /// In time order; the Unaccounted part (latency − the known parts, exact) last, when it is not zero.
    std::vector<BreakdownPart> parts;
};

class AnatomyBreakdownBar : public plot::LaidOutWidget {
    Q_OBJECT
public:
    explicit AnatomyBreakdownBar(QWidget* parent = nullptr);
    ~AnatomyBreakdownBar() override;

    void setData(AnatomyBreakdownData data);
    const AnatomyBreakdownData& data() const { return m_data; }

    /// The block of part @p index (empty for an unknown part, which has no size), for tests.
    QRectF blockRect(int index) const;
    /// The text beside part @p index.
    QString labelText(int index) const;
    QRectF barRect() const { return m_bar; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    static QColor roleColor(BreakdownRole role, bool dark);

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void relayout() override;

    AnatomyBreakdownData m_data;
    QRectF m_bar;
    std::vector<QRectF> m_blocks;
    std::vector<double> m_labelY; ///< the baseline centre of each part's label
};

} // namespace rtscope
