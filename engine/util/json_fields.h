#pragma once
/// @file Typed reading of the fields of one JSON object: the configs' xxxConfigFromJson() and the recording header
/// read through it. Every problem becomes one sentence that starts with the field's path ("cpus must be an array
/// of CPU numbers", "phases[1].hogs must be an integer", "start_ns: out of range"); problems are collected, not
/// thrown, and a field with a problem keeps its default. Range checks that need the whole config (and the CPUs of
/// this machine) stay with each config's validate().
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace rtscope {

/// @brief The phrases a reader words its problems with: "<path><separator><phrase>".
struct JsonWording {
    const char* separator;  ///< between the path and the phrase
    const char* missing;    ///< a required field is absent
    const char* notObject;  ///< the object itself, or a nested one, is something else
    const char* notInteger; ///< a float, a string, …
    const char* outOfRange; ///< an integer outside the field's range (or its type's)
    const char* negative;   ///< a negative number for an unsigned field
    const char* notBoolean;
    const char* notNumber;
    const char* notString;
    const char* notList;
    const char* oneOf; ///< a name that is not one of the choices, followed by them ("must be one of a, b")

    /// @brief "period_ns must be an integer", "dma_latency must be true or false": the configs' sentences.
    static const JsonWording& sentences();
    /// @brief "start_ns: expected an integer", "format: missing": the recording header's.
    static const JsonWording& labels();
};

/// @brief Whether a field may be absent (it then keeps its default).
enum class Presence { Optional, Required };

/// @brief A field to read: its key, whether it must be there, and the phrase for any problem with it when the
/// wording's is not specific enough ("must be an array of CPU numbers").
struct JsonField {
    JsonField(const char* key, Presence presence = Presence::Optional, std::string phrase = {})
        : key(key)
        , presence(presence)
        , phrase(std::move(phrase))
    {}
    JsonField(std::string_view key, Presence presence = Presence::Optional, std::string phrase = {})
        : key(key)
        , presence(presence)
        , phrase(std::move(phrase))
    {}

    std::string_view key;
    Presence presence = Presence::Optional;
    std::string phrase; ///< replaces the wording's phrase for every problem of this field; empty: the wording's
};

/// @brief The limits of a list of integers and its elements (a constructor, not designated initializers: GCC 12
/// warns about the members they leave out).
template <class T> struct IntegerListRule {
    IntegerListRule(T lo = std::numeric_limits<T>::min(), T hi = std::numeric_limits<T>::max(), size_t minSize = 0,
                    size_t maxSize = std::numeric_limits<size_t>::max(), std::string itemPhrase = {})
        : lo(lo)
        , hi(hi)
        , minSize(minSize)
        , maxSize(maxSize)
        , itemPhrase(std::move(itemPhrase))
    {}

    T lo; ///< every element in lo … hi
    T hi;
    size_t minSize; ///< elements in the list
    size_t maxSize;
    /// For an element that is no integer in lo … hi, after the list's path. Empty: the field's phrase if it has
    /// one, else the wording's sentence about that element ("cpus[2] is out of range").
    std::string itemPhrase;
};

/// @brief Reads the fields of one JSON object into typed values, collecting one sentence per problem.
///
/// Each reading function returns true when the field was there and read (the destination then holds its value),
/// false when it was absent or refused (the destination is untouched; a refusal, or a required field's absence,
/// is reported). Nested objects and list elements get their own path: "base.hogs", "phases[1].period_ns".
class JsonFields {
public:
    /// @param subject names the object in the sentence said when it is not an object ("latency config must be a
    /// JSON object"); empty: the path, or the phrase alone.
    /// @param path the object's own path, the prefix of every field's ("phases[1]"); empty for a top-level object.
    JsonFields(const nlohmann::json& object, std::vector<std::string>& problems, std::string_view subject = {},
               const JsonWording& wording = JsonWording::sentences(), std::string path = {});

    /// @brief Whether the value is an object (else that was reported, and every field reads as absent).
    bool ok() const { return m_ok; }
    const nlohmann::json& json() const { return *m_j; }
    const std::string& path() const { return m_path; }
    /// @brief "key" at the top level, "path.key" in a nested object.
    std::string pathOf(std::string_view key) const;
    /// @brief "key[index]" (with the object's path before it when nested).
    std::string itemPath(std::string_view key, size_t index) const;

    /// @brief One "unknown field 'x'" per key that is not in @p known ("path: unknown field 'x'" when nested).
    void rejectUnknown(std::initializer_list<std::string_view> known)
    {
        rejectUnknown(std::span<const std::string_view>(known.begin(), known.size()));
    }
    void rejectUnknown(std::span<const std::string_view> known);

    /// @brief Adds "<path of key><separator><phrase>".
    void report(std::string_view key, std::string_view phrase);
    /// @brief Adds a sentence as it is (one that names its path itself).
    void add(std::string sentence) { m_problems->push_back(std::move(sentence)); }

    /// @brief The field's value; nullptr when absent (reported when required) or when this is not an object.
    const nlohmann::json* find(const JsonField& f);

    /// @brief An integer in @p lo … @p hi (by default any value of T).
    template <class T>
    bool integer(const JsonField& f, T& dst, std::type_identity_t<T> lo = std::numeric_limits<T>::min(),
                 std::type_identity_t<T> hi = std::numeric_limits<T>::max())
    {
        const nlohmann::json* v = find(f);
        if (!v)
            return false;
        const std::optional<T> x = integerValue(*v, lo, hi, [&](const char* phrase) { problem(f, phrase); });
        if (x)
            dst = *x;
        return x.has_value();
    }
    bool boolean(const JsonField& f, bool& dst);
    /// @brief Any JSON number (integers too) in @p lo … @p hi.
    bool number(const JsonField& f, double& dst, double lo = -std::numeric_limits<double>::infinity(),
                double hi = std::numeric_limits<double>::infinity());
    bool string(const JsonField& f, std::string& dst);

    /// @brief A string that @p parse (a name → std::optional<T>) accepts; @p choices lists them for the sentence
    /// ("policy must be one of other, batch, idle, fifo, rr").
    template <class T, class Parse> bool name(const JsonField& f, T& dst, Parse parse, std::string_view choices)
    {
        const nlohmann::json* v = find(f);
        if (!v)
            return false;
        std::optional<T> parsed;
        if (v->is_string())
            parsed = parse(v->get<std::string>());
        if (!parsed) {
            problem(f, std::string(m_wording->oneOf) + " " + std::string(choices));
            return false;
        }
        dst = *parsed;
        return true;
    }

    /// @brief A list of integers, each in rule.lo … rule.hi, of rule.minSize … rule.maxSize elements. The first
    /// bad element is reported and leaves @p dst as it was.
    template <class T> bool integerList(const JsonField& f, std::vector<T>& dst, const IntegerListRule<T>& rule = {})
    {
        const nlohmann::json* v = find(f);
        if (!v)
            return false;
        if (!v->is_array() || v->size() < rule.minSize || v->size() > rule.maxSize) {
            problem(f, m_wording->notList);
            return false;
        }
        std::vector<T> parsed;
        parsed.reserve(v->size());
        for (size_t i = 0; i < v->size(); ++i) {
            bool bad = false;
            const std::optional<T> x = integerValue((*v)[i], rule.lo, rule.hi, [&](const char* phrase) {
                bad = true;
                if (!rule.itemPhrase.empty())
                    report(f.key, rule.itemPhrase);
                else if (!f.phrase.empty())
                    report(f.key, f.phrase);
                else
                    add(itemPath(f.key, i) + m_wording->separator + phrase);
            });
            if (bad)
                return false;
            parsed.push_back(*x);
        }
        dst = std::move(parsed);
        return true;
    }

    /// @brief Calls @p each(element, index) for every element of the list at @p f until it returns false; false
    /// when the field is absent or is not a list of @p minSize … @p maxSize elements (reported).
    template <class Each>
    bool list(const JsonField& f, Each each, size_t minSize = 0, size_t maxSize = std::numeric_limits<size_t>::max())
    {
        const nlohmann::json* v = find(f);
        if (!v)
            return false;
        if (!v->is_array() || v->size() < minSize || v->size() > maxSize) {
            problem(f, m_wording->notList);
            return false;
        }
        for (size_t i = 0; i < v->size(); ++i)
            if (!each((*v)[i], i))
                break;
        return true;
    }

    /// @brief A reader for the nested object at @p f, whose paths start with this one's ("base.hogs"); its ok() is
    /// false when the field is absent or no object (the latter reported).
    JsonFields object(const JsonField& f);
    /// @brief A reader for the object at element @p index of the list at @p key ("phases[1].period_ns").
    JsonFields element(std::string_view key, size_t index);

private:
    struct Nested {}; ///< object() and element(): the caller words "not an object" for the field
    JsonFields(Nested, const nlohmann::json& object, std::vector<std::string>& problems, const JsonWording& wording,
               std::string path);

    /// The field's own phrase if it has one, else @p phrase, after its path.
    void problem(const JsonField& f, std::string_view phrase);
    /// The field's value when it is there and @p isType says it has the right type; else nullptr, after @p phrase
    /// when it has another.
    const nlohmann::json* findOfType(const JsonField& f, bool (nlohmann::json::*isType)() const noexcept,
                                     const char* phrase);

    /// @p v as a T in @p lo … @p hi; else nullopt, after giving @p refuse the wording's phrase for what is wrong.
    template <class T, class Refuse>
    std::optional<T> integerValue(const nlohmann::json& v, T lo, T hi, Refuse refuse) const
    {
        static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "integer() reads integer types");
        if (!v.is_number_integer()) {
            refuse(m_wording->notInteger);
            return std::nullopt;
        }
        // The parser stores every non-negative integer as unsigned: read as int64_t, one above INT64_MAX would
        // wrap to a negative number.
        if (v.is_number_unsigned()) {
            const auto u = v.get<uint64_t>();
            if (std::cmp_less(u, lo) || std::cmp_greater(u, hi)) {
                refuse(m_wording->outOfRange);
                return std::nullopt;
            }
            return T(u);
        }
        const auto x = v.get<int64_t>();
        if (std::is_unsigned_v<T> && x < 0) {
            refuse(m_wording->negative);
            return std::nullopt;
        }
        if (std::cmp_less(x, lo) || std::cmp_greater(x, hi)) {
            refuse(m_wording->outOfRange);
            return std::nullopt;
        }
        return T(x);
    }

    const nlohmann::json* m_j;
    std::vector<std::string>* m_problems;
    const JsonWording* m_wording;
    std::string m_path;
    bool m_ok = false;
};

} // namespace rtscope
