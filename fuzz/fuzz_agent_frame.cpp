// The agent protocol's frames, read by either end (rtscope agent reads the controller's, the controller reads the
// agent's): decoded from a byte stream, each JSON payload read as the frame handlers read it. A payload nested
// deeper than kMaxJsonDepth is refused with a sentence, never handed on to be copied or dumped.
#include "engine/remote/agent_protocol.h"
#include "engine/util/json_text.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    rtscope::AgentFrameDecoder decoder;
    decoder.feed(std::string_view(reinterpret_cast<const char*>(data), size));
    rtscope::AgentFrame frame;
    std::string error;
    for (rtscope::AgentFrameDecoder::Result r;
         (r = decoder.next(frame, error)) != rtscope::AgentFrameDecoder::Result::NeedMore;) {
        if (r == rtscope::AgentFrameDecoder::Result::Bad) {
            if (error.empty())
                __builtin_trap(); // a bad frame must say why
            return 0;
        }
        std::string why;
        const std::optional<nlohmann::json> j = frame.json(why);
        if (!j) {
            if (why.empty())
                __builtin_trap();
            continue;
        }
        if (rtscope::jsonNestingDepth(j->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) >
            rtscope::kMaxJsonDepth)
            __builtin_trap();
    }
    return 0;
}
