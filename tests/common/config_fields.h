#pragma once
// The fields of a config that a "this control reaches that field" table names, each read as a number, and the check
// such a row makes: the named field holds the expected value, every other field is as it was.
#include <QString>
#include <QStringList>
#include <QtTest>

#include <functional>
#include <initializer_list>
#include <vector>

namespace rtscope::test {

/// A config's fields by name, in order: {"periodNs", &DriftConfig::periodNs} reads a member as a number (an enum by
/// its value, a bool as 0 or 1); {"methods", [](const DriftConfig& c) { return mask(c.methods); }} reads what is
/// not a number.
template <class Config> class ConfigFields {
public:
    using Reader = std::function<qlonglong(const Config&)>;

    struct Field {
        template <class T>
        Field(const char* name, T Config::*member)
            : name(name)
            , read([member](const Config& c) { return qlonglong(c.*member); })
        {}
        Field(const char* name, Reader read)
            : name(name)
            , read(std::move(read))
        {}

        QString name;
        Reader read;
    };

    ConfigFields(std::initializer_list<Field> fields)
        : m_fields(fields)
    {}

    /// The field @p name of @p c; a name this config does not have is a mistake in the test's table.
    qlonglong of(const Config& c, const QString& name) const
    {
        for (const Field& f : m_fields)
            if (f.name == name)
                return f.read(c);
        qFatal("unknown field %s", qPrintable(name));
    }

    QStringList names() const
    {
        QStringList names;
        for (const Field& f : m_fields)
            names << f.name;
        return names;
    }

private:
    std::vector<Field> m_fields;
};

/// @p c, read back after one control changed @p start: @p expected in @p field, every other of @p fields as in
/// @p start (a policy may bring its own priority).
template <class Config>
void checkOnlyFieldChanged(const Config& c, const Config& start, const QString& field, qlonglong expected,
                           const ConfigFields<Config>& fields)
{
    QCOMPARE(fields.of(c, field), expected);
    for (const QString& other : fields.names())
        if (other != field && !(field == "policy" && other == "priority"))
            QCOMPARE(fields.of(c, other), fields.of(start, other));
}

} // namespace rtscope::test
