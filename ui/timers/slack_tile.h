#pragma once
// The "Timer slack in force" tile of the two timer labs (drift, sleep floor): before a run's threads read back the
// slack they got, what the config asks for; in either case an accent that warns of a slack of 10 µs or more.
#include "engine/rt/sched_policy.h"

#include <QString>

#include <cstdint>

namespace rtscope {

class FactTile;

/// The slack a thread of @p policy gets when its config asks for @p requestedNs (0: the kernel's default,
/// @p defaultNs): none for a real-time thread.
int64_t requestedSlackNs(Policy policy, int64_t requestedNs, int64_t defaultNs);
/// Shows on @p tile the slack a config of @p policy asks for with @p requestedNs (as requestedSlackNs()), and why;
/// @p defaultDetail is the detail line where the kernel's default applies.
void showRequestedSlack(FactTile* tile, Policy policy, int64_t requestedNs, int64_t defaultNs,
                        const QString& defaultDetail);
/// The slack tile's accent for @p slackNs in force (@p dark: the palette is dark): orange from 10 µs, else green.
void accentSlack(FactTile* tile, int64_t slackNs, bool dark);

} // namespace rtscope
