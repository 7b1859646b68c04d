#pragma once
// What a test's _data() function writes the same way everywhere: a table's columns in one call, a table of a
// single column, one (row name, value) pair per row, and a table of several columns, one line per row.
#include <QTest>

#include <array>
#include <initializer_list>
#include <tuple>
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

/// A table of the columns @p columns, of the types in the same order, one row per tuple of @p rows: its name, then
/// its values. addRows<QString, QString>({"json", "expected"}, {{"a float", R"({"i": 1.5})", "i must be an
/// integer"}}) adds the QString columns "json" and "expected" and the row "a float".
template <class... Types>
requires(sizeof...(Types) >= 2) void addRows(const std::array<const char*, sizeof...(Types)>& columns,
                                             std::initializer_list<std::tuple<const char*, Types...>> rows)
{
    std::apply([](const auto&... names) { addColumns<Types...>(names...); }, columns);
    for (const auto& row : rows)
        std::apply([](const char* name, const Types&... values) { (QTest::newRow(name) << ... << values); }, row);
}

} // namespace rtscope::test
