#pragma once
/// @file The raw kernel trace of a session, kept as the kernel wrote it, and written out as a trace-cmd .dat file
/// that `trace-cmd report` and KernelShark open (docs/experiments/anatomy.md, "The raw trace").
///
/// The session's reader already reads every sub-buffer of the measured CPUs' trace_pipe_raw (a consuming read: a
/// second reader, such as libtracecmd's own recorder, would take pages away from the anatomy). So the capture is
/// fed the very same sub-buffers, unchanged, and keeps them in one unlinked temporary file per CPU; after the run
/// writeDat() hands them to libtracecmd, which adds the headers (event formats, kernel symbols, command lines)
/// from the tracefs the session used and lays out trace-cmd's file (version 6, clock "mono"). Nothing is dropped or
/// rewritten: a sub-buffer that followed a loss keeps the kernel's loss flag, and trace-cmd shows it.
#include "engine/util/error.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

class TraceDatCapture {
public:
    /// @brief The temporary files go in @p tempDir (empty: the system's temporary directory); put it on the file
    /// system of the final output, so that the run's trace does not fill a small /tmp.
    explicit TraceDatCapture(std::string tempDir = {});
    ~TraceDatCapture();
    TraceDatCapture(const TraceDatCapture&) = delete;
    TraceDatCapture& operator=(const TraceDatCapture&) = delete;

    /// @brief A session starts: its tracefs, measured CPUs and sub-buffer size. A second session (the CPUs changed)
    /// appends to the same files. A failure is kept, and writeDat() reports it.
    void begin(const std::string& tracingDir, const std::vector<int>& cpus, size_t subBufferBytes);
    /// @brief The session's reader thread: one sub-buffer of @p cpu, @p bytes long, as read.
    void append(int cpu, const void* subBuffer, size_t bytes);

    /// @brief Sub-buffers kept so far.
    uint64_t subBuffers() const;
    /// @brief Writes the .dat and hands it to @p sink in pieces, in order (the caller puts it in place: the CLI
    /// through AtomicOutputFile). After the sessions stopped. An error says what failed: nothing was recorded, a
    /// temporary file could not be written, or libtracecmd could not lay out the file.
    Error writeDat(const std::function<Error(std::string_view)>& sink) const;

private:
    mutable std::mutex m_mutex;
    std::string m_tempDir;
    std::string m_tracingDir;
    size_t m_subBufferBytes = 0;
    std::map<int, int> m_files; ///< CPU -> fd of its unlinked temporary file
    std::vector<uint8_t> m_padded;
    uint64_t m_subBuffers = 0;
    std::string m_error; ///< the first failure
};

/// @brief What a .dat file holds, as libtracecmd reads it back: events by "system/name" ("sched/sched_switch").
struct TraceDatContents {
    std::string error; ///< libtracecmd could not open it; empty when it could
    int cpus = 0;
    uint64_t events = 0;
    std::map<std::string, uint64_t> byName;
};
/// @brief Opens @p path with libtracecmd and counts its events (for tests and a check of a written file).
TraceDatContents readTraceDat(const std::string& path);

} // namespace rtscope
