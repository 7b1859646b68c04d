#pragma once
// The main window with the latency page over a given source and the drift page beside it (for the cases where a
// file is opened from another page), as the file menu and recording tests drive it.
#include "engine/rt/system_probe.h"
#include "ui/app/file_menu.h"
#include "ui/common/latency_source.h"
#include "ui/latency/latency_page.h"
#include "ui/main_window.h"
#include "ui/timers/drift_page.h"

#include <memory>
#include <vector>

namespace rtscope::test {

struct LatencyWindow {
    std::unique_ptr<MainWindow> window;
    LatencyPage* latency = nullptr;
    FileMenu* files = nullptr;

    LatencyWindow(std::unique_ptr<LatencySource> source, const SystemProbe& probe)
    {
        latency = new LatencyPage(std::move(source), probe);
        window =
            std::make_unique<MainWindow>(std::vector<ExperimentPage*>{latency, new DriftPage(probe)}, probe, nullptr);
        files = window->fileMenu();
        window->resize(1400, 900);
    }
};

} // namespace rtscope::test
