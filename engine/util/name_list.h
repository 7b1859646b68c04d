#pragma once
/// @file A list of choices written out for a help text or a sentence, from the table that defines them: "abs, rel,
/// busy" or "abs, rel or busy". One table per kind of name (waiters, policies, methods), one list made from it, and
/// the lookups in such a table (a kind's name, the kind a name names).
#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace rtscope {

/// @brief The names @p name gives the items of @p items, joined by ", " and, before the last, by @p lastJoin.
template <class Range, class Name>
std::string nameList(const Range& items, Name&& name, std::string_view lastJoin = ", ")
{
    std::string list;
    const size_t n = std::size(items);
    size_t i = 0;
    for (const auto& item : items) {
        if (i > 0)
            list += i + 1 == n ? lastJoin : std::string_view(", ");
        list += name(item);
        ++i;
    }
    return list;
}

/// @brief The first row of @p rows whose member @p key equals @p value; nullptr when none does.
template <class Row, size_t N, class Key, class Value>
constexpr const Row* findRow(const Row (&rows)[N], Key Row::*key, const Value& value)
{
    for (const Row& row : rows)
        if (row.*key == value)
            return &row;
    return nullptr;
}

/// @brief The member @p field of the first row whose member @p key equals @p value; @p none when no row does.
template <class Row, size_t N, class Key, class Value, class Field>
constexpr Field rowField(const Row (&rows)[N], Key Row::*key, const Value& value, Field Row::*field,
                         std::type_identity_t<Field> none)
{
    const Row* row = findRow(rows, key, value);
    return row ? row->*field : none;
}

/// @brief A row of an enum's table of names: the value, its short name (the one written and parsed) and its label
/// (the words for people).
template <class E> struct NamedValue {
    E value;
    const char* name;
    const char* label;
};

/// @brief @p value's short name in @p rows; @p none when no row has it.
template <class E, size_t N>
constexpr const char* nameOf(const NamedValue<E> (&rows)[N], E value, const char* none = "?")
{
    return rowField(rows, &NamedValue<E>::value, value, &NamedValue<E>::name, none);
}

/// @brief @p value's label in @p rows; @p none when no row has it.
template <class E, size_t N>
constexpr const char* labelOf(const NamedValue<E> (&rows)[N], E value, const char* none = "?")
{
    return rowField(rows, &NamedValue<E>::value, value, &NamedValue<E>::label, none);
}

/// @brief @p value's name in @p names, which names every value of its enum in declaration order, from the first
/// (0) to @p Last; "?" for a value past them. The count is checked when it compiles: a value added to the enum must
/// be named too.
template <auto Last, size_t N> constexpr const char* enumName(decltype(Last) value, const char* const (&names)[N])
{
    static_assert(size_t(Last) + 1 == N, "one name for every value of the enum, in its order");
    const auto i = size_t(value);
    return i < N ? names[i] : "?";
}

/// @brief The value whose short name is @p name exactly; nullopt when none is.
template <class E, size_t N, class Name>
constexpr std::optional<E> valueNamed(const NamedValue<E> (&rows)[N], const Name& name)
{
    if (const NamedValue<E>* row = findRow(rows, &NamedValue<E>::name, name))
        return row->value;
    return std::nullopt;
}

} // namespace rtscope
