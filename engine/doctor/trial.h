#pragma once
/// @file How a trial is judged and how long its phases are (docs/doctor.md, "Trials"). A fix is measured against the
/// baseline alternated, A B A B …, each phase as long as the others and under the same load, so that a drift of the
/// machine (another program starting) falls on both sides. The verdict is a one-sided Mann–Whitney rank test on the
/// phases' p99s at kTrialAlpha (exact, from the null distribution of U): with 3 pairs only a complete order (every B
/// below every A, p = 1/20) passes, with 4 pairs at most one crossing (p = 2/70), with 5 pairs at most four
/// (p = 0.048); and the medians must move by at least 1 µs. It helped when the B phases rank below, hurt in the mirror
/// case; anything between is no effect. One pair is never enough.
#include "engine/doctor/findings.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rtscope::doctor {

enum class DoctorDepth { Quick, Default, Thorough };
/// @brief "quick", "default", "thorough".
const char* depthName(DoctorDepth depth);

/// @brief The lengths of a doctor run.
struct PhasePlan {
    int64_t baselineNs = 0; ///< the traced baseline
    int64_t phaseNs = 0;    ///< one A or B phase
    int pairs = 0;          ///< A B pairs per trial (at least 2)
    int64_t settleNs = 0;   ///< after a change, before a phase counts (an IRQ's next delivery, a migrated thread)
    int maxTrials = 0;      ///< at most this many single-fix trials (the highest-ranked runtime fixes)
    bool tryUnseen = false; ///< also try fixes whose finding explains none of the measured lateness
    /// @brief The whole run at most: baseline, each trial, the combined one.
    int64_t budgetNs() const;
};
/// @brief quick: 5 s baseline, 3 pairs of 1 s, 3 trials; default: 12 s, 4 pairs of 1.2 s, 6 trials (at most 85 s);
/// thorough: 30 s, 5 pairs of 3 s, every run-time fix, those that explain nothing too.
PhasePlan phasePlan(DoctorDepth depth);

/// @brief The verdict from the phases' p99s (and the reason in numbers). Fewer than two phases of either kind, or a
/// phase without samples: NotTried.
Verdict judgeTrial(const std::vector<PhaseFigures>& phases, std::string& why);

/// @brief The significance level of a verdict.
inline constexpr double kTrialAlpha = 0.05;
/// @brief P(U ≥ @p u) for @p n A and @p m B values when the fix does nothing (exact; no ties).
double mannWhitneyTail(int n, int m, double u);

/// @brief The Mann–Whitney U of @p b against @p a (the number of pairs (a, b) with b < a, ties count one half):
/// |a|·|b| when every b is below every a, 0 in the mirror case.
double mannWhitneyBelow(const std::vector<double>& a, const std::vector<double>& b);

} // namespace rtscope::doctor
