// `rtscope-gui`: the desktop app. A command given to it runs headless as in `rtscope` (the doctor page starts
// `rtscope-gui doctor guardian` through /proc/self/exe).
#include "ui/gui_main.h"
#include "app/cli/entry.h"
#include "engine/rt/rt_thread.h"

int main(int argc, char** argv)
{
    // Before any thread exists: workers inherit a mask with every signal blocked, so SIGINT/SIGTERM and the
    // itimer's SIGALRM reach the thread that waits for them, never a measuring thread.
    rtscope::installWakeSignalHandler();
    if (rtscope::cli::wantsCli(argc, argv))
        return rtscope::cli::runCommandProcess(argc, argv);
    return rtscope::runGui(argc, argv);
}
