// The agent protocol's frames, read by either end (rtscope agent reads the controller's start, with its view; the
// controller reads the agent's hello with its probe, status, started config, snapshot and thread list): decoded from
// a byte stream, each JSON payload read as the frame handlers read it. A payload nested deeper than kMaxJsonDepth is
// refused with a sentence, never handed on to be copied or dumped.
#include "engine/remote/agent_protocol.h"
#include "engine/util/json_text.h"

#include <cstddef>
#include <cstdint>
#include <vector>

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
        const nlohmann::json copy = *j; // what the controller keeps of a hello, status or started frame
        if (frame.type == rtscope::AgentFrameType::Threads) {
            std::string problem;
            if (!rtscope::agentThreadListFromJson(copy, problem) && problem.empty())
                __builtin_trap();
        }
    }
    return 0;
}

// For the test suite's run without libFuzzer (standalone_driver.cpp): one frame of each kind the ends exchange.
extern "C" void rtscopeFuzzSeeds(std::vector<std::string>& seeds)
{
    using rtscope::AgentFrameType;
    const nlohmann::json probe = {{"kernel", "6.18"}, {"cpus", {0, 1}}, {"preempt", "dynamic"}};
    seeds.push_back(rtscope::encodeAgentJsonFrame(AgentFrameType::Hello, rtscope::agentHello(probe, "board")));
    seeds.push_back(rtscope::encodeAgentJsonFrame(
        AgentFrameType::Start, {{"experiment", "latency"},
                                {"config", {{"period_ns", 1000000}, {"cpus", {1}}}},
                                {"view", {{"series_window_ns", 10000000000}, {"timeline_window_ns", 60000000000}}}}));
    seeds.push_back(rtscope::encodeAgentJsonFrame(
        AgentFrameType::Status,
        {{"threads", {{{"cpu", 1}, {"tid", 77}, {"samples", 10}, {"min_ns", 1}, {"max_ns", 9}}}}}));
    seeds.push_back(rtscope::encodeAgentJsonFrame(
        AgentFrameType::Started,
        {{"experiment", "latency"}, {"config", {{"period_ns", 1000000}}}, {"label", "a"}, {"run", 1}}));
    seeds.push_back(rtscope::encodeAgentJsonFrame(
        AgentFrameType::Threads,
        {{"host", "board"}, {"threads", nlohmann::json::array()}, {"total", 0}, {"read_ms", 1}}));
}
