#include "engine/doctor/trial.h"

#include <algorithm>
#include <cstdio>

namespace rtscope::doctor {

const char* depthName(DoctorDepth depth)
{
    switch (depth) {
    case DoctorDepth::Quick:
        return "quick";
    case DoctorDepth::Default:
        return "default";
    case DoctorDepth::Thorough:
        return "thorough";
    }
    return "?";
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
        return {12000 * kMs, 1500 * kMs, 3, 100 * kMs, 6, false};
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

namespace {
std::string p99Range(const std::vector<double>& v)
{
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return usText(*lo) + "–" + usText(*hi) + " us";
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
    const double u = mannWhitneyBelow(a, b);
    const double all = double(a.size() * b.size());
    const std::string figures = "p99 " + p99Range(a) + " without the fix, " + p99Range(b) + " with it, over " +
                                std::to_string(a.size()) + " + " + std::to_string(b.size()) + " alternated phases";
    // The p99s of a VM move by a microsecond or so from phase to phase: an order of the phases held up by less than
    // that is not an effect anyone can use. Both conditions, the rank order and the gap, must hold.
    constexpr double kMinGapUs = 1.0;
    const double gapDown = *std::min_element(a.begin(), a.end()) - *std::max_element(b.begin(), b.end());
    const double gapUp = *std::min_element(b.begin(), b.end()) - *std::max_element(a.begin(), a.end());
    if (u == all && gapDown >= kMinGapUs) {
        why = "every phase with the fix had a lower p99 than every phase without it: " + figures;
        return Verdict::Helped;
    }
    if (u == 0 && gapUp >= kMinGapUs) {
        why = "every phase with the fix had a higher p99 than every phase without it: " + figures;
        return Verdict::Hurt;
    }
    why = "the phases with and without the fix overlap: " + figures;
    return Verdict::NoEffect;
}

} // namespace rtscope::doctor
