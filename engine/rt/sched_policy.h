#pragma once
/// @file Scheduling policies by name, and their priority ranges.
#include <optional>
#include <string>
#include <string_view>

namespace rtscope {

enum class Policy { Other, Batch, Idle, Fifo, RR };
/// @brief Every policy, in the order the controls list them.
inline constexpr Policy kAllPolicies[] = {Policy::Other, Policy::Batch, Policy::Idle, Policy::Fifo, Policy::RR};

/// @brief "other", "batch", "idle", "fifo", "rr".
const char* policyName(Policy p);
/// @brief "SCHED_OTHER", ...
const char* policyKernelName(Policy p);
std::optional<Policy> parsePolicy(std::string_view name); ///< case-insensitive; also accepts "SCHED_FIFO" forms
int policyToKernel(Policy p);                             ///< SCHED_* constant
std::optional<Policy> policyFromKernel(int sched);
bool isRealtime(Policy p); ///< FIFO or RR
/// @brief sched_get_priority_min/max for the policy (0..0 for the non-RT ones).
int priorityMin(Policy p);
int priorityMax(Policy p);
/// @brief "FIFO 80", "OTHER", "OTHER nice 5": the label used on markers and table rows.
std::string policyLabel(Policy p, int priority, int nice = 0);
/// @brief The validation sentence for a nice value given with a real-time policy, which the kernel ignores:
/// "nice applies to other, batch or idle, not to fifo: …". The configs with a nice field share it.
std::string realtimeNiceProblem(Policy p, int nice);

} // namespace rtscope
