#include "engine/experiments/noise/osnoise_trace.h"

#include "engine/util/input_file.h"
#include "engine/util/whole_number.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace rtscope {

namespace {

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// The next whitespace-separated token of @p rest, removed from it.
std::string_view nextToken(std::string_view& rest)
{
    rest = trimmed(rest);
    const size_t end = std::min(rest.find_first_of(" \t"), rest.size());
    const std::string_view token = rest.substr(0, end);
    rest.remove_prefix(end);
    return token;
}

template <class T> bool readWhole(std::string_view token, T& out)
{
    return !token.empty() && readWholeNumber(token, out);
}

bool readPercent(std::string_view token, double& out)
{
    // from_chars for double is not in GCC 12's library for every target; strtod on a bounded copy is.
    if (token.empty() || token.size() > 32)
        return false;
    const std::string copy(token);
    char* end = nullptr;
    out = std::strtod(copy.c_str(), &end);
    return end == copy.c_str() + copy.size();
}

} // namespace

void OsnoiseCounts::add(const OsnoiseCounts& other)
{
    runtimeUs += other.runtimeUs;
    noiseUs += other.noiseUs;
    maxSingleUs = std::max(maxSingleUs, other.maxSingleUs);
    hw += other.hw;
    nmi += other.nmi;
    irq += other.irq;
    softirq += other.softirq;
    thread += other.thread;
}

double OsnoiseCpuSummary::availablePercent() const
{
    if (runtimeUs <= 0)
        return 100.0;
    return 100.0 * double(runtimeUs - noiseUs) / double(runtimeUs);
}

std::optional<OsnoisePeriod> parseOsnoisePeriod(std::string_view line, std::string& problem)
{
    problem.clear();
    line = trimmed(line);
    if (line.empty() || line.front() == '#')
        return std::nullopt;
    // "<task>-<pid> [CPU] <flags> <timestamp>: <fields>"; trace-cmd report may put more columns before the
    // timestamp, so the CPU is the first bracketed number and the fields follow the first ": " after it.
    const size_t open = line.find('[');
    const size_t close = open == std::string_view::npos ? open : line.find(']', open);
    if (close == std::string_view::npos)
        return std::nullopt;
    int cpu = -1;
    if (!readWhole(trimmed(line.substr(open + 1, close - open - 1)), cpu) || cpu < 0)
        return std::nullopt;
    const size_t colon = line.find(": ", close);
    if (colon == std::string_view::npos)
        return std::nullopt;
    std::string_view rest = line.substr(colon + 2);
    std::string_view first = trimmed(rest);
    if (first.empty() || !std::isdigit(static_cast<unsigned char>(first.front())))
        return std::nullopt; // another event of the tracer ("irq_noise: …", "sample_threshold: …")

    OsnoisePeriod p;
    p.cpu = cpu;
    std::string_view tokens[9];
    for (auto& t : tokens)
        t = nextToken(rest);
    const bool extra = !trimmed(rest).empty();
    if (!readWhole(tokens[0], p.runtimeUs) || !readWhole(tokens[1], p.noiseUs) ||
        !readPercent(tokens[2], p.availablePercent) || !readWhole(tokens[3], p.maxSingleUs) ||
        !readWhole(tokens[4], p.hw) || !readWhole(tokens[5], p.nmi) || !readWhole(tokens[6], p.irq) ||
        !readWhole(tokens[7], p.softirq) || !readWhole(tokens[8], p.thread) || extra) {
        problem = "not an osnoise period summary (expected: runtime, noise, % available, max single, HW, NMI, IRQ, "
                  "softirq, thread)";
        return std::nullopt;
    }
    if (p.runtimeUs <= 0)
        problem = "runtime " + std::to_string(p.runtimeUs) + " us: must be above 0";
    else if (p.noiseUs < 0 || p.noiseUs > p.runtimeUs)
        problem = "noise " + std::to_string(p.noiseUs) + " us: must be between 0 and the runtime " +
                  std::to_string(p.runtimeUs) + " us";
    else if (p.maxSingleUs < 0 || p.maxSingleUs > p.runtimeUs)
        problem = "max single noise " + std::to_string(p.maxSingleUs) + " us: must be between 0 and the runtime " +
                  std::to_string(p.runtimeUs) + " us";
    else if (!(p.availablePercent >= 0 && p.availablePercent <= 100))
        problem = "% of CPU available " + std::string(tokens[2]) + ": must be between 0 and 100";
    if (!problem.empty())
        return std::nullopt;
    return p;
}

OsnoiseTrace readOsnoiseTrace(std::string_view text, std::string source)
{
    OsnoiseTrace out;
    out.source = std::move(source);
    std::string problem;
    while (!text.empty()) {
        const size_t end = std::min(text.find('\n'), text.size());
        const std::string_view line = text.substr(0, end);
        text.remove_prefix(std::min(end + 1, text.size()));
        ++out.lines;
        const auto period = parseOsnoisePeriod(line, problem);
        if (!period) {
            if (problem.empty()) {
                ++out.skippedLines;
            } else if (++out.problemCount <= OsnoiseTrace::kMaxProblems) {
                out.problems.push_back("line " + std::to_string(out.lines) + ": " + problem);
            }
            continue;
        }
        ++out.periodLines;
        auto it = std::find_if(out.cpus.begin(), out.cpus.end(),
                               [&](const OsnoiseCpuSummary& c) { return c.cpu == period->cpu; });
        if (it == out.cpus.end()) {
            it = out.cpus.insert(std::upper_bound(out.cpus.begin(), out.cpus.end(), period->cpu,
                                                  [](int cpu, const OsnoiseCpuSummary& c) { return cpu < c.cpu; }),
                                 OsnoiseCpuSummary{});
            it->cpu = period->cpu;
        }
        ++it->periods;
        it->add(*period);
    }
    return out;
}

Error loadOsnoiseTrace(const std::string& path, OsnoiseTrace& out)
{
    std::string text, why;
    if (!readRegularFile(path, kMaxOsnoiseTraceBytes, text, why))
        return {ErrorKind::InvalidConfig, "osnoise-file: " + why};
    out = readOsnoiseTrace(text, path);
    if (out.periodLines == 0) {
        std::string message = "osnoise-file: '" + path + "' holds no osnoise period summary (" +
                              std::to_string(out.lines) + " lines read";
        if (!out.problems.empty())
            message += "; " + out.problems.front();
        message += "); record one with: echo osnoise > /sys/kernel/tracing/current_tracer; sleep 5; "
                   "cat /sys/kernel/tracing/trace > FILE; echo nop > /sys/kernel/tracing/current_tracer";
        return {ErrorKind::InvalidConfig, message};
    }
    return {};
}

} // namespace rtscope
