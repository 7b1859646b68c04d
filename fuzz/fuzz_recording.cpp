// A recording (File > Open recording…, rtscope replay): the reader and the replay through LatencyReplay, the
// whole path a file takes before its figures reach the views, its anatomy blocks (a traced run) included.
#include "engine/export/latency_export.h"
#include "engine/recording/recording_replay.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    rtscope::RecordingReplayOptions options;
    options.histogramUs = 100; // the exact bins are not what is being tested; keep each run cheap
    const rtscope::ReplayedRun run = rtscope::replayRecording(bytes, options);
    if (!run.read.ok && run.read.error.empty())
        __builtin_trap(); // a refusal must say why
    if (run.snapshot) {
        uint64_t samples = 0;
        for (const auto& t : run.snapshot->threads)
            samples += t.samples;
        if (samples > run.read.samples) // a replay never shows more samples than the file held
            __builtin_trap();
        (void)rtscope::replayedHistogramText(run);
        // The report reads a replayed anatomy (anatomy blocks) as the live one: verdicts, names, parts.
        (void)rtscope::replayedRunJson(run, "fuzz.rtrec");
    }
    return 0;
}
