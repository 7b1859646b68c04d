#pragma once
/// @file Scratch directories that name the process owning them, so that one left behind by a process that died
/// without removing it (kill -9, a crash) is removed by the next start: the CLI's temporary recording behind
/// `latency --csv`, the desktop app's spool. A recording there can hold gigabytes and would otherwise stay for good.
#include "engine/util/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>

namespace rtscope {

/// @brief The file in each scratch directory that names its owner: "PID STARTTIME\n", STARTTIME being field 22 of
/// /proc/PID/stat (clock ticks after boot), which tells a process from a later one given the same PID.
inline constexpr const char* kScratchOwnerFile = "owner";

/// @brief Field 22 of /proc/@p pid/stat, or nothing when there is no such process.
[[nodiscard]] std::optional<uint64_t> processStartTime(pid_t pid);

/// @brief Writes @p dir's owner file naming this process.
[[nodiscard]] Error writeScratchOwner(const std::string& dir);

/// @brief What removeStaleScratchDirs() removed.
struct ScratchCleanup {
    int removed = 0;    ///< directories removed
    uint64_t bytes = 0; ///< the size of the files in them
};

/// @brief Removes the directories that match @p pattern (its directory, its name up to the trailing Xs: mkdtemp's
/// template) whose owner is gone: its PID names no process, or a process that started at another time (the PID
/// was reused). One kept by a process alive now, one without an owner file (being made, or made by an older
/// rtscope), a symbolic link and one of another user are never touched.
ScratchCleanup removeStaleScratchDirs(const std::string& pattern);

/// @brief A private directory (mkdtemp: mode 0700) with its owner file, removed with everything in it when
/// destroyed.
class ScratchDir {
public:
    ScratchDir() = default;
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    /// @brief Creates it from @p pattern ("/tmp/rtscope-latency-XXXXXX").
    [[nodiscard]] Error create(const std::string& pattern);
    /// @brief Its path; empty before create() succeeded.
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

} // namespace rtscope
