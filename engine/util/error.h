#pragma once
/// @file The engine's error value: a kind (mapped to CLI exit codes) and a human sentence.
#include <string>

namespace rtscope {

enum class ErrorKind {
    None,
    InvalidConfig, ///< a value out of range: CLI exit 2
    Permission,    ///< missing privilege (RT priority, memlock): CLI exit 3
    Unavailable,   ///< CPU offline/not allowed, device missing
    System,        ///< any other failing syscall
};

struct Error {
    ErrorKind kind = ErrorKind::None;
    std::string message;

    explicit operator bool() const { return kind != ErrorKind::None; }
    static Error none() { return {}; }
};

} // namespace rtscope
