#pragma once
/// @file A JSON object's fields listed once: a table (a std::tuple of field descriptions) that both its writer
/// (tableToJson) and its reader (readTable) walk. The table gives the keys rejectUnknown() accepts, the reading order
/// (and so the order of the problems said), each key's member and how it travels. The writer's key order does not
/// matter: nlohmann::json keeps an object's keys sorted.
///
/// A field's access is a member pointer (&LatencyConfig::priority) or a function of the object that returns a
/// reference to the value (jsonNested(&DeadlineConfig::runaway, &DeadlineParams::runtimeNs) for c.runaway.runtimeNs):
/// std::invoke calls either.
#include "engine/util/json_fields.h"

#include <array>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace rtscope {

/// @brief A value that travels as itself, read by its type: an integer, a boolean, a number or a string.
template <class Access> struct JsonValueField {
    const char* key;
    Access access;
};

/// @brief An enum that travels as a name: @p name writes it, @p parse reads it, @p choices (a string, or a function
/// that returns one) is listed when a name is refused.
template <class Access, class Name, class Parse, class Choices> struct JsonNameField {
    const char* key;
    Access access;
    Name name;
    Parse parse;
    Choices choices;
};

/// @brief A list of integers, each in lo … hi; @p phrase words any problem with it ("must be an array of CPU
/// numbers").
template <class Access, class T> struct JsonIntegerListField {
    const char* key;
    Access access;
    const char* phrase;
    T lo;
    T hi;
};

/// @brief A field of its own: @p read(JsonFields&, object&) and @p write(nlohmann::json&, const object&).
template <class Read, class Write> struct JsonCustomField {
    const char* key;
    Read read;
    Write write;
};

/// @brief The access to a member of a member: object.*outer.*inner.
template <class Outer, class Inner> struct JsonNestedMember {
    Outer outer;
    Inner inner;
    constexpr auto& operator()(auto& object) const { return object.*outer.*inner; }
};

template <class Outer, class Inner> constexpr JsonNestedMember<Outer, Inner> jsonNested(Outer outer, Inner inner)
{
    return {outer, inner};
}

template <class Access> constexpr JsonValueField<Access> jsonValue(const char* key, Access access)
{
    return {key, access};
}

template <class Access, class Name, class Parse, class Choices>
constexpr JsonNameField<Access, Name, Parse, Choices> jsonName(const char* key, Access access, Name name, Parse parse,
                                                               Choices choices)
{
    return {key, access, name, parse, choices};
}

template <class T, class Access>
constexpr JsonIntegerListField<Access, T> jsonIntegerList(const char* key, Access access, const char* phrase,
                                                          T lo = std::numeric_limits<T>::min(),
                                                          T hi = std::numeric_limits<T>::max())
{
    return {key, access, phrase, lo, hi};
}

template <class Read, class Write>
constexpr JsonCustomField<Read, Write> jsonCustom(const char* key, Read read, Write write)
{
    return {key, read, write};
}

namespace json_table_detail {

template <class Access> void write(nlohmann::json& j, const auto& object, const JsonValueField<Access>& d)
{
    j[d.key] = std::invoke(d.access, object);
}

template <class Access, class Name, class Parse, class Choices>
void write(nlohmann::json& j, const auto& object, const JsonNameField<Access, Name, Parse, Choices>& d)
{
    j[d.key] = d.name(std::invoke(d.access, object));
}

template <class Access, class T>
void write(nlohmann::json& j, const auto& object, const JsonIntegerListField<Access, T>& d)
{
    j[d.key] = std::invoke(d.access, object);
}

template <class Read, class Write>
void write(nlohmann::json& j, const auto& object, const JsonCustomField<Read, Write>& d)
{
    d.write(j, object);
}

template <class Access> void read(JsonFields& f, auto& object, const JsonValueField<Access>& d)
{
    auto& dst = std::invoke(d.access, object);
    using T = std::remove_cvref_t<decltype(dst)>;
    if constexpr (std::is_same_v<T, bool>)
        f.boolean(d.key, dst);
    else if constexpr (std::is_integral_v<T>)
        f.integer(d.key, dst);
    else if constexpr (std::is_same_v<T, double>)
        f.number(d.key, dst);
    else
        f.string(d.key, dst);
}

template <class Access, class Name, class Parse, class Choices>
void read(JsonFields& f, auto& object, const JsonNameField<Access, Name, Parse, Choices>& d)
{
    if constexpr (std::is_invocable_v<Choices>)
        f.name(d.key, std::invoke(d.access, object), d.parse, d.choices());
    else
        f.name(d.key, std::invoke(d.access, object), d.parse, d.choices);
}

template <class Access, class T> void read(JsonFields& f, auto& object, const JsonIntegerListField<Access, T>& d)
{
    f.integerList({d.key, Presence::Optional, d.phrase}, std::invoke(d.access, object), IntegerListRule<T>(d.lo, d.hi));
}

template <class Read, class Write> void read(JsonFields& f, auto& object, const JsonCustomField<Read, Write>& d)
{
    d.read(f, object);
}

} // namespace json_table_detail

/// @brief The object's fields as JSON, each written as its table says.
template <class Object, class... Field>
nlohmann::json tableToJson(const Object& object, const std::tuple<Field...>& table)
{
    nlohmann::json j = nlohmann::json::object();
    std::apply([&](const auto&... field) { (json_table_detail::write(j, object, field), ...); }, table);
    return j;
}

/// @brief The keys the table lists, for JsonFields::rejectUnknown().
template <class... Field> std::array<std::string_view, sizeof...(Field)> tableKeys(const std::tuple<Field...>& table)
{
    return std::apply([](const auto&... field) { return std::array<std::string_view, sizeof...(Field)>{field.key...}; },
                      table);
}

/// @brief Reads every field of the table, in its order, into @p object.
template <class Object, class... Field> void readTable(JsonFields& f, Object& object, const std::tuple<Field...>& table)
{
    std::apply([&](const auto&... field) { (json_table_detail::read(f, object, field), ...); }, table);
}

} // namespace rtscope
