#include "ui/locks/lock_lab_util.h"

#include "ui/widgets/duration_spin_box.h"

namespace rtscope {

QString durationText(int64_t ns)
{
    // The controls' own form ("1 µs", "50 ms"), so a tile reads exactly like the box that set it.
    return DurationSpinBox::formatNs(ns);
}

} // namespace rtscope
