#pragma once
/// @file Minimal RFC 4180 CSV writing shared by every experiment's --csv output.
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>

namespace rtscope {

class CsvWriter {
public:
    /// @brief Starts a row with the header names.
    explicit CsvWriter(std::initializer_list<std::string_view> header) { row(header); }

    /// @brief Appends one row; fields containing a comma, quote or newline are quoted.
    template <class... Fields> void add(const Fields&... fields)
    {
        bool first = true;
        ((field(first, fields)), ...);
        m_out << '\n';
    }
    std::string str() const { return m_out.str(); }

private:
    void row(std::initializer_list<std::string_view> fields)
    {
        bool first = true;
        for (std::string_view f : fields)
            field(first, f);
        m_out << '\n';
    }
    void field(bool& first, std::string_view v)
    {
        if (!first)
            m_out << ',';
        first = false;
        if (v.find_first_of(",\"\n\r") == std::string_view::npos) {
            m_out << v;
            return;
        }
        m_out << '"';
        for (char c : v)
            m_out << (c == '"' ? "\"\"" : std::string(1, c));
        m_out << '"';
    }
    void field(bool& first, const std::string& v) { field(first, std::string_view(v)); }
    void field(bool& first, const char* v) { field(first, std::string_view(v)); }
    template <class T> void field(bool& first, const T& v)
    {
        if (!first)
            m_out << ',';
        first = false;
        m_out << v;
    }

    std::ostringstream m_out;
};

} // namespace rtscope
