#pragma once
/// @file The machine's RT and interrupt threads (engine/rt/system_threads.h) as JSON, and back: what
/// `rtscope threads --json` prints for each row and what `rtscope agent` sends in its Threads frame (docs/remote.md).
///
/// Reading is for untrusted input (the agent on another machine): every field is checked, and the first bad one
/// gives one sentence naming it ("threads[3].nice must be an integer -20..19"). allowed_cpus may hold only digits,
/// ',' and '-': the page turns it into a taskset line the user pastes into a shell on that machine. The chrt and
/// taskset lines are written for people and scripts, never read back: the reader rebuilds them from the fields.
#include "engine/rt/system_threads.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace rtscope {

/// @brief The longest list read back: more than the threads of any board, and (at about 300 bytes a row) well inside
/// one agent frame.
inline constexpr size_t kMaxSystemThreadsJson = 2048;

/// @brief {pid, tid, name, policy, kernel_policy, rt_priority, nice, allowed_cpus, last_cpu, state, kernel_thread,
/// interrupt_related, chrt, taskset}.
nlohmann::json toJson(const SystemThread& t);
/// @brief The list at @p j (an array of toJson()'s objects, at most kMaxSystemThreadsJson); on a problem, empty and
/// @p problem holds the sentence, its paths starting with @p path ("threads").
std::vector<SystemThread> systemThreadsFromJson(const nlohmann::json& j, const std::string& path, std::string& problem);

} // namespace rtscope
