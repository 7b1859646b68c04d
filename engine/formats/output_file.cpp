#include "engine/formats/output_file.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <random>
#include <streambuf>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace rtscope {

namespace fs = std::filesystem;

void OutputPlan::addOutput(std::string name, std::string path)
{
    if (!path.empty())
        outputs.push_back({std::move(name), std::move(path)});
}

void OutputPlan::addInput(std::string name, std::string path)
{
    if (!path.empty())
        inputs.push_back({std::move(name), std::move(path)});
}

namespace {

std::string inQuotes(const std::string& path)
{
    return "'" + path + "'";
}

// The directory a file named @p path goes in ("." for a bare name).
std::string directoryOf(const std::string& path)
{
    const fs::path parent = fs::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

// What makes two paths the same file: device and inode when it exists, and its absolute path with ".", ".." and
// the symbolic links of the directories resolved (so "./x" and "d/../x" are "x" even before x exists).
struct FileIdentity {
    bool exists = false;
    dev_t dev = 0;
    ino_t ino = 0;
    std::string normal;

    explicit FileIdentity(const std::string& path)
    {
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0) {
            exists = true;
            dev = st.st_dev;
            ino = st.st_ino;
        }
        std::error_code ec;
        fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
        if (ec)
            p = fs::absolute(path, ec).lexically_normal();
        normal = p.string();
    }
    bool sameAs(const FileIdentity& o) const
    {
        return (exists && o.exists && dev == o.dev && ino == o.ino) || (!normal.empty() && normal == o.normal);
    }
};

// The filesystems of the kernel's: proc and sysfs refuse new files only when the run is over and the output is
// written; on the others a file, where it can be made at all, is kernel state rather than a result.
struct KernelFilesystem {
    unsigned long magic;
    const char* name;
};
constexpr unsigned long kConfigfsMagic = 0x62656570; // not in <linux/magic.h>
constexpr KernelFilesystem kKernelFilesystems[] = {
    {PROC_SUPER_MAGIC, "proc"},       {SYSFS_MAGIC, "sysfs"},         {DEBUGFS_MAGIC, "debugfs"},
    {TRACEFS_MAGIC, "tracefs"},       {CGROUP_SUPER_MAGIC, "cgroup"}, {CGROUP2_SUPER_MAGIC, "cgroup2"},
    {SECURITYFS_MAGIC, "securityfs"}, {SELINUX_MAGIC, "selinuxfs"},   {BPF_FS_MAGIC, "bpf"},
    {PSTOREFS_MAGIC, "pstore"},       {EFIVARFS_MAGIC, "efivarfs"},   {DEVPTS_SUPER_MAGIC, "devpts"},
    {BINFMTFS_MAGIC, "binfmt_misc"},  {NSFS_MAGIC, "nsfs"},           {kConfigfsMagic, "configfs"},
};

// The sentence for @p error met at @p at, a prefix of the directory @p dir (at == dir: the directory itself).
std::string directoryProblem(const std::string& dir, const std::string& at, int error)
{
    switch (error) {
    case ELOOP:
        return at == dir ? "the directory " + inQuotes(dir) +
                               " is a symbolic link; rtscope does not write through links, give the directory's "
                               "real path"
                         : "the directory " + inQuotes(dir) + " is reached through the symbolic link " + inQuotes(at) +
                               "; rtscope does not write through links, give the directory's real path";
    case ENOENT:
        return "the directory " + inQuotes(dir) + " does not exist; create it first";
    case ENOTDIR:
        return inQuotes(at) + " is not a directory";
    default:
        return "cannot use the directory " + inQuotes(dir) + ": " + std::strerror(error);
    }
}

// DirectoryResolve::Walk: each component opened relative to the one before with O_NOFOLLOW, so a link is met as a
// link (and named) wherever it is on the path.
int walkToDirectory(const std::string& dir, std::string& why)
{
    const bool absolute = !dir.empty() && dir.front() == '/';
    int fd = ::open(absolute ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    std::string walked = absolute ? "/" : "";
    const auto failed = [&](int error) {
        if (fd >= 0)
            ::close(fd);
        why = directoryProblem(dir, walked.empty() ? std::string(".") : walked, error);
        errno = error;
        return -1;
    };
    if (fd < 0)
        return failed(errno);
    for (const fs::path& part : fs::path(dir).relative_path()) {
        const std::string name = part.string();
        if (name.empty() || name == ".")
            continue;
        walked += (walked.empty() || walked.back() == '/' ? "" : "/") + name;
        // O_PATH|O_NOFOLLOW|O_DIRECTORY: a link as the component fails (ENOTDIR), which fstatat() then tells apart.
        const int next = ::openat(fd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            int error = errno;
            struct stat st {};
            if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
                error = ELOOP;
            return failed(error);
        }
        ::close(fd);
        fd = next;
    }
    // An O_PATH descriptor cannot be fsynced after a rename: the directory itself, through the one held.
    const int real = ::openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (real < 0)
        return failed(errno);
    ::close(fd);
    return real;
}

// Why @p out cannot be written, or empty.
std::string outputProblem(const NamedPath& out)
{
    const std::string& p = out.path;
    if (p.empty())
        return {};
    const std::string head = out.name + ": " + inQuotes(p);
    if (p.back() == '/')
        return head + " names a directory; give a file name";
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0) {
        if (S_ISLNK(st.st_mode))
            return head + " is a symbolic link; rtscope does not write through links, give the path of a regular file";
        if (S_ISDIR(st.st_mode))
            return head + " is a directory; give a file name";
        if (!S_ISREG(st.st_mode))
            return head + " is not a regular file; give the path of a regular file";
        if (::access(p.c_str(), W_OK) != 0)
            return head + " is not writable (" + std::strerror(errno) + ")";
    } else if (errno != ENOENT) {
        return out.name + ": cannot use " + inQuotes(p) + ": " + std::strerror(errno);
    }
    const std::string dir = directoryOf(p);
    std::string why;
    const int dirFd = openOutputDirectory(dir, why);
    if (dirFd < 0)
        return out.name + ": " + why;
    std::string problem;
    if (const char* kernel = kernelFilesystemOf(dirFd))
        problem = head + " is on " + kernel + ", a filesystem of the kernel's, not a disk; give a path on a disk";
    // The file is written under a temporary name in its directory and renamed: the directory must take new files.
    else if (::faccessat(dirFd, ".", W_OK | X_OK, 0) != 0)
        problem =
            out.name + ": cannot create files in the directory " + inQuotes(dir) + " (" + std::strerror(errno) + ")";
    ::close(dirFd);
    return problem;
}

} // namespace

