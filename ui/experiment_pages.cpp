#include "ui/experiment_pages.h"

#include "ui/common/latency_source.h"
#include "ui/deadline/deadline_page.h"
#include "ui/doctor/doctor_page.h"
#include "ui/latency/latency_page.h"
#include "ui/locks/contention/contention_page.h"
#include "ui/locks/inversion/inversion_page.h"
#include "ui/noise/noise_page.h"
#include "ui/starvation/starvation_page.h"
#include "ui/timers/drift_page.h"
#include "ui/timers/sleep_floor_page.h"
#include "ui/workbench/cpus/cpus_page.h"
#include "ui/workbench/sweep/sweep_page.h"
#include "ui/workbench/threads/threads_page.h"

namespace rtscope {

std::vector<ExperimentPage*> createExperimentPages(const SystemProbe& probe)
{
    // The order is the page order and the 1–9, 0 keys: the experiments of docs/science.md, then the tuning workbench
    // and the doctor; the noise lab last, after the ten with keys (the start page's lesson card opens it).
    std::vector<ExperimentPage*> pages;
    pages.push_back(new LatencyPage(std::make_unique<LiveLatencySource>(), probe));
    pages.push_back(new StarvationPage(probe));
    pages.push_back(new DriftPage(probe));
    pages.push_back(new SleepFloorPage(probe));
    pages.push_back(new ContentionPage(probe));
    pages.push_back(new InversionPage(probe));
    pages.push_back(new DeadlinePage(probe));
    pages.push_back(new CpusPage(std::make_unique<LiveLatencySource>(), probe));
    pages.push_back(new ThreadsPage(probe));
    pages.push_back(new SweepPage(probe));
    // The doctor's session starts its guardian from this very binary (`rtscope doctor guardian`), even if the file
    // on disk is replaced while the app runs.
    pages.push_back(new DoctorPage(probe, doctor::GuardianLaunch{"/proc/self/exe", {"doctor", "guardian"}}));
    pages.push_back(new NoisePage(probe));
    return pages;
}

} // namespace rtscope

#include "moc_experiment_page.cpp"
