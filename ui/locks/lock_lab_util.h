#pragma once
// Small helpers both lock-lab pages use (what every lab uses is in ui/common).
#include <QString>

#include <cstdint>

namespace rtscope {

/// A configured duration as the controls show it ("1 µs", "1.5 ms").
QString durationText(int64_t ns);

} // namespace rtscope
