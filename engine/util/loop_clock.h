#pragma once
/// @file The clock a busy-polling loop reads (the noise lab's poller; docs/experiments/noise.md "The loop's clock").
/// A poller's resolution is its loop: the shorter one turn, the finer the noise it can see and the fewer gaps it
/// makes itself. On x86-64 with an invariant TSC (constant_tsc and nonstop_tsc in /proc/cpuinfo) it reads the time
/// stamp counter directly, as oslat does; elsewhere, or when told to, CLOCK_MONOTONIC through the vDSO. A virtual
/// machine's vDSO clock (kvm-clock) costs several times a raw TSC read and sometimes stalls for a microsecond or
/// more on its own, which a poller would count as noise.
///
/// Ticks become nanoseconds through a rate measured against CLOCK_MONOTONIC when the clock is made; where a gap
/// must be placed on the trace clock, the poller reads CLOCK_MONOTONIC once at the gap's end (MonotonicStamp).
#include "engine/util/clock.h"

#include <cstdint>
#include <string>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace rtscope {

class LoopClock {
public:
    enum class Source : uint8_t { Tsc, Monotonic };

    /// @brief The TSC where it is invariant (calibrated over @p calibrationNs of sleep), else CLOCK_MONOTONIC.
    /// @p note (may be null) receives why the TSC was not used, when it was not.
    static LoopClock best(int64_t calibrationNs = 20'000'000, std::string* note = nullptr);
    /// @brief CLOCK_MONOTONIC through the vDSO: ticks are nanoseconds.
    static LoopClock monotonic() { return LoopClock(); }
    /// @brief The TSC at a known rate (tests; best() measures the rate).
    static LoopClock tsc(double ticksPerNs);
    /// @brief Whether this CPU has a TSC that ticks at one rate in every state (constant_tsc and nonstop_tsc), read
    /// from @p cpuinfo (the text of /proc/cpuinfo); @p why says what is missing.
    static bool invariantTsc(const std::string& cpuinfo, std::string* why);

    Source source() const { return m_source; }
    double ticksPerNs() const { return m_ticksPerNs; }
    /// @brief "TSC at 2096.1 MHz (calibrated against CLOCK_MONOTONIC)" or "CLOCK_MONOTONIC (vDSO)".
    std::string describe() const;

    /// @brief Now, in ticks. Only differences of two reads on one CPU mean anything.
    uint64_t read() const noexcept
    {
#if defined(__x86_64__)
        if (m_source == Source::Tsc)
            return __rdtsc();
#endif
        return uint64_t(nowNs());
    }
    /// @brief A difference of two reads in nanoseconds (to the nearest).
    int64_t toNs(uint64_t ticks) const noexcept
    {
        if (m_source == Source::Monotonic)
            return int64_t(ticks);
        return int64_t(((unsigned __int128)ticks * m_mult + (uint64_t(1) << (kShift - 1))) >> kShift);
    }
    /// @brief CLOCK_MONOTONIC at the instant of @p ticks, which was read just now: the read itself where ticks are
    /// nanoseconds of CLOCK_MONOTONIC, a fresh CLOCK_MONOTONIC read otherwise (a few tens of ns later).
    int64_t monotonicStamp(uint64_t ticks) const noexcept
    {
        return m_source == Source::Monotonic ? int64_t(ticks) : nowNs();
    }

private:
    static constexpr unsigned kShift = 48; ///< 2^48 / rate: exact to 1e-14 for any TSC above 1 MHz
    LoopClock() = default;

    Source m_source = Source::Monotonic;
    double m_ticksPerNs = 1.0;
    uint64_t m_mult = uint64_t(1) << kShift; ///< ns = ticks × m_mult >> kShift
};

} // namespace rtscope
