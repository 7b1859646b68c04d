#pragma once
// How the UI writes engine values, in one place, so that every page writes a value the same way.
#include "engine/util/units.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// An engine text for the screen: the GUI writes "µs" everywhere, the engine and the CLI "us" (as cyclictest).
inline QString screenText(std::string_view engineText)
{
    return QString::fromStdString(withMicroSign(engineText));
}

/// formatDuration() as a QString, in the GUI's unit words ("12.3 µs").
inline QString durationQt(int64_t ns)
{
    return screenText(formatDuration(ns));
}

/// durationQt() with a visible minus sign for a negative value (formatDuration() has none in every unit).
inline QString signedDurationQt(int64_t ns)
{
    return ns < 0 ? QStringLiteral("−") + durationQt(-ns) : durationQt(ns);
}

/// The engine's sentences (validate()'s problems, parse errors) as Qt strings, one a line, in the GUI's unit words.
QStringList toQt(const std::vector<std::string>& sentences);

/// A measured latency with its unit: "850 ns", "12.3 µs", "3.90 ms", "1.20 s".
QString formatLatency(double ns);
/// A latency in µs for a table cell: "4.21", "57.3", "3901".
QString formatMicros(double ns);

} // namespace rtscope
