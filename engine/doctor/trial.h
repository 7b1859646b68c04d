#pragma once
/// @file How a trial is judged and how long its phases are (docs/doctor.md, "Trials"). A fix is measured against the
/// baseline alternated, A B A B …, each phase as long as the others and under the same load, so that a drift of the
/// machine (another program starting) falls on both sides. The verdict is a rank test on the phases' p99s: the fix
/// helped when every B phase's p99 is below every A phase's (with n phases each, the chance of that order when the fix
/// does nothing is 1 / C(2n, n): 1/20 for 3 pairs, 1/252 for 5) and by more than the A phases' own spread's noise
/// floor; it hurt in the mirror case; anything between is no effect. One pair is never enough.
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
/// @brief quick: 5 s baseline, 3 pairs of 1 s, 3 trials; default: 12 s, 3 pairs of 1.5 s, 6 trials (about 80 s);
/// thorough: 30 s, 5 pairs of 3 s, every run-time fix, those that explain nothing too.
PhasePlan phasePlan(DoctorDepth depth);

/// @brief The verdict from the phases' p99s (and the reason in numbers). Fewer than two phases of either kind, or a
/// phase without samples: NotTried.
Verdict judgeTrial(const std::vector<PhaseFigures>& phases, std::string& why);

/// @brief The Mann–Whitney U of @p b against @p a (the number of pairs (a, b) with b < a, ties count one half):
/// |a|·|b| when every b is below every a, 0 in the mirror case.
double mannWhitneyBelow(const std::vector<double>& a, const std::vector<double>& b);

} // namespace rtscope::doctor
