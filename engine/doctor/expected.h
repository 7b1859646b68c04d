#pragma once
/// @file A value or the Error that says why there is none: what the doctor's readers and factories return (C++20 has
/// no std::expected; GCC 12 ships it only for C++23).
#include "engine/util/error.h"

#include <optional>
#include <utility>

namespace rtscope::doctor {

/// @brief Either a T or an Error. [[nodiscard]]: an ignored result is an ignored error.
template <class T> class [[nodiscard]] Expected {
public:
    Expected(T value)
        : m_value(std::move(value))
    {}
    Expected(Error error)
        : m_error(std::move(error))
    {}

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    /// @brief The value; only when ok().
    T& value() & { return *m_value; }
    const T& value() const& { return *m_value; }
    T&& value() && { return std::move(*m_value); }
    T& operator*() & { return *m_value; }
    const T& operator*() const& { return *m_value; }
    T* operator->() { return &*m_value; }
    const T* operator->() const { return &*m_value; }
    /// @brief Why there is no value; Error::none() when ok().
    const Error& error() const { return m_error; }

private:
    std::optional<T> m_value;
    Error m_error;
};

/// @brief An Error of @p kind with @p message: the one-line form the doctor's code builds its refusals with.
inline Error failure(ErrorKind kind, std::string message)
{
    return Error{kind, std::move(message)};
}

} // namespace rtscope::doctor
