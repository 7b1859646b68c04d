#include "ui/locks/lock_lab_util.h"

#include "ui/app/gui_thread_affinity.h"
#include "ui/widgets/duration_spin_box.h"

namespace rtscope {

QStringList toQStringList(const std::vector<std::string>& lines)
{
    QStringList out;
    for (const auto& s : lines)
        out << QString::fromStdString(s);
    return out;
}

QString durationText(int64_t ns)
{
    // The controls' own form ("1 µs", "50 ms"), so a tile reads exactly like the box that set it.
    return DurationSpinBox::formatNs(ns);
}

CpuTopology unpinnedTopology()
{
    const GuiThreadAffinity::Unpinned unpinned;
    return CpuTopology::current();
}

} // namespace rtscope
