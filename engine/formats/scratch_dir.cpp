#include "engine/formats/scratch_dir.h"

#include "engine/formats/output_file.h"
#include "engine/rt/system_threads.h"
#include "engine/util/input_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace rtscope {

namespace fs = std::filesystem;

std::optional<uint64_t> processStartTime(pid_t pid)
{
    std::string line, why;
    SystemThread t;
    if (pid <= 0 || !readRegularFile("/proc/" + std::to_string(pid) + "/stat", 4096, line, why) ||
        !parseProcStat(line, t))
        return std::nullopt;
    return uint64_t(t.startTime);
}

Error writeScratchOwner(const std::string& dir)
{
    const std::optional<uint64_t> started = processStartTime(::getpid());
    if (!started)
        return {ErrorKind::System, "cannot read this process's start time from /proc"};
    return writeFileAtomically((fs::path(dir) / kScratchOwnerFile).string(),
                               std::to_string(::getpid()) + " " + std::to_string(*started) + "\n");
}

namespace {

// Whether the owner file @p path names a process that is gone; false when it cannot be read or parsed.
bool ownerIsGone(const std::string& path)
{
    std::string text, why;
    if (!readRegularFile(path, 64, text, why))
        return false;
    std::istringstream in(text);
    long long pid = 0;
    unsigned long long start = 0;
    std::string rest;
    if (!(in >> pid >> start) || (in >> rest) || pid <= 0 || pid > std::numeric_limits<pid_t>::max())
        return false;
    const std::optional<uint64_t> now = processStartTime(pid_t(pid));
    return !now || *now != start;
}

uint64_t bytesUnder(const fs::path& dir)
{
    uint64_t bytes = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file(ec) && !it->is_symlink(ec))
            bytes += it->file_size(ec);
    return bytes;
}

} // namespace

ScratchCleanup removeStaleScratchDirs(const std::string& pattern)
{
    ScratchCleanup done;
    const fs::path p(pattern);
    std::string prefix = p.filename().string();
    while (!prefix.empty() && prefix.back() == 'X')
        prefix.pop_back();
    const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::error_code ec;
    for (auto it = fs::directory_iterator(parent, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const fs::path dir = it->path();
        if (dir.filename().string().rfind(prefix, 0) != 0)
            continue;
        // In a shared /tmp, a directory of another user's is theirs to clean, whoever runs this.
        struct stat st {};
        if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
            continue;
        if (!ownerIsGone((dir / kScratchOwnerFile).string()))
            continue;
        const uint64_t bytes = bytesUnder(dir);
        std::error_code removeError;
        if (fs::remove_all(dir, removeError) != static_cast<std::uintmax_t>(-1) && !removeError) {
            ++done.removed;
            done.bytes += bytes;
        }
    }
    return done;
}

ScratchDir::~ScratchDir()
{
    if (!m_path.empty()) {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
}

Error ScratchDir::create(const std::string& pattern)
{
    std::string path = pattern;
    if (!::mkdtemp(path.data()))
        return {ErrorKind::System, "cannot create a directory like '" + pattern + "': " + std::strerror(errno)};
    m_path = path;
    return writeScratchOwner(m_path);
}

} // namespace rtscope
