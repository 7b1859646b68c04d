#pragma once
// The headless command line: `rtscope <experiment> …`. No Qt, no display needed.
#include "app/cli/entry.h"
#include "engine/util/error.h"
#include "engine/util/exit_code.h"

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rtscope::cli {

/// A subcommand registers its options and returns the function that runs it after parsing.
using CommandRunner = std::function<int()>;
struct Command {
    CLI::App* app = nullptr;
    CommandRunner run;
};

/// Each subcommand registers itself from its own file in app/cli/ with a static CommandRegistration, so
/// adding an experiment touches no shared list. @p order sorts the help listing.
using AddCommandFn = std::function<Command(CLI::App& app)>;
struct CommandRegistration {
    CommandRegistration(const char* name, int order, AddCommandFn add);
};

/// @p run, with an exception it lets out turned into "rtscope CMD: what" on stderr and exit code 1. The
/// experiments' destructors have stopped and joined their threads during the unwinding.
CommandRunner catchingExceptions(const std::string& command, CommandRunner run);

/// The registration of the usual subcommand: `rtscope NAME` (@p description in the help) with the flags @p addFlags
/// registers into an @p Options, which lives as long as the command line, run by @p run with them once parsed.
/// With Exceptions::Catch an exception @p run lets out ends the command as catchingExceptions() says.
template <class Options> struct OptionsCommand : CommandRegistration {
    using AddFlags = void (*)(CLI::App* sub, Options& o);
    using Run = int (*)(const Options& o);
    enum class Exceptions { LetOut, Catch };

    OptionsCommand(const char* name, int order, const char* description, AddFlags addFlags, Run run,
                   Exceptions exceptions = Exceptions::LetOut)
        : CommandRegistration(name, order, [=](CLI::App& app) -> Command {
            auto o = std::make_shared<Options>();
            CLI::App* sub = app.add_subcommand(name, description);
            addFlags(sub, *o);
            CommandRunner runner = [o, run] {
                return run(*o);
            };
            if (exceptions == Exceptions::Catch)
                runner = catchingExceptions(name, std::move(runner));
            return {sub, std::move(runner)};
        })
    {}
};

// Helpers shared by the subcommands.
/// Prints the validation sentences to stderr, one per line, prefixed "rtscope <cmd>: ".
int reportInvalid(const std::string& command, const std::vector<std::string>& problems);
/// Maps an engine error to the exit code: InvalidConfig 2, Permission 3, Interrupted (a stop signal while it started)
/// 0, anything else 1.
int exitCodeFor(ErrorKind kind);
/// Writes @p text to @p path (writeFileAtomically: all of it or nothing changed); on failure prints why and returns
/// false.
bool writeFile(const std::string& path, const std::string& text);

/// Marks @p option as a file the command writes: before a command runs, runCli() checks every output given
/// together with every input (checkOutputs(): a missing directory, a link, a directory, an output that is an input
/// or another output) and refuses them with exit code 2, so that nothing is measured for an output that cannot be
/// written. Returns @p option.
CLI::Option* outputFile(CLI::Option* option);
/// Marks @p option as a file the command reads, named @p name in the sentences ("the recording FILE").
CLI::Option* inputFile(CLI::Option* option, const std::string& name);
/// The command line as one string, for the cmdline field of cyclictest's JSON.
std::string commandLine();

} // namespace rtscope::cli
