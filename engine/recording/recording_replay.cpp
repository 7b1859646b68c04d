#include "engine/recording/recording_replay.h"

#include "engine/experiments/latency/latency_replay.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace rtscope {

namespace {

class Replayer final : public RecordingReplayer {
public:
    /// @p totalBytes: the recording's size, for the progress calls made before the reader's first (the header's).
    Replayer(const RecordingReplayOptions& options, ReplayedRun& out, uint64_t totalBytes = 0)
        : m_options(options)
        , m_out(out)
        , m_totalBytes(totalBytes)
    {}

    /// The reader's progress callback: remembers where the reading is, and stops it once a step of the replay's own
    /// (a thread's figures set up or merged, which with 128 threads of large histograms takes seconds) was stopped.
    bool progress(uint64_t bytesRead, uint64_t totalBytes)
    {
        m_bytesRead = bytesRead;
        m_totalBytes = totalBytes;
        return !m_stopped && (!m_options.progress || m_options.progress(bytesRead, totalBytes));
    }
    bool stopped() const { return m_stopped; }

    void header(const RecordingHeader& h) override
    {
        m_out.header = h;
        m_config = h.config;
        if (m_options.histogramUs > 0)
            m_config.histogramUs =
                std::clamp(std::max(m_config.histogramUs, m_options.histogramUs), 0, LatencyConfig::kMaxHistogramUs);
        m_histogramAsked = m_config.histogramUs > h.config.histogramUs;
        if (!withinBudget(h.cpus.size(), "cpus"))
            return;
        m_cpus = h.cpus;
        activate(m_cpus.size(), h.startNs);
    }
    void samples(size_t thread, std::span<const LatencySample> batch) override
    {
        catchUp(thread);
        LatencyReplay& r = *m_threads[thread].replay;
        for (const LatencySample& s : batch)
            r.add(s);
    }
    void marker(const RecordedMarker& m) override
    {
        if (m_out.markers.size() < 10'000)
            m_out.markers.push_back(m);
        // A replay names the change itself, in the live experiment's words; the start config changes nothing. Only
        // the first thread's markers and config reach the snapshot, so only it is told: a marker costs the same
        // whatever the number of threads.
        LatencyReplay& first = *m_threads.front().replay;
        first.reconfigure(m.config, m.tNs);
        m_config = first.config();
    }
    void reset(int64_t tNs) override
    {
        // The other threads clear their figures when they are next used (catchUp): a reset block of 13 bytes must
        // not cost a pass over every thread's histogram. The first thread clears at once, for its "reset" marker.
        ++m_resets;
        m_resetNs = tNs;
        catchUp(0);
    }
    void drops(size_t thread, uint64_t total) override
    {
        catchUp(thread);
        Thread& t = m_threads[thread];
        t.drops = total;
        t.replay->setDrops(total - std::min(total, t.dropsAtReset));
    }
    void hogWork(int64_t, uint64_t iterations, double perSecond) override
    {
        m_threads.front().replay->setHogIterations(iterations, perSecond); // the snapshot carries the first's
    }
    void tracing(const LatencyTracing& t) override { m_tracing = std::make_shared<LatencyTracing>(t); }
    void tracedWakeup(bool overThreshold, TracedWakeup w) override
    {
        // The reader delivers wake-ups only after the anatomy block.
        AnatomyFigures& f = m_tracing->figures;
        (overThreshold ? f.overThreshold : f.worst).push_back(std::move(w));
    }
    void restart(int64_t tNs, const std::vector<int>& cpus) override
    {
        if (!withinBudget(cpus.size(), "restart"))
            return;
        // The live experiment gave the new threads fresh figures: so does the replay (the timeline goes on).
        m_cpus = cpus;
        m_active = std::min(m_active, cpus.size());
        activate(cpus.size(), tNs);
        reset(tNs);
        for (size_t i = 0; i < m_active; ++i)
            m_threads[i].drops = m_threads[i].dropsAtReset = 0;
    }

    std::shared_ptr<LatencySnapshot> snapshotSoFar(int64_t nowNs) override
    {
        auto merged = merge(nowNs, false);
        // A live remote run's anatomy blocks come just before its end block (docs/remote.md): shown as they arrive,
        // a copy, since more of its wake-up blocks may follow.
        if (merged && m_tracing)
            merged->tracing = std::make_shared<const LatencyTracing>(*m_tracing);
        return merged;
    }

    std::shared_ptr<const LatencySnapshot> finish(int64_t endNs)
    {
        auto merged = merge(endNs, true);
        if (!merged || m_stopped)
            return nullptr;
        m_active = 0;
        m_threads.clear();
        merged->finished = true;
        merged->tracing = std::move(m_tracing); // the live run's last snapshot carried this one
        return merged;
    }

private:
    // The threads' snapshots as one (the first thread's, with every thread's row); @p final stops the threads and
    // frees their copies, as the end of a replay does.
    std::shared_ptr<LatencySnapshot> merge(int64_t nowNs, bool final)
    {
        if (m_active == 0)
            return nullptr;
        auto merged = std::make_shared<LatencySnapshot>();
        for (size_t i = 0; i < m_active; ++i) {
            if (final && !keepGoing())
                return nullptr;
            catchUp(i);
            if (final)
                m_threads[i].replay->stop();
            auto snap = m_threads[i].replay->publish(nowNs);
            if (i == 0)
                *merged = *snap;
            if (i > 0)
                merged->threads.push_back(snap->threads.front());
            merged->threads.back().cpu = m_cpus[i];
            if (!final)
                continue;
            m_out.samplesSinceReset += snap->threads.front().samples;
            // Its histogram now lives in the merged snapshot: the thread's own copies can go.
            m_threads[i].replay.reset();
        }
        return merged;
    }

    struct Thread {
        std::unique_ptr<LatencyReplay> replay;
        uint64_t drops = 0;        ///< the last drops block's total
        uint64_t dropsAtReset = 0; ///< the total at the last reset it caught up with
        uint64_t resets = 0;       ///< the m_resets it caught up with
    };

    // A recording can restart its threads thousands of times (every CPU change): the threads beyond the current
    // count are kept and started anew when a restart needs them again, so a restart costs the threads it names
    // plus what they recorded since, never fresh histograms and timelines.
    void activate(size_t n, int64_t tNs)
    {
        for (size_t i = m_active; i < n; ++i) {
            // Stopped: the reader is told at its next progress call, right after this block, before any block
            // could name a thread that was not set up.
            if (!keepGoing())
                break;
            if (i == m_threads.size()) {
                Thread t;
                t.replay = std::make_unique<LatencyReplay>();
                t.replay->setSeriesWindow(m_options.seriesWindowNs);
                t.replay->setKeepMarkers(i == 0);
                m_threads.push_back(std::move(t));
            }
            Thread& t = m_threads[i];
            t.replay->start(m_config, tNs);
            t.drops = t.dropsAtReset = 0;
            t.resets = m_resets;
            m_active = i + 1;
        }
    }

    // Between the steps of one block (a thread's histogram set up or merged): the caller's progress callback at the
    // reading's last position.
    bool keepGoing()
    {
        if (!m_stopped && m_options.progress && !m_options.progress(m_bytesRead, m_totalBytes))
            m_stopped = true;
        return !m_stopped;
    }

    void catchUp(size_t i)
    {
        Thread& t = m_threads[i];
        if (t.resets == m_resets)
            return;
        t.resets = m_resets;
        t.replay->resetStatistics(m_resetNs);
        t.dropsAtReset = t.drops;
    }

    // Every thread keeps config.histogramUs exact bins: a file names the threads and the bins, so their product is
    // bounded before anything is allocated for them.
    bool withinBudget(size_t threads, const char* field)
    {
        const auto us = uint64_t(std::max(0, m_config.histogramUs));
        const uint64_t bins = uint64_t(threads) * us;
        if (bins <= kMaxReplayHistogramBins)
            return true;
        const std::string histogram = m_histogramAsked
                                          ? "a replay histogram (--histogram) of " + std::to_string(us) + " us"
                                          : "histogram_us " + std::to_string(us);
        refuse(std::string(field) + ": " + std::to_string(threads) + " measuring threads × " + histogram + " = " +
               std::to_string(bins) + " exact 1 us histogram bins; a replay holds at most " +
               std::to_string(kMaxReplayHistogramBins) + " bins for all threads together (with " +
               std::to_string(threads) + " threads, a histogram of at most " +
               std::to_string(kMaxReplayHistogramBins / threads) + " us)");
        return false;
    }

    RecordingReplayOptions m_options;
    ReplayedRun& m_out;
    LatencyConfig m_config;
    bool m_histogramAsked = false; ///< the replay's histogram is larger than the recorded one
    std::vector<int> m_cpus;
    std::vector<Thread> m_threads; ///< the first m_active are the run's threads now
    size_t m_active = 0;
    uint64_t m_resets = 0;                     ///< reset blocks so far (restarts included)
    int64_t m_resetNs = 0;                     ///< the last one's time
    std::shared_ptr<LatencyTracing> m_tracing; ///< the anatomy blocks, when the file holds them
    uint64_t m_bytesRead = 0;                  ///< the reader's last progress call
    uint64_t m_totalBytes = 0;
    bool m_stopped = false; ///< the progress callback said stop between two steps of a block
};

template <class Read> ReplayedRun replayWith(const RecordingReplayOptions& options, uint64_t totalBytes, Read&& read)
{
    ReplayedRun run;
    Replayer replayer(options, run, totalBytes);
    const RecordingProgress progress = [&](uint64_t bytesRead, uint64_t totalBytes) {
        return replayer.progress(bytesRead, totalBytes);
    };
    run.read = read(replayer, progress);
    // A cancelled replay is not shown, and a refused one may not be: no figures are computed for either.
    if (run.read.headerRead && !run.read.cancelled && replayer.refusal().empty()) {
        run.snapshot = replayer.finish(run.read.endNs);
        if (replayer.stopped()) { // while the threads' figures were merged, after the last block
            run.read.cancelled = true;
            run.read.error = "stopped after " + std::to_string(run.read.samples) + " samples (the whole file read)";
        }
    }
    return run;
}

} // namespace

std::unique_ptr<RecordingReplayer> makeRecordingReplayer(const RecordingReplayOptions& options, ReplayedRun& out)
{
    return std::make_unique<Replayer>(options, out);
}

ReplayedRun replayRecordingFile(const std::string& path, const RecordingReplayOptions& options)
{
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    return replayWith(options, ec ? 0 : size, [&](RecordingVisitor& v, const RecordingProgress& progress) {
        return readRecordingFile(path, v, options.progress ? progress : RecordingProgress());
    });
}

ReplayedRun replayRecording(std::string_view bytes, const RecordingReplayOptions& options)
{
    return replayWith(options, bytes.size(), [&](RecordingVisitor& v, const RecordingProgress& progress) {
        return readRecording(bytes, v, options.progress ? progress : RecordingProgress());
    });
}

} // namespace rtscope
