#include "ui/experiment_pages.h"

#include "ui/latency/latency_page.h"
#include "ui/latency/latency_source.h"
#include "ui/starvation/starvation_page.h"
#include "ui/timers/drift_page.h"
#include "ui/timers/sleep_floor_page.h"

namespace rtscope {

std::vector<ExperimentPage*> createExperimentPages(const SystemProbe& probe)
{
    // The order is the page order and the 1–5 keys: the lessons of SCIENCE.md §1–§4.
    std::vector<ExperimentPage*> pages;
    pages.push_back(new LatencyPage(std::make_unique<LiveLatencySource>(), probe));
    pages.push_back(new StarvationPage(probe));
    pages.push_back(new DriftPage(probe));
    pages.push_back(new SleepFloorPage(probe));
    return pages;
}

} // namespace rtscope