int openOutputDirectory(const std::string& dir, std::string& why, DirectoryResolve how)
{
    if (how == DirectoryResolve::Kernel) {
        open_how request{};
        request.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
        request.resolve = RESOLVE_NO_SYMLINKS;
        const int fd = int(::syscall(SYS_openat2, AT_FDCWD, dir.c_str(), &request, sizeof request));
        if (fd >= 0)
            return fd;
    }
    // Without openat2 (ENOSYS: before Linux 5.6, or a seccomp filter that does not know it), and for the sentence
    // when it refused: the walk finds the same answer and names the component that is wrong.
    return walkToDirectory(dir, why);
}

const char* kernelFilesystemOf(int dirFd)
{
    struct statfs st {};
    if (::fstatfs(dirFd, &st) != 0)
        return nullptr;
    for (const KernelFilesystem& k : kKernelFilesystems)
        if (static_cast<unsigned long>(st.f_type) == k.magic)
            return k.name;
    return nullptr;
}

std::vector<std::string> checkOutputs(const OutputPlan& plan)
{
    std::vector<std::string> problems;
    for (const NamedPath& out : plan.outputs)
        if (std::string why = outputProblem(out); !why.empty())
            problems.push_back(std::move(why));
    std::vector<FileIdentity> inputs;
    for (const NamedPath& in : plan.inputs)
        inputs.emplace_back(in.path);
    std::vector<FileIdentity> outputs;
    for (size_t i = 0; i < plan.outputs.size(); ++i) {
        const NamedPath& out = plan.outputs[i];
        outputs.emplace_back(out.path);
        for (size_t k = 0; k < plan.inputs.size(); ++k)
            if (outputs[i].sameAs(inputs[k]))
                problems.push_back(out.name + ": " + inQuotes(out.path) + " is the same file as " +
                                   plan.inputs[k].name + " (" + inQuotes(plan.inputs[k].path) +
                                   "), which is read; rtscope never writes over what it reads");
        for (size_t k = 0; k < i; ++k)
            if (outputs[i].sameAs(outputs[k]))
                problems.push_back(out.name + ": " + inQuotes(out.path) + " is the same file as " +
                                   plan.outputs[k].name + " (" + inQuotes(plan.outputs[k].path) +
                                   "); give each output its own file");
    }
    return problems;
}

