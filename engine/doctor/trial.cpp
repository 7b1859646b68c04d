#include "engine/doctor/trial.h"

#include "engine/util/name_list.h"

#include <algorithm>
#include <cstdio>

namespace rtscope::doctor {

const char* depthName(DoctorDepth depth)
{
    return enumName<DoctorDepth::Thorough>(depth, {"quick", "default", "thorough"});
}

int64_t PhasePlan::budgetNs() const
{
    // Each trial: its 2 × pairs phases, each after a settle; the combined trial the same.
    const int64_t trial = 2 * int64_t(pairs) * (phaseNs + settleNs);
    return baselineNs + int64_t(maxTrials + 1) * trial;
}

PhasePlan phasePlan(DoctorDepth depth)
{
    constexpr int64_t kMs = 1'000'000;
    switch (depth) {
    case DoctorDepth::Quick:
        return {5000 * kMs, 1000 * kMs, 3, 100 * kMs, 3, false};
    case DoctorDepth::Default:
        return {12000 * kMs, 1200 * kMs, 4, 100 * kMs, 6, false};
    case DoctorDepth::Thorough:
        return {30000 * kMs, 3000 * kMs, 5, 200 * kMs, 100, true};
    }
    return {};
}

double mannWhitneyBelow(const std::vector<double>& a, const std::vector<double>& b)
{
    double u = 0;
    for (double x : a)
        for (double y : b)
            u += y < x ? 1.0 : (y == x ? 0.5 : 0.0);
    return u;
}

double mannWhitneyTail(int n, int m, double u)
{
    // The exact null distribution of U (no ties): count[n][m][k] arrangements of n A and m B values with U = k,
    // from count(n, m, k) = count(n − 1, m, k − m) + count(n, m − 1, k) (the largest value is an A, or a B).
    if (n <= 0 || m <= 0)
        return 1.0;
    const int maxU = n * m;
    std::vector<std::vector<std::vector<double>>> c(n + 1, std::vector<std::vector<double>>(m + 1));
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= m; ++j) {
            c[i][j].assign(size_t(i * j + 1), 0.0);
            if (i == 0 || j == 0) {
                c[i][j][0] = 1.0;
                continue;
            }
            for (int k = 0; k <= i * j; ++k)
                c[i][j][size_t(k)] = (k - j >= 0 ? c[i - 1][j][size_t(k - j)] : 0.0) +
                                     (k <= (i) * (j - 1) ? c[i][j - 1][size_t(k)] : 0.0);
        }
    double total = 0, tail = 0;
    for (int k = 0; k <= maxU; ++k) {
        total += c[n][m][size_t(k)];
        if (double(k) >= u - 1e-9)
            tail += c[n][m][size_t(k)];
    }
    return tail / total;
}

namespace {
std::string p99Range(const std::vector<double>& v)
{
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return usText(*lo) + "–" + usText(*hi) + " us";
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}
} // namespace

Verdict judgeTrial(const std::vector<PhaseFigures>& phases, std::string& why)
{
    std::vector<double> a;
    std::vector<double> b;
    for (const PhaseFigures& p : phases) {
        if (p.figures.samples == 0) {
            why = "a phase measured no wake-up";
            return Verdict::NotTried;
        }
        (p.withFix ? b : a).push_back(p.figures.p99Us);
    }
    if (a.size() < 2 || b.size() < 2) {
        why = "fewer than two phases with and without the fix (" + std::to_string(b.size()) + " and " +
              std::to_string(a.size()) + ")";
        return Verdict::NotTried;
    }
    const int n = int(a.size()), m = int(b.size());
    const double below = mannWhitneyBelow(a, b);
    const double above = double(n * m) - below;
    const double pBelow = mannWhitneyTail(n, m, below);
    const double pAbove = mannWhitneyTail(n, m, above);
    const double medianA = median(a), medianB = median(b);
    char stats[160];
    std::snprintf(stats, sizeof stats, "median p99 %.1f -> %.1f us; U = %.1f of %d, one-sided p = %.3f", medianA,
                  medianB, below, n * m, std::min(pBelow, pAbove));
    const std::string figures = "p99 " + p99Range(a) + " without the fix, " + p99Range(b) + " with it, over " +
                                std::to_string(n) + " + " + std::to_string(m) + " alternated phases (" + stats + ")";
    // The p99s of a VM move by a microsecond or so from phase to phase: a shift of the medians smaller than that is
    // not an effect anyone can use, however consistent. Both must hold: the rank test and the shift.
    constexpr double kMinShiftUs = 1.0;
    if (pBelow <= kTrialAlpha && medianA - medianB >= kMinShiftUs) {
        why = "the phases with the fix had lower p99s: " + figures;
        return Verdict::Helped;
    }
    if (pAbove <= kTrialAlpha && medianB - medianA >= kMinShiftUs) {
        why = "the phases with the fix had higher p99s: " + figures;
        return Verdict::Hurt;
    }
    why = "the phases with and without the fix overlap: " + figures;
    return Verdict::NoEffect;
}

} // namespace rtscope::doctor
