#pragma once
// How thick a painted line came out, read from a widget's image: tests check that a pen follows the presentation
// scale (plot::lineWidth) by what is drawn, not by what a getter says.
#include <QImage>
#include <QPoint>

#include <algorithm>

namespace rtscope::test {

/// The widest run of @p colour pixels across a line near @p at: for a vertical line, horizontal runs within
/// @p reach pixels left and right of @p at, on every row within @p reach above and below it (a dashed line has
/// gaps); for a horizontal line the same turned by 90°. 0 when no pixel has the colour.
inline int lineThickness(const QImage& image, QPoint at, Qt::Orientation line, QRgb colour, int reach = 12)
{
    const bool vertical = line == Qt::Vertical;
    int widest = 0;
    for (int along = -reach; along <= reach; ++along) {
        int run = 0;
        for (int across = -reach; across <= reach; ++across) {
            const QPoint p = vertical ? at + QPoint(across, along) : at + QPoint(along, across);
            const bool hit = image.valid(p) && (image.pixel(p) & 0xffffff) == (colour & 0xffffff);
            run = hit ? run + 1 : 0;
            widest = std::max(widest, run);
        }
    }
    return widest;
}

} // namespace rtscope::test
