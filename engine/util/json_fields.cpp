#include "engine/util/json_fields.h"

#include <algorithm>

namespace rtscope {

namespace {

// What an absent nested object reads as: no fields.
const nlohmann::json& absentJsonObject()
{
    static const nlohmann::json none;
    return none;
}

} // namespace

const JsonWording& JsonWording::sentences()
{
    static const JsonWording w{" ",
                               "is missing",
                               "must be a JSON object",
                               "must be an integer",
                               "is out of range",
                               "must not be negative",
                               "must be true or false",
                               "must be a number",
                               "must be a string",
                               "must be a list",
                               "must be one of"};
    return w;
}

const JsonWording& JsonWording::labels()
{
    static const JsonWording w{": ",
                               "missing",
                               "expected an object",
                               "expected an integer",
                               "out of range",
                               "out of range",
                               "expected true or false",
                               "expected a number",
                               "expected a string",
                               "expected an array",
                               "expected one of"};
    return w;
}

JsonFields::JsonFields(const nlohmann::json& object, std::vector<std::string>& problems, std::string_view subject,
                       const JsonWording& wording, std::string path)
    : JsonFields(Nested{}, object, problems, wording, std::move(path))
{
    if (m_ok)
        return;
    const std::string name = subject.empty() ? m_path : std::string(subject);
    add(name.empty() ? std::string(wording.notObject) : name + wording.separator + wording.notObject);
}

JsonFields::JsonFields(Nested, const nlohmann::json& object, std::vector<std::string>& problems,
                       const JsonWording& wording, std::string path)
    : m_j(&object)
    , m_problems(&problems)
    , m_wording(&wording)
    , m_path(std::move(path))
    , m_ok(object.is_object())
{}

std::string JsonFields::pathOf(std::string_view key) const
{
    return m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
}

std::string JsonFields::itemPath(std::string_view key, size_t index) const
{
    return pathOf(key) + "[" + std::to_string(index) + "]";
}

void JsonFields::rejectUnknown(std::span<const std::string_view> known)
{
    if (!m_ok)
        return;
    for (const auto& item : m_j->items())
        if (std::find(known.begin(), known.end(), item.key()) == known.end())
            add((m_path.empty() ? std::string() : m_path + ": ") + "unknown field '" + item.key() + "'");
}

void JsonFields::report(std::string_view key, std::string_view phrase)
{
    add(pathOf(key) + m_wording->separator + std::string(phrase));
}

void JsonFields::problem(const JsonField& f, std::string_view phrase)
{
    report(f.key, f.phrase.empty() ? phrase : std::string_view(f.phrase));
}

const nlohmann::json* JsonFields::find(const JsonField& f)
{
    if (!m_ok)
        return nullptr;
    const auto it = m_j->find(std::string(f.key)); // nlohmann/json 3.10 looks keys up as std::string only
    if (it == m_j->end()) {
        if (f.presence == Presence::Required)
            problem(f, m_wording->missing);
        return nullptr;
    }
    return &*it;
}

const nlohmann::json* JsonFields::findOfType(const JsonField& f, bool (nlohmann::json::*isType)() const noexcept,
                                             const char* phrase)
{
    const nlohmann::json* v = find(f);
    if (v && !(v->*isType)()) {
        problem(f, phrase);
        return nullptr;
    }
    return v;
}

bool JsonFields::boolean(const JsonField& f, bool& dst)
{
    const nlohmann::json* v = findOfType(f, &nlohmann::json::is_boolean, m_wording->notBoolean);
    if (!v)
        return false;
    dst = v->get<bool>();
    return true;
}

bool JsonFields::number(const JsonField& f, double& dst, double lo, double hi)
{
    const nlohmann::json* v = findOfType(f, &nlohmann::json::is_number, m_wording->notNumber);
    if (!v)
        return false;
    const auto x = v->get<double>();
    if (!(x >= lo && x <= hi)) {
        problem(f, m_wording->outOfRange);
        return false;
    }
    dst = x;
    return true;
}

bool JsonFields::string(const JsonField& f, std::string& dst)
{
    const nlohmann::json* v = findOfType(f, &nlohmann::json::is_string, m_wording->notString);
    if (!v)
        return false;
    dst = v->get<std::string>();
    return true;
}

JsonFields JsonFields::object(const JsonField& f)
{
    const nlohmann::json* v = find(f);
    if (!v)
        return JsonFields(Nested{}, absentJsonObject(), *m_problems, *m_wording, pathOf(f.key));
    JsonFields nested(Nested{}, *v, *m_problems, *m_wording, pathOf(f.key));
    if (!nested.ok())
        problem(f, m_wording->notObject);
    return nested;
}

JsonFields JsonFields::element(std::string_view key, size_t index)
{
    const nlohmann::json* list = find(key);
    const std::string path = itemPath(key, index);
    if (!list || !list->is_array() || index >= list->size())
        return JsonFields(Nested{}, absentJsonObject(), *m_problems, *m_wording, path);
    JsonFields nested(Nested{}, (*list)[index], *m_problems, *m_wording, path);
    if (!nested.ok())
        add(path + m_wording->separator + m_wording->notObject);
    return nested;
}

} // namespace rtscope
