#pragma once
/// @file The machine and run a result came from, for the fleets that compare many boards (docs/ci.md): comment
/// lines at the end of a cyclictest histfile ("# Kernel: …", after cyclictest's own footer, where its readers never
/// look) and the same facts as the "identity" object of --json.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rtscope {

struct SystemProbe;
struct LatencySnapshot;

struct RunIdentity {
    std::string host;
    std::string kernelRelease;
    std::string kernelVersion;
    std::string kernelCmdline; ///< /proc/cmdline
    std::string preemptModel;
    std::string cpuModel;
    std::vector<int> isolatedCpus;
    std::vector<int> nohzFullCpus;
    std::vector<int> measuredCpus;
    std::string load;        ///< rtscope's own hogs in words ("2 hogs (OTHER) on each measured CPU"), or "none"
    std::string loadCommand; ///< a load command rtscope ran; empty: none (a load started outside rtscope is unseen)
    std::string command;     ///< rtscope's command line
    int64_t startUnixSec = 0;
};

/// @brief The identity of a latency run: the facts of @p probe, the kernel command line (@p kernelCmdline; nullopt:
/// this machine's /proc/cmdline), the run's CPUs and hogs.
RunIdentity latencyRunIdentity(const SystemProbe& probe, const LatencySnapshot& snap, const std::string& command,
                               int64_t startUnixSec, const std::optional<std::string>& kernelCmdline = std::nullopt);

/// @brief One "# Key: value" line per fact, each value on one line (printable(): no control byte), unknown
/// values written "unknown" and empty CPU lists "none". The first line says that rtscope wrote them.
std::vector<std::string> runIdentityLines(const RunIdentity& identity);

/// @brief The same facts as JSON: host, kernel_release, kernel_version, kernel_cmdline, preempt_model, cpu_model,
/// isolated_cpus, nohz_full_cpus, measured_cpus (arrays), load, load_command (null: none), command, date.
nlohmann::json runIdentityJson(const RunIdentity& identity);

} // namespace rtscope
