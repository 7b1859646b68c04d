#include "engine/util/loop_clock.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace rtscope {

namespace {

// One (CLOCK_MONOTONIC, ticks) pair: the tick read bracketed by two clock reads, the tightest of three tries, so
// the pair's own uncertainty is the shortest bracket (tens of ns) rather than whatever interrupted one of them.
struct ClockPair {
    int64_t mono = 0;
    uint64_t ticks = 0;
};

ClockPair readPair(const LoopClock& clock)
{
    ClockPair best;
    int64_t bestWidth = INT64_MAX;
    for (int i = 0; i < 3; ++i) {
        const int64_t before = nowNs();
        const uint64_t t = clock.read();
        const int64_t after = nowNs();
        if (after - before < bestWidth) {
            bestWidth = after - before;
            best = {before + (after - before) / 2, t};
        }
    }
    return best;
}

} // namespace

LoopClock LoopClock::tsc(double ticksPerNs)
{
    LoopClock c;
    if (!(ticksPerNs >= 0.001) || !std::isfinite(ticksPerNs)) // below 1 MHz is no TSC
        return c;
    c.m_source = Source::Tsc;
    c.m_ticksPerNs = ticksPerNs;
    c.m_mult = uint64_t(std::llround(double(uint64_t(1) << kShift) / ticksPerNs));
    return c;
}

bool LoopClock::invariantTsc(const std::string& cpuinfo, std::string* why)
{
    std::istringstream in(cpuinfo);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("flags", 0) != 0)
            continue;
        const size_t colon = line.find(':');
        const std::string flags = " " + (colon == std::string::npos ? line : line.substr(colon + 1)) + " ";
        const bool constant = flags.find(" constant_tsc ") != std::string::npos;
        const bool nonstop = flags.find(" nonstop_tsc ") != std::string::npos;
        if (constant && nonstop)
            return true;
        if (why)
            *why = std::string("the TSC is not invariant here (no ") +
                   (constant  ? "nonstop_tsc"
                    : nonstop ? "constant_tsc"
                              : "constant_tsc, nonstop_tsc") +
                   " in /proc/cpuinfo)";
        return false;
    }
    if (why)
        *why = "/proc/cpuinfo names no CPU flags";
    return false;
}

LoopClock LoopClock::best(int64_t calibrationNs, std::string* note)
{
#if defined(__x86_64__)
    std::ifstream in("/proc/cpuinfo");
    std::stringstream text;
    text << in.rdbuf();
    std::string why;
    if (!in || !invariantTsc(text.str(), &why)) {
        if (note)
            *note = in ? why : "/proc/cpuinfo is not readable";
        return monotonic();
    }
    LoopClock raw = tsc(1.0);
    const ClockPair a = readPair(raw);
    const timespec pause = toTimespec(calibrationNs);
    nanosleep(&pause, nullptr);
    const ClockPair b = readPair(raw);
    if (b.mono <= a.mono || b.ticks <= a.ticks) {
        if (note)
            *note = "the TSC did not advance with CLOCK_MONOTONIC while it was calibrated";
        return monotonic();
    }
    return tsc(double(b.ticks - a.ticks) / double(b.mono - a.mono));
#else
    (void)calibrationNs;
    if (note)
        *note = "this build reads CLOCK_MONOTONIC (no x86-64 TSC)";
    return monotonic();
#endif
}

std::string LoopClock::describe() const
{
    if (m_source == Source::Monotonic)
        return "CLOCK_MONOTONIC (vDSO)";
    char text[96];
    std::snprintf(text, sizeof text, "TSC at %.1f MHz (calibrated against CLOCK_MONOTONIC)", m_ticksPerNs * 1000.0);
    return text;
}

} // namespace rtscope
