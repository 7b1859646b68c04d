#pragma once
/// @file How rtscope writes every file it produces (CLI outputs, the recorder, the desktop app's exports): the paths
/// are checked before anything runs, and each file is written under a temporary name in its own directory, synced
/// and renamed into place, so a failed or interrupted write never leaves half a file where a good one was, a
/// symbolic link is never written through, and no output lands on a file the same command reads.
#include "engine/util/error.h"

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// @brief A path and how a sentence names where it came from ("--histfile", "the recording FILE").
struct NamedPath {
    std::string name;
    std::string path;
};

/// @brief The files one command reads and writes, to be checked together before it starts. Empty paths are
/// ignored, so optional flags can be added as they are.
struct OutputPlan {
    std::vector<NamedPath> outputs;
    std::vector<NamedPath> inputs;

    void addOutput(std::string name, std::string path);
    void addInput(std::string name, std::string path);
};

/// @brief One sentence per problem, each naming the output: a missing parent directory, a directory, a
/// non-regular file, a symbolic link (the file itself or any directory on its path), a directory on a filesystem
/// of the kernel's (proc, sysfs, debugfs, tracefs, cgroup, …: a write there fails or acts on the kernel), a file or
/// directory that cannot be written, an output that is the same file as an input or as another output (same device
/// and inode when both exist, else the same absolute path). Empty when every output can be written.
[[nodiscard]] std::vector<std::string> checkOutputs(const OutputPlan& plan);
/// @brief checkOutputs() for a plan of the one output @p path (named @p name) and the inputs @p inputs.
[[nodiscard]] std::vector<std::string> checkOutput(const std::string& name, const std::string& path,
                                                   const std::vector<NamedPath>& inputs = {});

/// @brief How openOutputDirectory() makes sure no symbolic link is followed: openat2(RESOLVE_NO_SYMLINKS) where the
/// kernel has it (Linux 5.6), else a walk from "/" or the working directory, one component at a time, each opened
/// relative to the last with O_NOFOLLOW. Both refuse a link anywhere on the path, and neither can be raced: no
/// component is looked up by a path a planted link could redirect.
enum class DirectoryResolve { Kernel, Walk };

/// @brief Opens the directory @p dir to create files in, with no symbolic link anywhere on its path (a root run
/// must not be redirected into another directory by a link a user planted). The working directory itself, for a
/// relative @p dir, is taken as it is. Returns the descriptor, or -1 with errno set (ELOOP for a link) and @p why
/// one sentence: "the directory 'a/b' is reached through the symbolic link 'a'; …", "the directory 'x' does not
/// exist; create it first".
[[nodiscard]] int openOutputDirectory(const std::string& dir, std::string& why,
                                      DirectoryResolve how = DirectoryResolve::Kernel);

/// @brief The name of the filesystem of the kernel's that the open directory @p dirFd is on ("proc", "sysfs",
/// "tracefs", …), or nullptr for any other (a disk, tmpfs).
[[nodiscard]] const char* kernelFilesystemOf(int dirFd);

/// @brief A file being written under a temporary name next to its final path; commit() puts it in place.
///
/// The directory is opened once, through openOutputDirectory() (no link on its path), and every later step is
/// relative to that descriptor. The temporary is created with O_CREAT|O_EXCL|O_NOFOLLOW (mode 0644 less the umask,
/// or the mode of the file it replaces), so it is always a new file of this process's. commit() writes out, fsyncs,
/// then lstat()s the final path right before rename(): a final path that became a symbolic link (or a directory)
/// meanwhile is refused and left alone. Should one be swapped in between that check and the rename, rename() replaces
/// the link itself, never its target, so the race cannot write through it either. Destroyed without commit(), it
/// removes the temporary and leaves whatever was at the final path untouched.
class AtomicOutputFile {
public:
    AtomicOutputFile();
    ~AtomicOutputFile();
    AtomicOutputFile(const AtomicOutputFile&) = delete;
    AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

    /// @brief Creates the temporary for @p path. The final path must not be a symbolic link or a directory.
    [[nodiscard]] Error open(const std::string& path);
    bool isOpen() const { return m_fd >= 0; }
    /// @brief The final path and the temporary one (empty when not open).
    const std::string& path() const { return m_path; }
    const std::string& temporaryPath() const { return m_temporary; }

    /// @brief Appends @p bytes. After a failure every later write and commit() fail with the first error.
    [[nodiscard]] Error write(std::string_view bytes);
    /// @brief Bytes written to the temporary so far (by write(); a failed write counts what reached the file).
    uint64_t size() const { return m_size; }
    /// @brief Cuts the temporary back to its first @p size bytes (at most size()) and forgets a write error, so
    /// that a writer whose write failed half-way (a full disk) can keep what came before a boundary of its own
    /// and end the file properly there.
    [[nodiscard]] Error rewind(uint64_t size);
    /// @brief A buffered stream onto the temporary, for writers that take a std::ostream. Its failures surface
    /// in commit().
    std::ostream& stream();

    /// @brief Flushes and fsyncs the temporary, so that a commit() after it only renames: a command that puts several
    /// outputs in place at once syncs them all first, and the moment they appear is short. Errors as write()'s.
    [[nodiscard]] Error sync();
    /// @brief Flushes, fsyncs and renames the temporary onto the final path (then syncs the directory). On any
    /// failure the temporary is removed, the final path is left as it was, and the error says why.
    [[nodiscard]] Error commit();
    /// @brief Removes the temporary; the final path is left as it was.
    void discard();

private:
    class Buffer;
    [[nodiscard]] Error fail(const std::string& what, int error);

    std::string m_path;
    std::string m_temporary;
    std::string m_name;          ///< the final file's name in its directory
    std::string m_temporaryName; ///< the temporary's
    int m_dirFd = -1;
    int m_fd = -1;
    uint64_t m_size = 0;
    Error m_error;
    std::unique_ptr<Buffer> m_buffer;
    std::unique_ptr<std::ostream> m_stream;
};

/// @brief Writes @p bytes to @p path through an AtomicOutputFile: all of it, or nothing changed.
[[nodiscard]] Error writeFileAtomically(const std::string& path, std::string_view bytes);

} // namespace rtscope
