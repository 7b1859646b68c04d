#pragma once
// How the UI writes engine values, in one place, so that every page writes a value the same way.
#include "engine/util/units.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <string>
#include <vector>

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

/// The engine's sentences (validate()'s problems, parse errors) as Qt strings, one a line.
QStringList toQt(const std::vector<std::string>& sentences);

/// A measured latency with its unit: "850 ns", "12.3 µs", "3.90 ms", "1.20 s".
QString formatLatency(double ns);
/// A latency in µs for a table cell: "4.21", "57.3", "3901".
QString formatMicros(double ns);

} // namespace rtscope
