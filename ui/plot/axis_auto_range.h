#pragma once
// Auto-ranging with hysteresis: an axis widens at once when data leaves it, but narrows only after the data
// has stayed well inside for a while, so a live chart does not jump every frame.
namespace rtscope::plot {

class AxisAutoRange {
public:
    enum class Scale { Linear, Log };

    /// Updates a narrowing must wait before it applies (about a second at the chart refresh rate).
    static constexpr int kShrinkAfterUpdates = 40;

    explicit AxisAutoRange(Scale scale = Scale::Linear);

    void setScale(Scale scale); ///< also forgets the current range
    Scale scale() const { return m_scale; }
    /// Keeps the lower bound at @p value (a linear axis from 0, a log count axis from 0.5).
    void setFixedLower(double value);
    /// The smallest range shown, even for no or constant data.
    void setMinimumUpper(double value) { m_minUpper = value; }
    /// For log scales, the lowest lower bound (latencies below it are drawn at it).
    void setLowestLower(double value) { m_lowestLower = value; }

    /// Feeds the data extent of one frame; returns true when the range changed.
    bool update(double dataMin, double dataMax);
    void reset();

    double lower() const { return m_lower; }
    double upper() const { return m_upper; }
    bool valid() const { return m_valid; }

private:
    double candidateUpper(double dataMax) const;
    double candidateLower(double dataMin) const;
    /// Moves @p bound to @p candidate when the data @p widens the axis, or when it @p narrows it for the
    /// kShrinkAfterUpdates-th update running (counted in @p shrinkVotes); returns whether @p bound moved.
    static bool follow(double& bound, int& shrinkVotes, double candidate, bool widens, bool narrows);

    Scale m_scale;
    bool m_valid = false;
    bool m_fixedLower = false;
    double m_fixed = 0;
    double m_minUpper = 1;
    double m_lowestLower = 0.1;
    double m_lower = 0;
    double m_upper = 1;
    int m_shrinkUpperVotes = 0;
    int m_shrinkLowerVotes = 0;
};

} // namespace rtscope::plot
