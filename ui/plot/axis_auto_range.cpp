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
    // Widen at once: data outside the axis would be clipped. Narrow only when the data would fill less than ~40 % of
    // a linear axis (or leave out more than two 1-2-5 steps of a log one), and only after it has done so for a while.
    const bool log = m_scale == Scale::Log;
    const bool upper = follow(m_upper, m_shrinkUpperVotes, up, up > m_upper, up < m_upper / (log ? 4.99 : 2.49));
    const bool lower = follow(m_lower, m_shrinkLowerVotes, lo, lo<m_lower, lo> m_lower * (log ? 4.99 : 1.0));
    return upper || lower;
}

bool AxisAutoRange::follow(double& bound, int& shrinkVotes, double candidate, bool widens, bool narrows)
{
    if (widens || (narrows && ++shrinkVotes >= kShrinkAfterUpdates)) {
        bound = candidate;
        shrinkVotes = 0;
        return true;
    }
    if (!narrows)
        shrinkVotes = 0;
    return false;
}

} // namespace rtscope::plot
