#include "app/cli/cli.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace rtscope::cli {

namespace {
std::string g_commandLine;

struct Registered {
    std::string name;
    int order;
    AddCommandFn add;
};
std::vector<Registered>& registry()
{
    static std::vector<Registered> r; // function-local: safe from static initialisation order
    return r;
}
} // namespace

CommandRegistration::CommandRegistration(const char* name, int order, AddCommandFn add)
{
    registry().push_back({name, order, add});
}

bool wantsCli(int argc, char** argv)
{
    if (argc < 2)
        return false;
    const std::string first = argv[1];
    const auto& r = registry();
    const bool known = std::any_of(r.begin(), r.end(), [&](const Registered& c) { return c.name == first; });
    // Anything else that is not an option (Qt's start with '-') is a mistyped subcommand: answer it on the
    // terminal with exit 2 rather than opening a window. An existing file is left to the GUI to open.
    const bool word = !first.empty() && first[0] != '-' && access(first.c_str(), F_OK) != 0;
    return known || word || first == "--help" || first == "-h" || first == "--version" || first == "-V" ||
           first == "help";
}

std::string commandLine()
{
    return g_commandLine;
}

int reportInvalid(const std::string& command, const std::vector<std::string>& problems)
{
    for (const auto& p : problems)
        std::fprintf(stderr, "rtscope %s: %s\n", command.c_str(), p.c_str());
    return ExitBadInput;
}

int waitForStopSignal(int timeoutMs)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    timespec ts{timeoutMs / 1000, long(timeoutMs % 1000) * 1'000'000};
    const int sig = sigtimedwait(&set, nullptr, &ts);
    return sig > 0 ? sig : 0;
}

int exitCodeFor(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::None:
        return ExitOk;
    case ErrorKind::InvalidConfig:
        return ExitBadInput;
    case ErrorKind::Permission:
        return ExitNoPrivilege;
    default:
        return ExitFailure;
    }
}

bool writeFile(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (out)
        out << text;
    if (!out) {
        std::fprintf(stderr, "rtscope: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
        return false;
    }
    return true;
}

int runCli(int argc, char** argv)
{
    for (int i = 0; i < argc; ++i)
        g_commandLine += (i ? " " : "") + std::string(argv[i]);

    CLI::App app{"rtscope: see Linux scheduling latency. Without a subcommand it opens the desktop app.", "rtscope"};
    app.set_version_flag("-V,--version", std::string("rtscope ") + RTSCOPE_VERSION);
    app.require_subcommand(1);
    app.footer("Exit codes: 0 done (also after Ctrl-C), 1 failure, 2 bad input, 3 missing real-time privilege.");
    auto regs = registry();
    std::sort(regs.begin(), regs.end(), [](const Registered& a, const Registered& b) { return a.order < b.order; });
    std::vector<Command> commands;
    for (const Registered& r : regs)
        commands.push_back(r.add(app));
    if (argc == 2 && std::string(argv[1]) == "help") {
        std::printf("%s", app.help().c_str());
        return ExitOk;
    }
    if (argc > 1 && argv[1][0] != '-' &&
        std::none_of(regs.begin(), regs.end(), [&](const Registered& r) { return r.name == argv[1]; })) {
        std::string names;
        for (const Registered& r : regs)
            names += (names.empty() ? "" : ", ") + r.name;
        std::fprintf(stderr, "rtscope: unknown command '%s'; the commands are %s (see 'rtscope --help')\n", argv[1],
                     names.c_str());
        return ExitBadInput;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "rtscope: %s\nRun 'rtscope --help' or 'rtscope <command> --help'.\n", e.what());
        return ExitBadInput;
    }
    for (const Command& c : commands)
        if (c.app->parsed())
            return c.run();
    return ExitBadInput;
}

} // namespace rtscope::cli
