#pragma once
/// @file The machine as the doctor's knobs see it: /proc, /sys, /dev and the cgroup trees under one root directory.
/// Every knob reads and writes through a RootFs, so a test points one at a temporary directory holding a fake /proc
/// and /sys (docs/doctor.md, "Tests") and the real machine is never touched.
///
/// Paths are absolute as on the machine ("/proc/sys/kernel/timer_migration"); the root is put in front. Every open
/// resolves beneath the root with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS): none of
/// the files a knob changes is reached through a symbolic link on Linux, so a link anywhere on the way (planted, or
/// a ".." that climbs out of the root) is refused by the kernel rather than followed. Writes never create a file
/// (no O_CREAT): a knob only ever changes a file the kernel made.
#include "engine/doctor/expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace rtscope::doctor {

class RootFs {
public:
    /// @brief The machine itself when @p root is "/"; else a tree a test made. The root is opened once, here.
    explicit RootFs(std::string root = "/");
    virtual ~RootFs();
    RootFs(const RootFs&) = delete;
    RootFs& operator=(const RootFs&) = delete;

    /// @brief "/" or the test's directory.
    const std::string& root() const { return m_root; }
    bool isRealRoot() const { return m_root == "/"; }
    /// @brief @p path as a person finds it: the path itself on the real root, the root in front of it otherwise.
    std::string shown(std::string_view path) const;

    /// @brief The whole file (at most @p limit bytes); the Error names the path and the errno, and its kind is
    /// errorKindOf() the errno (Permission for EPERM: debugfs under kernel lockdown refuses root too).
    [[nodiscard]] Expected<std::string> readText(std::string_view path, size_t limit = 64 * 1024) const;
    /// @brief readText() without its trailing newline and spaces.
    [[nodiscard]] Expected<std::string> readLine(std::string_view path) const;
    bool exists(std::string_view path) const;
    bool isDirectory(std::string_view path) const;
    /// @brief The names in a directory (no "." or ".."), sorted; empty when it cannot be read.
    std::vector<std::string> list(std::string_view path) const;

    /// @brief Writes @p text to the existing file @p path in one write() (how /proc and /sys take a value).
    /// Returns 0 or the errno (the knob turns it into its own sentence: EPERM on an IRQ means something else than
    /// on a sysctl). Virtual so that a test's fake tree can refuse like the kernel does (a managed IRQ).
    [[nodiscard]] virtual int writeText(std::string_view path, std::string_view text);
    /// @brief mkdir (mode 0755) and rmdir; 0 or the errno. Virtual: in a cgroup tree the kernel fills a new
    /// directory with its control files, which a fake tree does by hand.
    [[nodiscard]] virtual int makeDirectory(std::string_view path);
    [[nodiscard]] virtual int removeDirectory(std::string_view path);
    /// @brief Mounts debugfs on @p path / unmounts @p path; 0 or the errno. Virtual for the fake tree.
    [[nodiscard]] virtual int mountDebugfs(std::string_view path);
    [[nodiscard]] virtual int unmount(std::string_view path);
    /// @brief Whether a debugfs is mounted on @p path.
    virtual bool isDebugfsMount(std::string_view path) const;

    /// @brief An open descriptor (O_CLOEXEC added) for a device such as /dev/cpu_dma_latency, or -errno.
    int openFile(std::string_view path, int flags) const;

private:
    int openBeneath(std::string_view path, int flags) const;

    std::string m_root;
    int m_rootFd = -1;
    int m_rootErrno = 0;
};

/// @brief Permission for EPERM and EACCES, Unavailable for ENOENT and ENOTDIR, System for the rest.
ErrorKind errorKindOf(int err);
/// @brief "ENOENT (No such file or directory)".
std::string errnoText(int err);

} // namespace rtscope::doctor
