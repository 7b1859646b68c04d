#pragma once
// The command line's entry points, for the two programs' main(): no CLI11 here, so that main.cpp and gui_main.cpp
// compile in a fraction of a second instead of parsing CLI11 each (docs/BENCHMARKS.md, "Build").

namespace rtscope::cli {

/// True when argv names a subcommand or a CLI-only flag (--help, --version): the GUI is not started.
bool wantsCli(int argc, char** argv);
/// Parses and runs; returns the process exit code.
int runCli(int argc, char** argv);
/// @brief runCli() as a process's main: installs the wake signal handler, blocks the stop signals (taken by the thread
/// that waits for them) and gives the threads a command starts without a stack size of their own 1 MiB instead of
/// glibc's 8 MiB (under mlockall every byte of a stack is resident: docs/BENCHMARKS.md, "The far tail"). Call it before
/// any thread exists.
int runCommandProcess(int argc, char** argv);

} // namespace rtscope::cli
