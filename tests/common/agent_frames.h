#pragma once
// Reading an agent's frames from a descriptor in the CLI tests that talk to `rtscope agent` directly.
#include "engine/remote/agent_protocol.h"
#include "engine/util/clock.h"

#include <cstdint>
#include <optional>
#include <poll.h>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace rtscope::test {

// Reads frames from @p fd until one of type @p want arrives (the others are collected in @p seen) or @p timeoutMs.
inline std::optional<AgentFrame> agentCliRead(int fd, AgentFrameDecoder& d, AgentFrameType want, int timeoutMs,
                                              std::vector<AgentFrame>* seen = nullptr)
{
    const int64_t deadline = nowNs() + int64_t(timeoutMs) * kNsPerMs;
    std::string buf(65536, '\0');
    for (;;) {
        AgentFrame f;
        std::string e;
        for (AgentFrameDecoder::Result r; (r = d.next(f, e)) != AgentFrameDecoder::Result::NeedMore;) {
            if (r != AgentFrameDecoder::Result::Frame)
                continue;
            if (f.type == want)
                return f;
            if (seen)
                seen->push_back(f);
        }
        const int64_t left = (deadline - nowNs()) / kNsPerMs;
        if (left <= 0)
            return std::nullopt;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, int(left)) <= 0)
            return std::nullopt;
        const ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n <= 0)
            return std::nullopt;
        d.feed(std::string_view(buf.data(), size_t(n)));
    }
}

} // namespace rtscope::test
