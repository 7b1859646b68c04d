#pragma once
// How the UI writes engine values, in one place, so that every page writes a value the same way.
#include "engine/util/units.h"

#include <QString>

#include <cstdint>

namespace rtscope {

/// formatDuration() as a QString ("12.3 us").
inline QString durationQt(int64_t ns)
{
    return QString::fromStdString(formatDuration(ns));
}

/// durationQt() with a visible minus sign for a negative value (formatDuration() has none in every unit).
inline QString signedDurationQt(int64_t ns)
{
    return ns < 0 ? QStringLiteral("−") + durationQt(-ns) : durationQt(ns);
}

} // namespace rtscope
