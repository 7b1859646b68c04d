#pragma once
// What a test's _data() function writes the same way everywhere: a table's columns in one call, and a table of a
// single column, one (row name, value) pair per row.
#include <QTest>

#include <initializer_list>
#include <utility>

namespace rtscope::test {

/// One QTest column per name, of the types in the same order: addColumns<QString, int>("name", "count") adds the
/// QString column "name", then the int column "count".
template <class... Types, class... Names>
requires(sizeof...(Types) == sizeof...(Names)) void addColumns(const Names&... names)
{
    (QTest::addColumn<Types>(names), ...);
}

/// A table of the one column @p column: a row named `first` holding `second` per pair of @p rows, in order.
template <class T> void addRows(const char* column, std::initializer_list<std::pair<const char*, T>> rows)
{
    QTest::addColumn<T>(column);
    for (const auto& [name, value] : rows)
        QTest::newRow(name) << value;
}

} // namespace rtscope::test
