// A preset file (Presets menu, rtscope run --preset FILE): parsed and validated against a fixed 4-CPU topology
// so that every execution sees the same machine.
#include "engine/presets/preset.h"
#include "engine/rt/cpu_topology.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const rtscope::CpuTopology cpus{{0, 1, 2, 3}, {0, 1, 2, 3}, {}};
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const rtscope::PresetParseResult r = rtscope::parsePreset(text, "fuzz.json", &cpus);
    if (!r.preset && r.errors.empty())
        __builtin_trap(); // a refusal must say why
    return 0;
}
