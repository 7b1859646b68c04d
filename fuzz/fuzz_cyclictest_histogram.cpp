// cyclictest's -h histogram text, as File > Open cyclictest results… reads it. Whatever parses must also survive
// the writer and parse back: the round trip the CLI's --histfile and the tests rely on.
#include "engine/formats/cyclictest_format.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    rtscope::CyclictestData parsed;
    std::string error;
    if (!rtscope::parseCyclictestHistogram(text, parsed, error)) {
        if (error.empty())
            __builtin_trap(); // a refusal must say why
        return 0;
    }
    rtscope::CyclictestData again;
    if (!rtscope::parseCyclictestHistogram(rtscope::writeCyclictestHistogram(parsed), again, error) ||
        again.threads.size() != parsed.threads.size())
        __builtin_trap();
    return 0;
}
