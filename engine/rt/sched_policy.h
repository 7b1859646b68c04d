#pragma once
/// @file Scheduling policies by name, and their priority ranges.
#include <optional>
#include <string>
#include <string_view>

namespace rtscope {

enum class Policy { Other, Batch, Idle, Fifo, RR, Deadline };
/// @brief The five policies every experiment can run a thread under, in the order the controls list them.
/// SCHED_DEADLINE is not among them: it needs runtime/deadline/period and its own affinity rule, so only the
/// experiments that implement it offer it (kLatencyPolicies, parseLatencyPolicy).
inline constexpr Policy kAllPolicies[] = {Policy::Other, Policy::Batch, Policy::Idle, Policy::Fifo, Policy::RR};
/// @brief kAllPolicies and Deadline: the latency experiment (and the sweep of it), which implement SCHED_DEADLINE.
inline constexpr Policy kLatencyPolicies[] = {Policy::Other, Policy::Batch, Policy::Idle,
                                              Policy::Fifo,  Policy::RR,    Policy::Deadline};

/// @brief "other", "batch", "idle", "fifo", "rr", "deadline".
const char* policyName(Policy p);
/// @brief "SCHED_OTHER", ...
const char* policyKernelName(Policy p);
/// @brief One of kAllPolicies by name, case-insensitive, also in the "SCHED_FIFO" form. "deadline" is refused here:
/// an experiment without SCHED_DEADLINE support names its allowed list in the sentence of its reader.
std::optional<Policy> parsePolicy(std::string_view name);
/// @brief parsePolicy() or "deadline"/"SCHED_DEADLINE": for the experiments that implement SCHED_DEADLINE.
std::optional<Policy> parseLatencyPolicy(std::string_view name);
/// @brief The names of kAllPolicies (with @p deadline, of kLatencyPolicies), for help texts and sentences: "other,
/// batch, idle, fifo, rr", or with @p lastJoin " or " "other, batch, idle, fifo or rr".
std::string policyNameList(bool deadline = false, std::string_view lastJoin = ", ");
int policyToKernel(Policy p); ///< SCHED_* constant
std::optional<Policy> policyFromKernel(int sched);
bool isRealtime(Policy p); ///< FIFO or RR: a priority applies (not Deadline, which has runtime/deadline/period)
bool isDeadline(Policy p); ///< SCHED_DEADLINE
/// @brief sched_get_priority_min/max for the policy (0..0 for the non-RT ones).
int priorityMin(Policy p);
int priorityMax(Policy p);
/// @brief "FIFO 80", "OTHER", "OTHER nice 5": the label used on markers and table rows.
std::string policyLabel(Policy p, int priority, int nice = 0);
/// @brief The validation sentence for a nice value given with a real-time policy, which the kernel ignores:
/// "nice applies to other, batch or idle, not to fifo: …". The configs with a nice field share it.
std::string realtimeNiceProblem(Policy p, int nice);

} // namespace rtscope
