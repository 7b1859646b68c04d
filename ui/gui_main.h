#pragma once
// Entry point of the desktop app (app/main.cpp calls it when there is no subcommand).

namespace rtscope {

/// Runs the Qt application: blocks the stop and timer signals before any thread exists, parses the GUI
/// options, opens the main window and returns the process exit code (0, or 2 for bad options).
int runGui(int argc, char** argv);

} // namespace rtscope
