#pragma once
// A made-up machine for the tests that write what a run was measured on (recordings, run identities): a probe that
// names a real-time board instead of the machine the tests run on.
#include "engine/rt/system_probe.h"

#include <string>

namespace rtscope::test {

/// The probe of a PREEMPT_RT board named @p hostname, running kernel @p kernelRelease; nothing else filled in.
inline SystemProbe rtBoardProbe(const std::string& hostname, const std::string& kernelRelease)
{
    SystemProbe p;
    p.hostname = hostname;
    p.kernelRelease = kernelRelease;
    p.preemptModel = "PREEMPT_RT";
    return p;
}

} // namespace rtscope::test
