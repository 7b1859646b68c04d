#include "app/cli/cli.h"
#include "app/cli/command_util.h"

#include "engine/formats/output_file.h"
#include "engine/rt/rt_thread.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

namespace rtscope::cli {

namespace {
std::string g_commandLine;
std::vector<std::string> g_arguments;

// Input a sentence echoes is cut to this many characters and an ellipsis: a flag value of 100 KB printed whole buries
// the sentence it is in, and the terminal with it.
constexpr size_t kEchoedChars = 80;
constexpr size_t kHelperStackBytes = size_t(1) << 20;

// @p sentence with every run of more than kEchoedChars characters that came from the command line (a value, or part
// of one) cut. Runs end at a space or a quote, so "'VALUE' is not a duration" keeps its quotes around the cut value.
std::string withEchoesCut(const std::string& sentence)
{
    std::string out;
    size_t from = 0;
    while (from <= sentence.size()) {
        const size_t end = std::min(sentence.find_first_of(" '\"", from), sentence.size());
        const std::string_view run(sentence.data() + from, end - from);
        const bool echoed = run.size() > kEchoedChars &&
                            std::any_of(g_arguments.begin(), g_arguments.end(),
                                        [&](const std::string& a) { return a.find(run) != std::string::npos; });
        out += echoed ? std::string(run.substr(0, kEchoedChars)) + "\u2026" : std::string(run);
        if (end < sentence.size())
            out += sentence[end];
        from = end + 1;
    }
    return out;
}

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

struct FileOption {
    CLI::Option* option;
    bool output;
    std::string name;
};
std::vector<FileOption>& fileOptions()
{
    static std::vector<FileOption> f;
    return f;
}

// The files @p command was given to write and to read, in the order of its options.
OutputPlan plannedFiles(const CLI::App& command)
{
    OutputPlan plan;
    for (const CLI::Option* option : command.get_options()) {
        for (const FileOption& f : fileOptions()) {
            if (f.option != option || option->count() == 0)
                continue;
            for (const std::string& path : option->results()) {
                if (f.output)
                    plan.addOutput(f.name, path);
                else
                    plan.addInput(f.name, path);
            }
        }
    }
    return plan;
}
} // namespace

CLI::Option* outputFile(CLI::Option* option)
{
    fileOptions().push_back({option, true, option->get_name()});
    return option;
}

CLI::Option* inputFile(CLI::Option* option, const std::string& name)
{
    fileOptions().push_back({option, false, name});
    return option;
}

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
    // A long list is mostly one mistake many times over (a method named 20 000 times, a range of a thousand
    // CPUs): each distinct sentence once, with how often, and past the first few a count of the rest, so that the
    // first problems stay on the screen.
    constexpr size_t kShown = 8;
    std::vector<std::pair<std::string, size_t>> distinct;
    for (const std::string& problem : problems) {
        const std::string p = withEchoesCut(problem);
        const auto seen = std::find_if(distinct.begin(), distinct.end(), [&](const auto& d) { return d.first == p; });
        if (seen != distinct.end())
            ++seen->second;
        else if (distinct.size() <= kShown) // one more than shown: enough to know there are more
            distinct.emplace_back(p, 1);
    }
    size_t printed = 0;
    for (size_t i = 0; i < distinct.size() && i < kShown; ++i) {
        const auto& [sentence, times] = distinct[i];
        printed += times;
        if (times > 1)
            std::fprintf(stderr, "rtscope %s: %s (given %zu times)\n", command.c_str(), sentence.c_str(), times);
        else
            std::fprintf(stderr, "rtscope %s: %s\n", command.c_str(), sentence.c_str());
    }
    if (printed < problems.size())
        std::fprintf(stderr, "rtscope %s: ... and %zu more problems\n", command.c_str(), problems.size() - printed);
    return ExitBadInput;
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
    case ErrorKind::Interrupted:
        return ExitOk; // a stop signal during the start: a clean stop, like one during the run
    default:
        return ExitFailure;
    }
}

bool writeFile(const std::string& path, const std::string& text)
{
    if (const Error e = writeFileAtomically(path, text)) {
        std::fprintf(stderr, "rtscope: %s\n", e.message.c_str());
        return false;
    }
    return true;
}

int runCommandProcess(int argc, char** argv)
{
    installWakeSignalHandler();
    blockProcessSignals(false);
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) == 0) {
        pthread_attr_setstacksize(&attr, kHelperStackBytes);
        pthread_setattr_default_np(&attr);
        pthread_attr_destroy(&attr);
    }
    return runCli(argc, argv);
}

int runCli(int argc, char** argv)
{
    for (int i = 0; i < argc; ++i) {
        g_commandLine += (i ? " " : "") + std::string(argv[i]);
        g_arguments.emplace_back(argv[i]);
    }

    CLI::App app{"rtscope: see Linux scheduling latency. Without a subcommand it opens the desktop app.", "rtscope"};
    app.set_version_flag("-V,--version", std::string("rtscope ") + RTSCOPE_VERSION);
    app.require_subcommand(1);
    app.footer("Exit codes: 0 done (also after Ctrl-C), 1 failure, 2 bad input, 3 missing real-time privilege.");
    auto regs = registry();
    std::sort(regs.begin(), regs.end(), [](const Registered& a, const Registered& b) { return a.order < b.order; });
    std::vector<Command> commands;
    for (const Registered& r : regs)
        commands.push_back(r.add(app));
    checkFlagValues(app);
    if (argc == 2 && std::string(argv[1]) == "help") {
        std::printf("%s", app.help().c_str());
        return ExitOk;
    }
    if (argc > 1 && argv[1][0] != '-' &&
        std::none_of(regs.begin(), regs.end(), [&](const Registered& r) { return r.name == argv[1]; })) {
        std::string names;
        for (const Registered& r : regs)
            names += (names.empty() ? "" : ", ") + r.name;
        std::fprintf(stderr, "rtscope: unknown command '%s'; the commands are %s (see 'rtscope --help')\n",
                     withEchoesCut(argv[1]).c_str(), names.c_str());
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
        std::fprintf(stderr, "rtscope: %s\nRun 'rtscope --help' or 'rtscope <command> --help'.\n",
                     withEchoesCut(e.what()).c_str());
        return ExitBadInput;
    }
    for (const Command& c : commands) {
        if (!c.app->parsed())
            continue;
        // Before the run, not after it: a run of minutes must not end with "cannot write", nor an output replace
        // the file the command reads.
        if (const std::vector<std::string> problems = checkOutputs(plannedFiles(*c.app)); !problems.empty())
            return reportInvalid(c.app->get_name(), problems);
        return c.run();
    }
    return ExitBadInput;
}

} // namespace rtscope::cli
