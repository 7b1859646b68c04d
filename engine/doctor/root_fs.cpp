#include "engine/doctor/root_fs.h"

#include "engine/rt/rt_environment.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace rtscope::doctor {

namespace {

// "/proc/sys/x" -> "proc/sys/x": openat2's RESOLVE_BENEATH refuses an absolute path.
std::string_view relative(std::string_view path)
{
    while (!path.empty() && path.front() == '/')
        path.remove_prefix(1);
    return path.empty() ? std::string_view(".") : path;
}

// The directory part and the last component of @p path ("/a/b/c" -> "/a/b", "c").
std::pair<std::string, std::string> splitLast(std::string_view path)
{
    const size_t slash = path.rfind('/');
    if (slash == std::string_view::npos)
        return {"/", std::string(path)};
    return {std::string(slash == 0 ? std::string_view("/") : path.substr(0, slash)),
            std::string(path.substr(slash + 1))};
}

class Fd {
public:
    explicit Fd(int fd)
        : m_fd(fd)
    {}
    ~Fd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

} // namespace

ErrorKind errorKindOf(int err)
{
    if (err == EPERM || err == EACCES)
        return ErrorKind::Permission;
    return err == ENOENT || err == ENOTDIR ? ErrorKind::Unavailable : ErrorKind::System;
}

std::string errnoText(int err)
{
    return errnoName(err) + " (" + std::strerror(err) + ")";
}

RootFs::RootFs(std::string root)
    : m_root(std::move(root))
{
    if (m_root.empty())
        m_root = "/";
    m_rootFd = ::open(m_root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (m_rootFd < 0)
        m_rootErrno = errno;
}

RootFs::~RootFs()
{
    if (m_rootFd >= 0)
        ::close(m_rootFd);
}

std::string RootFs::shown(std::string_view path) const
{
    if (isRealRoot())
        return std::string(path);
    std::string base = m_root;
    while (base.size() > 1 && base.back() == '/')
        base.pop_back();
    return base + std::string(path);
}

int RootFs::openBeneath(std::string_view path, int flags) const
{
    if (m_rootFd < 0)
        return -m_rootErrno;
    open_how how{};
    how.flags = uint64_t(flags | O_CLOEXEC);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    const std::string rel(relative(path));
    const long fd = ::syscall(SYS_openat2, m_rootFd, rel.c_str(), &how, sizeof how);
    return fd < 0 ? -errno : int(fd);
}

int RootFs::openFile(std::string_view path, int flags) const
{
    return openBeneath(path, flags);
}

Expected<std::string> RootFs::readText(std::string_view path, size_t limit) const
{
    const Fd fd(openBeneath(path, O_RDONLY | O_NOCTTY));
    if (fd.get() < 0)
        return failure(errorKindOf(-fd.get()), shown(path) + ": " + errnoText(-fd.get()));
    std::string text;
    char buf[4096];
    while (text.size() < limit) {
        const ssize_t n = ::read(fd.get(), buf, std::min(sizeof buf, limit - text.size()));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return failure(errorKindOf(errno), shown(path) + ": read: " + errnoText(errno));
        if (n == 0)
            break;
        text.append(buf, size_t(n));
    }
    return text;
}

Expected<std::string> RootFs::readLine(std::string_view path) const
{
    Expected<std::string> text = readText(path);
    if (!text)
        return text;
    std::string& s = *text;
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t'))
        s.pop_back();
    return text;
}

bool RootFs::exists(std::string_view path) const
{
    const Fd fd(openBeneath(path, O_PATH));
    return fd.get() >= 0;
}

bool RootFs::isDirectory(std::string_view path) const
{
    const Fd fd(openBeneath(path, O_PATH | O_DIRECTORY));
    return fd.get() >= 0;
}

std::vector<std::string> RootFs::list(std::string_view path) const
{
    std::vector<std::string> names;
    const int fd = openBeneath(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return names;
    DIR* dir = ::fdopendir(fd); // owns fd from here
    if (!dir) {
        ::close(fd);
        return names;
    }
    while (const dirent* e = ::readdir(dir)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..")
            names.push_back(name);
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
}

int RootFs::writeText(std::string_view path, std::string_view text)
{
    // O_TRUNC as a shell's `echo v > file` has it: /proc, /sys and cgroup files take it and ignore it, and a regular
    // file (a test's fake tree) does not keep the tail of a longer old value.
    const Fd fd(openBeneath(path, O_WRONLY | O_TRUNC | O_NOCTTY));
    if (fd.get() < 0)
        return -fd.get();
    // /proc and /sys parse one write() as one value: a short write would be a different value, not half of one.
    const ssize_t n = ::write(fd.get(), text.data(), text.size());
    if (n < 0)
        return errno;
    return size_t(n) == text.size() ? 0 : EIO;
}

int RootFs::makeDirectory(std::string_view path)
{
    const auto [parent, name] = splitLast(path);
    const Fd dir(openBeneath(parent, O_PATH | O_DIRECTORY));
    if (dir.get() < 0)
        return -dir.get();
    return ::mkdirat(dir.get(), name.c_str(), 0755) == 0 ? 0 : errno;
}

int RootFs::removeDirectory(std::string_view path)
{
    const auto [parent, name] = splitLast(path);
    const Fd dir(openBeneath(parent, O_PATH | O_DIRECTORY));
    if (dir.get() < 0)
        return -dir.get();
    return ::unlinkat(dir.get(), name.c_str(), AT_REMOVEDIR) == 0 ? 0 : errno;
}

int RootFs::mountDebugfs(std::string_view path)
{
    // Mounted through the descriptor of the directory, opened beneath the root without links: the mount lands on
    // the directory that was checked, not on whatever a link swapped in meanwhile.
    const Fd dir(openBeneath(path, O_PATH | O_DIRECTORY));
    if (dir.get() < 0)
        return -dir.get();
    const std::string viaFd = "/proc/self/fd/" + std::to_string(dir.get());
    return ::mount("debugfs", viaFd.c_str(), "debugfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0 ? 0 : errno;
}

int RootFs::unmount(std::string_view path)
{
    if (!isDebugfsMount(path))
        return EINVAL;
    return ::umount2(shown(path).c_str(), UMOUNT_NOFOLLOW) == 0 ? 0 : errno;
}

bool RootFs::isDebugfsMount(std::string_view path) const
{
    const Fd dir(openBeneath(path, O_PATH | O_DIRECTORY));
    struct statfs st {};
    return dir.get() >= 0 && ::fstatfs(dir.get(), &st) == 0 && st.f_type == DEBUGFS_MAGIC;
}

} // namespace rtscope::doctor
