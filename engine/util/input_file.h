#pragma once
/// @file How rtscope opens every file it reads (recordings, presets, imported results, settings): only a regular
/// file, found without blocking. open() of a FIFO blocks until a writer comes, in the kernel, where no signal the
/// CLI or the GUI waits for can reach it (both block SIGINT and SIGTERM to take them synchronously); a device may
/// never end. The file is opened with O_NONBLOCK, which open() of a FIFO honours, checked with fstat() on the
/// descriptor itself (no window between a check and the open), and only then made blocking again.
#include <cstddef>
#include <string>

namespace rtscope {

/// @brief A file descriptor that closes itself.
class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd)
        : m_fd(fd)
    {}
    ~UniqueFd();
    UniqueFd(UniqueFd&& o) noexcept
        : m_fd(o.release())
    {}
    UniqueFd& operator=(UniqueFd&& o) noexcept;
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;

    int get() const { return m_fd; }
    explicit operator bool() const { return m_fd >= 0; }
    /// @brief Gives the descriptor up to the caller, who closes it.
    int release();

private:
    int m_fd = -1;
};

/// @brief Opens @p path read-only if it is a regular file (a symbolic link to one is followed: reading through a
/// link writes nothing). A FIFO, socket, device or directory is refused without blocking, and so is a path that
/// cannot be opened; @p why then holds one sentence that names the path and, for a file of the wrong type, what
/// it is ("'p' is a FIFO (named pipe), not a regular file").
[[nodiscard]] UniqueFd openRegularFile(const std::string& path, std::string& why);

/// @brief Reads the regular file @p path whole into @p out, if it holds at most @p maxBytes (read until one byte
/// past the limit: a size from stat() is not trusted). False with @p why otherwise.
[[nodiscard]] bool readRegularFile(const std::string& path, size_t maxBytes, std::string& out, std::string& why);

} // namespace rtscope
