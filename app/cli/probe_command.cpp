#include "app/cli/cli.h"

#include "engine/export/report_json.h"
#include "engine/formats/probe_json.h"
#include "engine/rt/system_probe.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace rtscope::cli {

namespace {
Command addProbeCommand(CLI::App& app)
{
    auto* sub = app.add_subcommand("probe", "Print what this machine and process can do for RT measurement");
    auto json = std::make_shared<bool>(false);
    sub->add_flag("--json", *json, "Print the probe as JSON");
    return {sub, [json] {
                const SystemProbe probe = probeSystem();
                if (*json)
                    std::printf("%s\n", toJson(probe).dump(2).c_str());
                else
                    std::printf("%s", probe.toText().c_str());
                return int(ExitOk);
            }};
}

} // namespace

const CommandRegistration kProbeRegistration("probe", 90, &addProbeCommand);

} // namespace rtscope::cli
