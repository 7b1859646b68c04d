#pragma once
// A table model's cell as the UI tests read it.
#include <QVariant>

namespace rtscope::test {

/// The cell at (@p row, @p column): its raw value (the model's RawValueRole: the number, not its text) unless
/// @p role says which.
template <class Model> QVariant rawCell(const Model& m, int row, int column, int role = Model::RawValueRole)
{
    return m.data(m.index(row, column), role);
}

} // namespace rtscope::test
