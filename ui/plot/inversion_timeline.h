#pragma once
// Who ran when in the priority-inversion lab: three lanes (high, medium, low) of the threads' own running
// segments on a time axis in milliseconds. The high thread's waits for the lock are shaded across all lanes,
// and the medium thread running inside such a wait — the inversion itself — is drawn in red. Dashed lines mark
// the periods. A QPainter widget that stays fast with many segments: only the visible ones are laid out, and
// segments closer than a pixel are merged into one block (nothing is dropped: a block is at least a pixel wide).
#include "ui/plot/laid_out_widget.h"

#include <QColor>
#include <QString>
#include <QStringList>

#include <array>
#include <cstdint>
#include <vector>

class QPainter;

namespace rtscope {

enum class LaneActivity : uint8_t {
    Running, ///< ran without the lock
    Holding, ///< ran holding the lock
    Waiting, ///< released, but not holding the lock yet (the high thread)
};

struct LaneSegment {
    int64_t startNs = 0;
    int64_t endNs = 0;
    LaneActivity activity = LaneActivity::Running;
};

struct TimeSpan {
    int64_t startNs = 0;
    int64_t endNs = 0;
};

struct InversionTimelineData {
    enum Lane { High, Medium, Low, LaneCount };

    QString title;
    QColor titleColor; ///< invalid: the text colour (a held reference draws its title in the reference colour)
    std::array<QString, LaneCount> laneNames; ///< "high · FIFO 30"
    /// Per lane, sorted by start and disjoint (one thread's life). Times in ns on one clock.
    std::array<std::vector<LaneSegment>, LaneCount> lanes;
    std::vector<TimeSpan> highWaits; ///< sorted; shaded across the lanes
    std::vector<int64_t> periodStarts;
    int64_t originNs = 0; ///< axis zero
    int64_t fromNs = 0;   ///< the visible window
    int64_t toNs = 0;
    QString emptyText; ///< shown when no lane has a segment in the window
};

class InversionTimeline : public plot::LaidOutWidget {
    Q_OBJECT
public:
    /// A laid-out block: one or more segments of one lane and activity, in widget pixels.
    struct Block {
        int lane = 0;
        LaneActivity activity = LaneActivity::Running;
        bool inversion = false; ///< the medium thread ran while high waited
        double x0 = 0;
        double x1 = 0;
    };

    explicit InversionTimeline(QWidget* parent = nullptr);
    ~InversionTimeline() override;

    void setData(InversionTimelineData data);
    const InversionTimelineData& data() const { return m_data; }
    void setLegendVisible(bool visible);

    // What is drawn, for tests and benchmarks (valid for the current size).
    const std::vector<Block>& blocks() const { return m_blocks; }
    const std::vector<Block>& waitShading() const { return m_waits; }
    QStringList tickLabels() const;
    std::vector<double> periodMarkerX() const;
    double xOf(int64_t ns) const;
    QRectF plotRect() const { return m_plot; }
    QRectF laneRect(int lane) const;
    /// The legend's entries, in order.
    QStringList legendTexts() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    struct Tick {
        double x = 0;
        QString label;
    };
    struct LegendItem {
        QString text;
        int kind = 0;
    };

    void relayout() override;
    void layoutLane(int lane);
    void addBlock(std::vector<Block>& out, Block b) const;
    std::vector<LegendItem> legendItems() const;
    int legendHeight(int width) const;
    QColor laneColor(int lane, LaneActivity activity, bool inversion) const;
    void drawLegend(QPainter& p, const QRectF& area) const;
    void drawSwatch(QPainter& p, const QRectF& r, int kind) const;

    InversionTimelineData m_data;
    bool m_legend = true;
    QRectF m_plot;
    double m_laneHeight = 0;
    std::vector<Block> m_blocks;
    std::vector<Block> m_waits;
    std::vector<Tick> m_ticks;
    std::vector<double> m_periodX;
};

} // namespace rtscope
