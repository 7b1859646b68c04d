#include "engine/remote/agent_auth.h"

#include "engine/remote/agent_protocol.h"
#include "engine/util/printable.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rtscope {

namespace {

bool agentTokenShape(std::string_view token)
{
    return token.size() == kAgentTokenHexChars && token.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

Error agentTokenFileError(const std::string& path, const std::string& why)
{
    return {ErrorKind::InvalidConfig, "token file '" + printable(path) + "': " + why};
}

} // namespace

Error tryMakeAgentToken(std::string& token)
{
    unsigned char bytes[kAgentTokenHexChars / 2];
    size_t got = 0;
    while (got < sizeof bytes) {
        const ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return {ErrorKind::System, std::string("cannot read random bytes for the token: ") + std::strerror(errno)};
        got += size_t(n);
    }
    static constexpr char kHex[] = "0123456789abcdef";
    token.clear();
    for (unsigned char b : bytes) {
        token += kHex[b >> 4];
        token += kHex[b & 0xf];
    }
    return {};
}

Error tryWriteAgentTokenFile(const std::string& path, const std::string& token)
{
    // O_EXCL makes open fail on any existing name, a symbolic link included (open(2)), so a file planted there in
    // advance is never written through; O_NOFOLLOW says the same for the last component explicitly.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return {errno == EEXIST ? ErrorKind::InvalidConfig : ErrorKind::System,
                "cannot create the token file '" + printable(path) + "': " + std::strerror(errno) +
                    (errno == EEXIST ? " (the agent writes a new file each start: remove it or name another)" : "")};
    // The mode asked for passes through the umask; make sure it is exactly 0600 before the secret goes in.
    const std::string text = token + "\n";
    const bool ok = ::fchmod(fd, 0600) == 0 && ::write(fd, text.data(), text.size()) == ssize_t(text.size());
    const int err = errno;
    if (::close(fd) != 0 || !ok) {
        ::unlink(path.c_str());
        return {ErrorKind::System, "cannot write the token file '" + printable(path) + "': " + std::strerror(err)};
    }
    return {};
}

Error tryReadAgentTokenFile(const std::string& path, std::string& token)
{
    // O_NONBLOCK: a FIFO named here must not hang the controller in open(); it is refused below as not regular.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return agentTokenFileError(path, std::strerror(errno));
    struct stat st {};
    std::string text(kAgentTokenHexChars + 64, '\0');
    ssize_t n = -1;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        n = ::read(fd, text.data(), text.size());
    const bool regular = S_ISREG(st.st_mode);
    ::close(fd);
    if (!regular)
        return agentTokenFileError(path, "not a regular file");
    if (n < 0)
        return agentTokenFileError(path, std::strerror(errno));
    text.resize(size_t(n));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
        text.pop_back();
    if (!agentTokenShape(text))
        return agentTokenFileError(path, "does not hold an agent token (" + std::to_string(kAgentTokenHexChars) +
                                             " hex characters, as the agent writes it)");
    token = text;
    return {};
}

bool agentTokenMatches(std::string_view given, std::string_view expected)
{
    // Every byte of the expected token is compared whatever the given one holds: the time says nothing of how
    // much of a guess was right.
    unsigned diff = given.size() == expected.size() ? 0u : 1u;
    for (size_t i = 0; i < expected.size(); ++i)
        diff |= unsigned(uint8_t(expected[i]) ^ uint8_t(i < given.size() ? given[i] : 0));
    return diff == 0;
}

std::string agentHelloRefusal(const nlohmann::json& hello, const std::string& token)
{
    if (std::string mismatch = agentProtocolMismatch(hello, "controller"); !mismatch.empty())
        return mismatch;
    if (token.empty())
        return {};
    const auto it = hello.find("token");
    if (it == hello.end() || !it->is_string())
        return "authentication failed: this agent listens on TCP and needs its token in the controller's hello "
               "(rtscope latency --target-token FILE, the file the agent printed at start)";
    if (!agentTokenMatches(it->get_ref<const std::string&>(), token))
        return "authentication failed: the controller's token is not this agent's (each start of the agent makes "
               "a new one; give the file it printed)";
    return {};
}

std::string agentPeerCredentialRefusal(int fd, uid_t agentUid)
{
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred)
        return std::string("authentication failed: the controller's credentials cannot be read: ") +
               std::strerror(errno);
    if (cred.uid == agentUid || cred.uid == 0)
        return {};
    return "authentication failed: this agent serves uid " + std::to_string(agentUid) + " and root only; uid " +
           std::to_string(cred.uid) + " is refused";
}

} // namespace rtscope
