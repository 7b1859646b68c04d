#pragma once
// Helpers shared by the lock lab's two configs (contention and inversion): reading typed JSON fields with
// errors that name the field, and the CPU rules of real-time threads. Internal to engine/experiments.
#include "engine/locks/lock.h"
#include "engine/rt/cpu_topology.h"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace rtscope::locklab {

/// Reads fields of one JSON object, collecting one sentence per problem.
class JsonFields {
public:
    JsonFields(const nlohmann::json& j, const char* what, std::vector<std::string>& errors)
        : m_j(j)
        , m_errors(errors)
    {
        m_ok = j.is_object();
        if (!m_ok)
            errors.push_back(std::string(what) + " must be a JSON object");
    }
    bool ok() const { return m_ok; }

    void rejectUnknown(std::initializer_list<const char*> known)
    {
        if (!m_ok)
            return;
        for (const auto& [key, value] : m_j.items()) {
            bool found = false;
            for (const char* k : known)
                found = found || key == k;
            if (!found)
                m_errors.push_back("unknown field '" + key + "'");
        }
    }

    template <class T> void integer(const char* key, T& dst)
    {
        if (!m_ok || !m_j.contains(key))
            return;
        const auto& v = m_j.at(key);
        if (!v.is_number_integer()) {
            m_errors.push_back(std::string(key) + " must be an integer");
            return;
        }
        if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
            m_errors.push_back(std::string(key) + " is out of range");
            return;
        }
        const int64_t x = v.get<int64_t>();
        if (x < int64_t(std::numeric_limits<T>::min()) || x > int64_t(std::numeric_limits<T>::max()))
            m_errors.push_back(std::string(key) + " is out of range");
        else
            dst = T(x);
    }

    void boolean(const char* key, bool& dst)
    {
        if (!m_ok || !m_j.contains(key))
            return;
        if (!m_j.at(key).is_boolean())
            m_errors.push_back(std::string(key) + " must be true or false");
        else
            dst = m_j.at(key).get<bool>();
    }

    /// A string field parsed by @p parse (returning an optional); @p allowed names the accepted values.
    template <class T, class Parse> void named(const char* key, T& dst, Parse parse, const char* allowed)
    {
        if (!m_ok || !m_j.contains(key))
            return;
        const auto& v = m_j.at(key);
        auto parsed = v.is_string() ? parse(v.get<std::string>()) : decltype(parse(std::string()))();
        if (!parsed)
            m_errors.push_back(std::string(key) + " must be one of " + allowed);
        else
            dst = *parsed;
    }

    const nlohmann::json& json() const { return m_j; }
    std::vector<std::string>& errors() { return m_errors; }

private:
    const nlohmann::json& m_j;
    std::vector<std::string>& m_errors;
    bool m_ok = false;
};

/// The CPU kept free of real-time lock-lab threads: the first usable CPU (CPU 0 on most machines), where the
/// UI, the collector and the watchdog run. -1 when nothing is usable.
inline int reservedCpu(const CpuTopology& cpus)
{
    for (int c : cpus.allowed)
        if (cpus.usable(c))
            return c;
    return -1;
}

/// Usable CPUs in ascending order.
inline std::vector<int> usableCpus(const CpuTopology& cpus)
{
    std::vector<int> out;
    for (int c : cpus.allowed)
        if (cpus.usable(c))
            out.push_back(c);
    return out;
}

} // namespace rtscope::locklab
