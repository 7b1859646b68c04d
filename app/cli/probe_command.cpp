#include "app/cli/cli.h"
#include "app/cli/remote_target.h"

#include "engine/export/report_json.h"
#include "engine/formats/probe_json.h"
#include "engine/rt/system_probe.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace rtscope::cli {

namespace {
struct ProbeOptions {
    bool json = false;
    RemoteTarget target;
};

int run(const ProbeOptions& o)
{
    SystemProbe probe;
    CliTarget link("probe");
    if (o.target.given()) {
        if (const std::vector<std::string> problems = remoteTargetProblems(o.target); !problems.empty())
            return reportInvalid("probe", problems);
        if (!link.open(o.target))
            return ExitFailure;
        // The target's probe as its agent said hello, read as an untrusted file is: a field that does not read is
        // named and left at its default.
        std::vector<std::string> problems;
        probe = systemProbeFromJson(link.probeJson(), problems);
        probe.hostname = link.hello().value("host", std::string()); // the probe's JSON leaves it out; the hello has it
        for (const std::string& p : problems)
            std::fprintf(stderr, "rtscope probe: the target's probe: %s\n", p.c_str());
    } else {
        probe = probeSystem();
    }
    if (o.json) {
        nlohmann::json j = toJson(probe);
        if (o.target.given())
            j["target"] = {{"host", link.hello().value("host", std::string())},
                           {"agent_version", link.hello().value("version", std::string())}};
        std::printf("%s\n", j.dump(2).c_str());
    } else {
        if (o.target.given())
            std::printf("%s\n", link.targetLine().c_str());
        std::printf("%s", probe.toText().c_str());
    }
    return ExitOk;
}

void addProbeFlags(CLI::App* sub, ProbeOptions& o)
{
    sub->add_flag("--json", o.json, "Print the probe as JSON");
    addTargetOptions(sub, o.target);
}

} // namespace

const OptionsCommand<ProbeOptions>
    kProbeCommand("probe", 90, "Print what this machine and process can do for RT measurement", addProbeFlags, run);

} // namespace rtscope::cli
