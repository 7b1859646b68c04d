// One executable: a subcommand runs headless (no QApplication, no display); no subcommand opens the GUI.
#include "app/cli/cli.h"
#include "engine/rt/rt_thread.h"

#ifdef RTSCOPE_HAVE_UI
#include "ui/gui_main.h"
#endif

#include <cstdio>

int main(int argc, char** argv)
{
    // Before any thread exists: workers inherit a mask with every signal blocked, so SIGINT/SIGTERM and the
    // itimer's SIGALRM reach the thread that waits for them, never a measuring thread.
    rtscope::installWakeSignalHandler();
    if (rtscope::cli::wantsCli(argc, argv)) {
        rtscope::blockProcessSignals(false);
        return rtscope::cli::runCli(argc, argv);
    }
#ifdef RTSCOPE_HAVE_UI
    return rtscope::runGui(argc, argv);
#else
    std::fprintf(stderr, "rtscope was built without the desktop UI; run 'rtscope --help' for the commands.\n");
    return 2;
#endif
}
