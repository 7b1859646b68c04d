// cyclictest's --json output, as File > Open cyclictest results… reads it (a board's result, or a hostile file).
#include "engine/formats/cyclictest_format.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    rtscope::CyclictestData parsed;
    std::string error;
    if (!rtscope::parseCyclictestJson(text, parsed, error)) {
        if (error.empty())
            __builtin_trap(); // a refusal must say why
        return 0;
    }
    // What the import does next: every thread's bins and counts are consistent with its cycles.
    for (const auto& t : parsed.threads) {
        uint64_t inBins = 0;
        for (uint64_t b : t.bins)
            inBins += b;
        if (inBins + t.overflows != t.cycles)
            __builtin_trap();
    }
    return 0;
}
