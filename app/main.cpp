// `rtscope`: every command, headless, in a small process (no Qt: docs/architecture.md, "Two programs"). With no
// command it becomes the desktop app, rtscope-gui from the same directory, by exec (same process id, same arguments).
#include "app/cli/entry.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {

#ifdef RTSCOPE_GUI_PROGRAM
// The desktop app beside this program: /proc/self/exe's directory, so a build tree, /usr/bin and a copied pair work.
std::string guiProgram()
{
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return RTSCOPE_GUI_PROGRAM;
    std::string path(self, size_t(n));
    const size_t slash = path.rfind('/');
    return (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + RTSCOPE_GUI_PROGRAM;
}
#endif

} // namespace

int main(int argc, char** argv)
{
    if (rtscope::cli::wantsCli(argc, argv))
        return rtscope::cli::runCommandProcess(argc, argv);
#ifdef RTSCOPE_GUI_PROGRAM
    const std::string gui = guiProgram();
    argv[0] = const_cast<char*>(gui.c_str());
    execv(gui.c_str(), argv);
    std::fprintf(stderr, "rtscope: cannot start the desktop app %s: %s. Run 'rtscope --help' for the commands.\n",
                 gui.c_str(), std::strerror(errno));
    return 2;
#else
    std::fprintf(stderr, "rtscope was built without the desktop UI; run 'rtscope --help' for the commands.\n");
    return 2;
#endif
}
