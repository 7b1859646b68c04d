#pragma once
// An edit of a config that sets one of its fields, for the rows of a _data() table that each change one field:
// setField(&LatencyConfig::nice, 20) in place of [](LatencyConfig& c) { c.nice = 20; }.
#include <functional>

namespace rtscope::test {

/// Sets @p field of the config to @p value (converted to the field's type).
template <class Config, class T, class V> std::function<void(Config&)> setField(T Config::*field, V value)
{
    return [field, value](Config& c) {
        c.*field = static_cast<T>(value);
    };
}

} // namespace rtscope::test
