#include "ui/plot/axis_auto_range.h"

#include "ui/plot/plot_math.h"

#include <algorithm>

namespace rtscope::plot {

AxisAutoRange::AxisAutoRange(Scale scale)
    : m_scale(scale)
{}

void AxisAutoRange::setScale(Scale scale)
{
    m_scale = scale;
    reset();
}

void AxisAutoRange::setFixedLower(double value)
{
    m_fixedLower = true;
    m_fixed = value;
    m_lower = value;
}

void AxisAutoRange::reset()
{
    m_valid = false;
    m_shrinkUpperVotes = m_shrinkLowerVotes = 0;
}

double AxisAutoRange::candidateUpper(double dataMax) const
{
    // 5 % headroom so the maximum never sits on the frame.
    return niceCeil(std::max(dataMax * 1.05, m_minUpper));
}

double AxisAutoRange::candidateLower(double dataMin) const
{
    if (m_fixedLower)
        return m_fixed;
    if (m_scale == Scale::Linear)
        return 0;
    return niceFloor(std::max(dataMin / 1.05, m_lowestLower));
}

bool AxisAutoRange::update(double dataMin, double dataMax)
{
    const double up = candidateUpper(dataMax);
    double lo = candidateLower(dataMin);
    if (m_scale == Scale::Log && lo >= up)
        lo = up / 10;
    if (!m_valid) {
        m_valid = true;
        m_lower = lo;
        m_upper = up;
        m_shrinkUpperVotes = m_shrinkLowerVotes = 0;
        return true;
    }
    bool changed = false;
    // Widen at once: data outside the axis would be clipped.
    if (up > m_upper) {
        m_upper = up;
        m_shrinkUpperVotes = 0;
        changed = true;
    } else if (up < m_upper / (m_scale == Scale::Log ? 4.99 : 2.49)) {
        // Narrow only when the data would fill less than ~40 % of a linear axis (or leave out more than two
        // 1-2-5 steps of a log one), and only after it has done so for a while.
        if (++m_shrinkUpperVotes >= kShrinkAfterUpdates) {
            m_upper = up;
            m_shrinkUpperVotes = 0;
            changed = true;
        }
    } else {
        m_shrinkUpperVotes = 0;
    }
    if (lo < m_lower) {
        m_lower = lo;
        m_shrinkLowerVotes = 0;
        changed = true;
    } else if (lo > m_lower * (m_scale == Scale::Log ? 4.99 : 1.0)) {
        if (++m_shrinkLowerVotes >= kShrinkAfterUpdates) {
            m_lower = lo;
            m_shrinkLowerVotes = 0;
            changed = true;
        }
    } else {
        m_shrinkLowerVotes = 0;
    }
    return changed;
}

} // namespace rtscope::plot