std::vector<std::string> checkOutput(const std::string& name, const std::string& path,
                                     const std::vector<NamedPath>& inputs)
{
    OutputPlan plan;
    plan.addOutput(name, path);
    plan.inputs = inputs;
    return checkOutputs(plan);
}

// ---------------------------------------------------------------------------------------------------------------

// The stream behind AtomicOutputFile::stream(): buffers and hands full buffers to write().
class AtomicOutputFile::Buffer final : public std::streambuf {
public:
    explicit Buffer(AtomicOutputFile& file)
        : m_file(file)
    {
        setp(m_bytes.data(), m_bytes.data() + m_bytes.size());
    }
    bool drain()
    {
        const auto n = size_t(pptr() - pbase());
        setp(m_bytes.data(), m_bytes.data() + m_bytes.size());
        return n == 0 || !m_file.write(std::string_view(m_bytes.data(), n));
    }

protected:
    int_type overflow(int_type ch) override
    {
        if (!drain())
            return traits_type::eof();
        if (!traits_type::eq_int_type(ch, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(ch);
            pbump(1);
        }
        return traits_type::not_eof(ch);
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    AtomicOutputFile& m_file;
    std::array<char, 64 * 1024> m_bytes{};
};

AtomicOutputFile::AtomicOutputFile() = default;

AtomicOutputFile::~AtomicOutputFile()
{
    discard();
}

Error AtomicOutputFile::fail(const std::string& what, int error)
{
    if (!m_error)
        m_error = {ErrorKind::System, what + " " + inQuotes(m_path) + ": " + std::strerror(error)};
    return m_error;
}

Error AtomicOutputFile::open(const std::string& path)
{
    discard();
    m_path = path;
    m_error = Error::none();
    const std::string name = fs::path(path).filename().string();
    if (name.empty() || name == "." || name == "..")
        return m_error = {ErrorKind::InvalidConfig, inQuotes(path) + " names a directory; give a file name"};
    std::string why;
    m_dirFd = openOutputDirectory(directoryOf(path), why);
    if (m_dirFd < 0)
        return m_error = {errno == ELOOP ? ErrorKind::InvalidConfig : ErrorKind::System,
                          "cannot write " + inQuotes(path) + ": " + why};
    m_name = name;
    struct stat st {};
    mode_t mode = 0644;
    if (::fstatat(m_dirFd, m_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(st.st_mode))
            return m_error = {ErrorKind::InvalidConfig,
                              inQuotes(path) + " is a symbolic link; rtscope does not write through links"};
        if (S_ISDIR(st.st_mode))
            return m_error = {ErrorKind::InvalidConfig, inQuotes(path) + " is a directory"};
        // A file that was private stays private when it is replaced.
        mode = st.st_mode & 0777;
    }
    static constexpr char kLetters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device seed;
    std::mt19937 random(seed());
    std::uniform_int_distribution<size_t> pick(0, sizeof kLetters - 2);
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string temporary = m_name + ".partial-";
        for (int i = 0; i < 6; ++i)
            temporary += kLetters[pick(random)];
        // O_EXCL|O_NOFOLLOW: a new file of ours, never one planted under the name (or a link's target).
        const int fd = ::openat(m_dirFd, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0) {
            m_fd = fd;
            m_temporaryName = temporary;
            m_temporary = (fs::path(directoryOf(path)) / temporary).string();
            m_size = 0;
            // The mode given to open() was cut by the umask; a replaced file's own mode is kept as it was.
            if (st.st_mode)
                ::fchmod(m_fd, mode);
            return Error::none();
        }
        if (errno != EEXIST)
            return fail("cannot write", errno);
    }
    return fail("cannot create a temporary file for", EEXIST);
}

Error AtomicOutputFile::write(std::string_view bytes)
{
    if (m_error)
        return m_error;
    if (m_fd < 0)
        return fail("cannot write", EBADF);
    while (!bytes.empty()) {
        const ssize_t n = ::write(m_fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail("cannot write", n < 0 ? errno : EIO);
        m_size += uint64_t(n);
        bytes.remove_prefix(size_t(n));
    }
    return Error::none();
}

std::ostream& AtomicOutputFile::stream()
{
    if (!m_stream) {
        m_buffer = std::make_unique<Buffer>(*this);
        m_stream = std::make_unique<std::ostream>(m_buffer.get());
    }
    return *m_stream;
}

Error AtomicOutputFile::rewind(uint64_t size)
{
    if (m_fd < 0)
        return fail("cannot write", EBADF);
    if (size > m_size)
        return fail("cannot cut", EINVAL);
    if (::ftruncate(m_fd, off_t(size)) != 0 || ::lseek(m_fd, off_t(size), SEEK_SET) < 0)
        return {ErrorKind::System, "cannot cut " + inQuotes(m_path) + ": " + std::strerror(errno)};
    m_size = size;
    m_error = Error::none();
    return Error::none();
}

Error AtomicOutputFile::sync()
{
    if (m_stream)
        m_stream->flush();
    if (m_error)
        return m_error;
    if (m_fd < 0)
        return fail("cannot write", EBADF);
    if (::fsync(m_fd) != 0)
        return fail("cannot write", errno);
    return Error::none();
}

Error AtomicOutputFile::commit()
{
    if (m_stream)
        m_stream->flush();
    Error e = m_error;
    if (!e && m_fd < 0)
        e = fail("cannot write", EBADF);
    if (!e && ::fsync(m_fd) != 0)
        e = fail("cannot write", errno);
    if (m_fd >= 0 && ::close(m_fd) != 0 && !e)
        e = fail("cannot write", errno);
    m_fd = -1;
    struct stat st {};
    if (!e && ::fstatat(m_dirFd, m_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        (S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode)))
        e = m_error = {ErrorKind::System, inQuotes(m_path) + " became a " +
                                              (S_ISLNK(st.st_mode) ? "symbolic link" : "directory") +
                                              " while it was written; it was left alone"};
    if (!e && ::renameat(m_dirFd, m_temporaryName.c_str(), m_dirFd, m_name.c_str()) != 0)
        e = fail("cannot write", errno);
    if (e) {
        discard();
        return e;
    }
    m_temporary.clear();
    m_temporaryName.clear();
    // The rename is only durable once the directory is.
    ::fsync(m_dirFd);
    discard();
    return Error::none();
}

void AtomicOutputFile::discard()
{
    m_stream.reset();
    m_buffer.reset();
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    if (!m_temporaryName.empty() && m_dirFd >= 0)
        ::unlinkat(m_dirFd, m_temporaryName.c_str(), 0);
    m_temporary.clear();
    m_temporaryName.clear();
    if (m_dirFd >= 0)
        ::close(m_dirFd);
    m_dirFd = -1;
}

Error writeFileAtomically(const std::string& path, std::string_view bytes)
{
    AtomicOutputFile file;
    if (Error e = file.open(path))
        return e;
    if (Error e = file.write(bytes))
        return e;
    return file.commit();
}

} // namespace rtscope
