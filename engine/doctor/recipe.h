#pragma once
/// @file `rtscope doctor --recipe DIR` (docs/doctor.md, "Recipe"): what would make the helpful fixes permanent, as
/// files a person reviews and installs — nothing here is installed. Each file is commented with the measured effect.
///
///   99-rtscope-doctor.conf         a sysctl.d file (sysctl.d(5): "key = value" lines, '#' comments)
///   rtscope-doctor-irq.service     a oneshot systemd unit writing the IRQ affinities (and THP, the workqueue mask)
///   kernel-cmdline.txt             the kernel command-line words of the boot-only findings
///   tuned/rtscope-doctor/tuned.conf a tuned profile including realtime with the same settings
#include "engine/doctor/doctor_report.h"

#include <string>
#include <vector>

namespace rtscope::doctor {

struct RecipeFile {
    std::string name; ///< relative to the recipe directory
    std::string text;
};

/// @brief The recipe of @p report: its helpful run-time fixes (and the kept ones) and its boot-only findings. A file
/// with nothing to say is left out; the README names what each does and how to install or undo it.
std::vector<RecipeFile> recipeFiles(const DoctorReport& report);

} // namespace rtscope::doctor
