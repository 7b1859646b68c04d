#include "engine/util/input_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rtscope {

UniqueFd::~UniqueFd()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept
{
    if (this != &o) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = o.release();
    }
    return *this;
}

int UniqueFd::release()
{
    const int fd = m_fd;
    m_fd = -1;
    return fd;
}

namespace {

// Why @p path, which is of type @p mode and not a regular file, is refused.
std::string notRegular(const std::string& path, mode_t mode)
{
    const char* kind = S_ISDIR(mode)    ? "a directory"
                       : S_ISFIFO(mode) ? "a FIFO (named pipe)"
                       : S_ISSOCK(mode) ? "a socket"
                       : S_ISCHR(mode)  ? "a character device"
                       : S_ISBLK(mode)  ? "a block device"
                                        : "a special file";
    return "'" + path + "' is " + kind + ", not a regular file; give the path of a file";
}

} // namespace

UniqueFd openRegularFile(const std::string& path, std::string& why)
{
    // A look first, so that a device is not even opened (opening one can act: a tape rewinds, a modem hangs up);
    // the fstat() below is what decides, on the descriptor, so a file swapped in meanwhile changes nothing.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        why = notRegular(path, st.st_mode);
        return {};
    }
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!fd) {
        why = "cannot open '" + path + "': " + std::strerror(errno);
        return {};
    }
    if (::fstat(fd.get(), &st) != 0) {
        why = "cannot read '" + path + "': " + std::strerror(errno);
        return {};
    }
    if (!S_ISREG(st.st_mode)) {
        why = notRegular(path, st.st_mode);
        return {};
    }
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
        why = "cannot read '" + path + "': " + std::strerror(errno);
        return {};
    }
    return fd;
}

bool readRegularFile(const std::string& path, size_t maxBytes, std::string& out, std::string& why)
{
    const UniqueFd fd = openRegularFile(path, why);
    if (!fd)
        return false;
    out.clear();
    char buffer[64 * 1024];
    while (out.size() <= maxBytes) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            why = "cannot read '" + path + "': " + std::strerror(errno);
            return false;
        }
        if (n == 0)
            return true;
        out.append(buffer, size_t(n));
    }
    why = "'" + path + "' is larger than " + std::to_string(maxBytes) + " bytes";
    return false;
}

} // namespace rtscope
