#pragma once
// Looking an element up in a snapshot's or a report's list by one of its fields.
#include <vector>

namespace rtscope::test {

/// The first element of @p items whose @p field equals @p value; nullptr when none does.
template <class T, class Field, class Value>
const T* findBy(const std::vector<T>& items, Field T::*field, const Value& value)
{
    for (const T& item : items)
        if (item.*field == value)
            return &item;
    return nullptr;
}

} // namespace rtscope::test
