#pragma once
// The list of experiment pages the main window shows, in tab order (keys 1–9 select them).
#include <vector>

namespace rtscope {

class ExperimentPage;
struct SystemProbe;

/// Creates every page, parentless (the main window adopts them).
std::vector<ExperimentPage*> createExperimentPages(const SystemProbe& probe);

} // namespace rtscope
