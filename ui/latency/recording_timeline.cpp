#include "ui/latency/recording_timeline.h"

#include "engine/recording/recording_reader.h"

#include <algorithm>
#include <map>

namespace rtscope {

namespace {

struct Column {
    int64_t minNs = 0;
    int64_t maxNs = 0;
    bool any = false;

    void add(int64_t v)
    {
        minNs = any ? std::min(minNs, v) : v;
        maxNs = any ? std::max(maxNs, v) : v;
        any = true;
    }
    void add(const Column& c)
    {
        if (c.any) {
            add(c.minNs);
            add(c.maxNs);
        }
    }
};

class TimelineReader final : public RecordingVisitor {
public:
    void header(const RecordingHeader& h) override
    {
        m_startNs = h.startNs;
        m_threadCpus = h.cpus;
    }
    void restart(int64_t, const std::vector<int>& cpus) override { m_threadCpus = cpus; }
    void samples(size_t thread, std::span<const LatencySample> batch) override
    {
        if (thread >= m_threadCpus.size())
            return;
        std::vector<Column>& columns = m_cpus[m_threadCpus[thread]];
        for (const LatencySample& s : batch) {
            const int64_t at = std::max<int64_t>(0, s.wakeNs - m_startNs);
            m_lastNs = std::max(m_lastNs, s.wakeNs);
            while (size_t(at / m_columnNs) >= RecordingTimeline::kMaxColumns)
                widen();
            size_t i = size_t(at / m_columnNs);
            if (columns.size() <= i) {
                while (m_totalColumns + (i + 1 - columns.size()) > RecordingTimeline::kMaxTotalColumns) {
                    widen();
                    i = size_t(at / m_columnNs);
                    if (columns.size() > i)
                        break;
                }
                if (columns.size() <= i) {
                    m_totalColumns += i + 1 - columns.size();
                    columns.resize(i + 1);
                }
            }
            columns[i].add(s.latencyNs);
        }
    }

    RecordingTimeline finish(const RecordingReadResult& read) const
    {
        RecordingTimeline out;
        out.ok = read.headerRead && (read.ok || read.truncated) && !read.cancelled;
        out.columnNs = m_columnNs;
        const int64_t endNs = std::max(read.endNs, m_lastNs);
        out.spanSec = double(std::max<int64_t>(0, endNs - m_startNs)) / 1e9;
        for (const auto& [cpu, columns] : m_cpus) {
            RecordingTimeline::Cpu c{cpu, {}};
            for (size_t i = 0; i < columns.size(); ++i)
                if (columns[i].any)
                    c.points.push_back({double(m_startNs + int64_t(i) * m_columnNs - endNs) / 1e9,
                                        double(columns[i].minNs) / 1e3, double(columns[i].maxNs) / 1e3});
            out.cpus.push_back(std::move(c));
        }
        return out;
    }

private:
    // Twice the time per column: neighbours merge, so memory stays bounded and no extreme is lost.
    void widen()
    {
        m_columnNs *= 2;
        m_totalColumns = 0;
        for (auto& [cpu, columns] : m_cpus) {
            std::vector<Column> merged((columns.size() + 1) / 2);
            for (size_t i = 0; i < columns.size(); ++i)
                merged[i / 2].add(columns[i]);
            columns = std::move(merged);
            m_totalColumns += columns.size();
        }
    }

    int64_t m_startNs = 0;
    int64_t m_lastNs = 0;
    int64_t m_columnNs = 1'000'000; // the live timeline's 1 ms, while the run is short enough
    size_t m_totalColumns = 0;      // of every CPU
    std::vector<int> m_threadCpus;
    std::map<int, std::vector<Column>> m_cpus;
};

} // namespace

RecordingTimeline readRecordingTimeline(const QString& path, const RecordingProgress& progress)
{
    TimelineReader reader;
    const RecordingReadResult read = readRecordingFile(path.toStdString(), reader, progress);
    return reader.finish(read);
}

} // namespace rtscope
