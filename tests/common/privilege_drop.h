#pragma once
// Takes real-time privilege away from the calling thread for a scope, so a test can make the kernel refuse
// SCHED_FIFO in the middle of a run that started with it (as when rtprio limits change under a long run).
// CAP_SYS_NICE leaves the thread's effective set (capabilities are per thread; threads it creates inherit the
// reduced set) and RLIMIT_RTPRIO's soft limit drops to 0; both come back on destruction. Root keeps the
// capability in its permitted set and the hard limit, so the undo needs no other privilege.
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace rtscope::test {

class WithoutRealtimePrivilege {
public:
    WithoutRealtimePrivilege()
    {
        getrlimit(RLIMIT_RTPRIO, &m_limit);
        rlimit none = m_limit;
        none.rlim_cur = 0;
        m_ok = setrlimit(RLIMIT_RTPRIO, &none) == 0 && capget(m_saved) && setEffective(false);
    }
    ~WithoutRealtimePrivilege()
    {
        setEffective(true);
        setrlimit(RLIMIT_RTPRIO, &m_limit);
    }
    WithoutRealtimePrivilege(const WithoutRealtimePrivilege&) = delete;
    WithoutRealtimePrivilege& operator=(const WithoutRealtimePrivilege&) = delete;

    /// False when the privilege could not be taken away (the test cannot make its point then).
    bool ok() const { return m_ok; }

private:
    static bool capget(__user_cap_data_struct (&data)[2])
    {
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
        return syscall(SYS_capget, &header, data) == 0;
    }
    bool setEffective(bool niceToo)
    {
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
        __user_cap_data_struct data[2] = {m_saved[0], m_saved[1]};
        if (!niceToo)
            data[0].effective &= ~(1u << CAP_SYS_NICE);
        return syscall(SYS_capset, &header, data) == 0;
    }

    rlimit m_limit{};
    __user_cap_data_struct m_saved[2]{};
    bool m_ok = false;
};

} // namespace rtscope::test
