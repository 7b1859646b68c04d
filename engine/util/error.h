#pragma once
/// @file The engine's error value: a kind (mapped to CLI exit codes) and a human sentence.
#include <string>
#include <vector>

namespace rtscope {

enum class ErrorKind {
    None,
    InvalidConfig, ///< a value out of range: CLI exit 2
    Permission,    ///< missing privilege (RT priority, memlock): CLI exit 3
    Unavailable,   ///< CPU offline/not allowed, device missing
    System,        ///< any other failing syscall
    Interrupted,   ///< a stop request arrived while it started: what had started was stopped again
};

/// [[nodiscard]]: a call that returns an Error must handle it, or say why it may be ignored (a (void) cast with a
/// comment).
struct [[nodiscard]] Error {
    ErrorKind kind = ErrorKind::None;
    std::string message;

    explicit operator bool() const { return kind != ErrorKind::None; }
    static Error none() { return {}; }
};

/// @brief The problems a validate() returned, one per line: the message of an InvalidConfig error.
inline std::string joinErrors(const std::vector<std::string>& errors)
{
    std::string out;
    for (const auto& e : errors)
        out += (out.empty() ? "" : "\n") + e;
    return out;
}

} // namespace rtscope
