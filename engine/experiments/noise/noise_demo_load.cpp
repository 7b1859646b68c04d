#include "engine/experiments/noise/noise_demo_load.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_environment.h"
#include "engine/util/clock.h"
#include "engine/util/name_list.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <unistd.h>

namespace rtscope {

namespace {

constexpr long kTmpfsMagic = 0x01021994;
constexpr int kMaxTimers = 256;
constexpr int64_t kMinTimerPeriodNs = 100'000;
constexpr int64_t kMaxWriteBytes = 1 << 20;
constexpr int kWriteBlocks = 64;       ///< the writes cycle over this many blocks of the file
constexpr int64_t kDirectAlign = 4096; ///< O_DIRECT's buffer, offset and size alignment (a page: every disk's block)

/// The per-CPU counts of every numbered line of /proc/interrupts, by IRQ number; @p names gets each line's name
/// (its last field) and @p cpus the CPU of each count column.
std::map<int, std::vector<uint64_t>> readProcInterrupts(std::map<int, std::string>* names, std::vector<int>* cpus)
{
    std::map<int, std::vector<uint64_t>> out;
    std::ifstream in("/proc/interrupts");
    std::string line;
    if (!std::getline(in, line))
        return out;
    std::vector<int> columns;
    {
        std::istringstream header(line);
        std::string word;
        while (header >> word)
            if (word.rfind("CPU", 0) == 0)
                columns.push_back(std::atoi(word.c_str() + 3));
    }
    if (cpus)
        *cpus = columns;
    while (std::getline(in, line)) {
        std::istringstream row(line);
        std::string label;
        row >> label;
        if (label.empty() || label.back() != ':' || !std::isdigit(static_cast<unsigned char>(label[0])))
            continue;
        const int irq = std::atoi(label.c_str());
        std::vector<uint64_t> counts;
        for (size_t i = 0; i < columns.size(); ++i) {
            uint64_t n = 0;
            if (!(row >> n))
                break;
            counts.push_back(n);
        }
        std::string word, last;
        while (row >> word)
            last = word;
        out[irq] = std::move(counts);
        if (names)
            (*names)[irq] = last;
    }
    return out;
}

/// The interrupt numbers of the device behind the block device @p dev (its MSI vectors, or its one legacy line),
/// found by walking up from /sys/dev/block/MAJ:MIN; empty with @p why set when there are none to find.
std::vector<int> blockDeviceIrqs(dev_t dev, std::string& why)
{
    namespace fs = std::filesystem;
    if (major(dev) == 0) {
        why = "the temp file's file system is not on one block device (overlay, btrfs, a network file system)";
        return {};
    }
    std::error_code ec;
    const std::string link = "/sys/dev/block/" + std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
    fs::path p = fs::canonical(link, ec);
    if (ec) {
        why = link + " cannot be read (" + ec.message() + ")";
        return {};
    }
    for (; !p.empty() && p != p.root_path(); p = p.parent_path()) {
        if (fs::is_directory(p / "msi_irqs", ec)) {
            std::vector<int> irqs;
            for (const auto& entry : fs::directory_iterator(p / "msi_irqs", ec))
                irqs.push_back(std::atoi(entry.path().filename().c_str()));
            std::sort(irqs.begin(), irqs.end());
            if (!irqs.empty())
                return irqs;
        }
        std::ifstream irqFile(p / "irq");
        if (int irq = 0; irqFile >> irq && irq > 0)
            return {irq};
    }
    why = "no interrupt line was found for the block device " + link + " (no msi_irqs or irq file above it in sysfs)";
    return {};
}

/// Sleeps until @p deadlineNs (CLOCK_MONOTONIC); a wake signal (a stop) ends it early.
void sleepUntil(int64_t deadlineNs)
{
    const timespec ts = toTimespec(deadlineNs);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

std::string sysError(const std::string& what, int err)
{
    return what + ": " + std::strerror(err);
}

} // namespace

/// What the load thread and the controlling thread share; outlives the thread.
struct NoiseDemoLoad::Shared {
    std::atomic<uint64_t> rounds{0};
    std::atomic<int> failedErrno{0};
    std::atomic<bool> failed{false};
    std::string failedCall; ///< written before `failed` is set, read after
    int fileFd = -1;
    bool onTmpfs = false;
    bool direct = false; ///< the file is open with O_DIRECT
    int epollFd = -1;
    std::vector<int> timerFds;

    ~Shared()
    {
        for (int fd : timerFds)
            close(fd);
        if (epollFd >= 0)
            close(epollFd);
        if (fileFd >= 0)
            close(fileFd);
    }
    void fail(const char* call, int err)
    {
        failedCall = call;
        failedErrno = err;
        failed = true;
    }
};

namespace {

/// Writes the blocks the disk I/O load overwrites once and syncs them, then opens the file for O_DIRECT: every later
/// write goes to the disk (one request, one completion interrupt) and needs no journal commit. A file system that
/// refuses O_DIRECT keeps buffered writes, each followed by fdatasync().
Error prepareDirectWrites(NoiseDemoLoad::Shared& shared, int64_t bytes)
{
    const std::vector<char> zeros(size_t(bytes * kWriteBlocks), 0);
    if (pwrite(shared.fileFd, zeros.data(), zeros.size(), 0) != ssize_t(zeros.size()) || fdatasync(shared.fileFd) < 0)
        return {ErrorKind::System, sysError("demo load: cannot write the temp file", errno)};
    const int flags = fcntl(shared.fileFd, F_GETFL);
    shared.direct = flags >= 0 && fcntl(shared.fileFd, F_SETFL, flags | O_DIRECT) == 0;
    return {};
}

} // namespace

namespace {

constexpr NamedValue<NoiseDemoKind> kNoiseDemoKindNames[] = {
    {NoiseDemoKind::None, "none", "no demo load"},
    {NoiseDemoKind::DiskIo, "disk-io", "disk I/O (interrupts, softirqs)"},
    {NoiseDemoKind::RtThread, "rt-thread", "periodic RT thread (thread noise)"},
    {NoiseDemoKind::TimerStorm, "timer-storm", "timer storm (timer interrupts)"},
};

} // namespace

const char* noiseDemoKindName(NoiseDemoKind kind)
{
    return nameOf(kNoiseDemoKindNames, kind, "none");
}

const char* noiseDemoKindLabel(NoiseDemoKind kind)
{
    return labelOf(kNoiseDemoKindNames, kind, "no demo load");
}

NoiseDemoKind noiseDemoKindFromName(const std::string& name, bool* ok)
{
    for (NoiseDemoKind k : kNoiseDemoKinds)
        if (name == noiseDemoKindName(k)) {
            if (ok)
                *ok = true;
            return k;
        }
    if (ok)
        *ok = false;
    return NoiseDemoKind::None;
}

std::vector<std::string> NoiseDemoConfig::validate() const
{
    std::vector<std::string> out;
    if (kind == NoiseDemoKind::None)
        return out;
    if (cpu < 0)
        out.push_back("demo load: cpu must be the measured CPU (0 or more), got " + std::to_string(cpu));
    if (kind == NoiseDemoKind::RtThread) {
        if (rtPriority < priorityMin(Policy::Fifo) || rtPriority > priorityMax(Policy::Fifo))
            out.push_back("demo load: the RT thread's priority must be " + std::to_string(priorityMin(Policy::Fifo)) +
                          ".." + std::to_string(priorityMax(Policy::Fifo)) + ", got " + std::to_string(rtPriority));
        if (periodNs < kNsPerMs || periodNs > kNsPerSec)
            out.push_back("demo load: the RT thread's period must be 1 ms to 1 s, got " + formatDuration(periodNs));
        if (spinNs <= 0 || spinNs * 100 > periodNs * kMaxDutyPercent)
            out.push_back("demo load: the RT thread's spin must be more than 0 and at most " +
                          std::to_string(kMaxDutyPercent) + " % of its period (" +
                          formatDuration(periodNs * kMaxDutyPercent / 100) + "), got " + formatDuration(spinNs));
    }
    if (kind == NoiseDemoKind::TimerStorm) {
        if (timers < 1 || timers > kMaxTimers)
            out.push_back("demo load: timers must be 1.." + std::to_string(kMaxTimers) + ", got " +
                          std::to_string(timers));
        if (timerPeriodNs < kMinTimerPeriodNs || timerPeriodNs > kNsPerSec)
            out.push_back("demo load: the timer period must be " + formatDuration(kMinTimerPeriodNs) + " to 1 s, got " +
                          formatDuration(timerPeriodNs));
    }
    if (kind == NoiseDemoKind::DiskIo) {
        if (writeBytes < kDirectAlign || writeBytes > kMaxWriteBytes || writeBytes % kDirectAlign != 0)
            out.push_back("demo load: the write size must be a multiple of 4096 B from 4 KiB to 1 MiB, got " +
                          std::to_string(writeBytes) + " B");
        if (pauseNs < 100'000 || pauseNs > kNsPerSec)
            out.push_back("demo load: the pause between writes must be 100 us to 1 s, got " + formatDuration(pauseNs));
        if (directory.empty())
            out.push_back("demo load: the directory for the temp file is empty");
    }
    return out;
}

std::string NoiseDemoConfig::describe() const
{
    const std::string where = "CPU " + std::to_string(cpu);
    switch (kind) {
    case NoiseDemoKind::None:
        return "no demo load";
    case NoiseDemoKind::DiskIo:
        return "a thread on " + where + " writes " + std::to_string(writeBytes / 1024) + " KiB straight to the disk (" +
               directory + ", O_DIRECT) every " + formatDuration(pauseNs);
    case NoiseDemoKind::RtThread:
        return "a SCHED_FIFO " + std::to_string(rtPriority) + " thread on " + where + " spins " +
               formatDuration(spinNs) + " every " + formatDuration(periodNs) + " (" +
               formatFixed(100.0 * double(spinNs) / double(std::max<int64_t>(periodNs, 1)), 1) + " % of the CPU)";
    case NoiseDemoKind::TimerStorm:
        return std::to_string(timers) + " timers on " + where + ", each firing every " + formatDuration(timerPeriodNs) +
               " (" + formatFixed(double(timers) * 1e9 / double(std::max<int64_t>(timerPeriodNs, 1)), 0) +
               " timer interrupts/s)";
    }
    return {};
}

NoiseDemoLoad::NoiseDemoLoad() = default;

NoiseDemoLoad::~NoiseDemoLoad()
{
    stop();
}

Error NoiseDemoLoad::start(const NoiseDemoConfig& config)
{
    if (running())
        return {ErrorKind::InvalidConfig, "the demo load is already running: stop it first"};
    stop(); // a thread that ended by itself (a failed write) is joined and its files closed
    if (auto errors = config.validate(); !errors.empty())
        return {ErrorKind::InvalidConfig, joinErrors(errors)};
    m_config = config;
    m_tempPath.clear();
    m_deviceIrqs.clear();
    m_irqNote.clear();
    m_irqAtStart.clear();
    if (config.kind == NoiseDemoKind::None)
        return {};

    auto shared = std::make_shared<Shared>();
    ThreadSpec spec;
    spec.cpu = config.cpu;
    std::function<void(const std::atomic<bool>&)> body;
    switch (config.kind) {
    case NoiseDemoKind::None:
        return {};
    case NoiseDemoKind::DiskIo: {
        std::string path = config.directory + "/rtscope-noise-demo-XXXXXX";
        const int fd = mkstemp(path.data());
        if (fd < 0)
            return {ErrorKind::System, sysError("demo load: cannot make a temp file in " + config.directory, errno)};
        unlink(path.c_str()); // nothing is left behind, whatever happens next
        shared->fileFd = fd;
        m_tempPath = path;
        struct statfs fsInfo {};
        shared->onTmpfs = fstatfs(fd, &fsInfo) == 0 && long(fsInfo.f_type) == kTmpfsMagic;
        struct stat st {};
        if (shared->onTmpfs)
            m_irqNote = config.directory + " is in memory (tmpfs): the writes reach no disk and raise no interrupt";
        else if (fstat(fd, &st) == 0)
            m_deviceIrqs = blockDeviceIrqs(st.st_dev, m_irqNote);
        if (!shared->onTmpfs)
            if (Error e = prepareDirectWrites(*shared, config.writeBytes))
                return e;
        m_irqAtStart = readProcInterrupts(nullptr, nullptr);
        spec.name = "rtscope-dio";
        body = [shared, bytes = config.writeBytes, pause = config.pauseNs](const std::atomic<bool>& stop) {
            void* memory = std::aligned_alloc(kDirectAlign, size_t(bytes));
            if (!memory) {
                shared->fail("aligned_alloc", ENOMEM);
                return;
            }
            const std::unique_ptr<void, decltype(&std::free)> block(memory, &std::free);
            std::memset(memory, 'n', size_t(bytes));
            int64_t offset = 0;
            while (!stop.load(std::memory_order_relaxed)) {
                // O_DIRECT: the write returns when the disk has it, with no journal to wait behind (the blocks were
                // written once already), so a stop never waits long for it. Without O_DIRECT: fdatasync().
                if (pwrite(shared->fileFd, memory, size_t(bytes), offset) < 0 && errno != EINTR) {
                    shared->fail("write", errno);
                    return;
                }
                if (!shared->direct && fdatasync(shared->fileFd) < 0 && errno != EINTR) {
                    shared->fail("fdatasync", errno);
                    return;
                }
                shared->rounds.fetch_add(1, std::memory_order_relaxed);
                offset = (offset + bytes) % (bytes * kWriteBlocks);
                sleepUntil(nowNs() + pause);
            }
        };
        break;
    }
    case NoiseDemoKind::RtThread:
        spec.policy = Policy::Fifo;
        spec.priority = config.rtPriority;
        spec.name = "rtscope-rtdemo";
        body = [shared, spin = config.spinNs, period = config.periodNs](const std::atomic<bool>& stop) {
            int64_t next = nowNs() + period;
            while (!stop.load(std::memory_order_relaxed)) {
                sleepUntil(next);
                if (stop.load(std::memory_order_relaxed) || nowNs() < next)
                    continue; // a stop's wake signal, or an early return: the loop checks again
                // The one busy stretch of the period: bounded by spin (at most kMaxDutyPercent of the period).
                const int64_t end = nowNs() + spin;
                while (nowNs() < end && !stop.load(std::memory_order_relaxed)) {
                }
                shared->rounds.fetch_add(1, std::memory_order_relaxed);
                // Never a burst to catch up: a late period starts the schedule again from now.
                next += period;
                if (const int64_t now = nowNs(); next <= now)
                    next = now + period;
            }
        };
        break;
    case NoiseDemoKind::TimerStorm: {
        shared->epollFd = epoll_create1(EPOLL_CLOEXEC);
        if (shared->epollFd < 0)
            return {ErrorKind::System, sysError("demo load: epoll_create1", errno)};
        for (int i = 0; i < config.timers; ++i) {
            const int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
            if (fd < 0)
                return {ErrorKind::System, sysError("demo load: timerfd_create", errno)};
            shared->timerFds.push_back(fd);
            epoll_event ev{};
            ev.events = EPOLLIN;
            ev.data.fd = fd;
            if (epoll_ctl(shared->epollFd, EPOLL_CTL_ADD, fd, &ev) < 0)
                return {ErrorKind::System, sysError("demo load: epoll_ctl", errno)};
        }
        spec.name = "rtscope-timers";
        body = [shared, period = config.timerPeriodNs](const std::atomic<bool>& stop) {
            // Armed here, on the pinned CPU: an hrtimer fires on the CPU that armed it, and a timerfd re-arms on the
            // CPU that reads it. Staggered across the period: many interrupts, not one for all.
            const int64_t base = nowNs() + kNsPerMs;
            const auto timers = int64_t(shared->timerFds.size());
            for (int64_t i = 0; i < timers; ++i) {
                itimerspec its{};
                its.it_value = toTimespec(base + period * i / timers);
                its.it_interval = toTimespec(period);
                if (timerfd_settime(shared->timerFds[size_t(i)], TFD_TIMER_ABSTIME, &its, nullptr) < 0) {
                    shared->fail("timerfd_settime", errno);
                    return;
                }
            }
            std::vector<epoll_event> events(shared->timerFds.size());
            while (!stop.load(std::memory_order_relaxed)) {
                const int n = epoll_wait(shared->epollFd, events.data(), int(events.size()), 10);
                for (int i = 0; i < n; ++i) {
                    uint64_t expiries = 0;
                    if (read(events[size_t(i)].data.fd, &expiries, sizeof expiries) == sizeof expiries)
                        shared->rounds.fetch_add(expiries, std::memory_order_relaxed);
                }
            }
        };
        break;
    }
    }
    auto thread = std::make_unique<RtThread>();
    if (Error e = thread->start(spec, std::move(body))) {
        e.message = "demo load: " + e.message;
        m_tempPath.clear();
        return e; // shared closes the files it holds
    }
    m_shared = std::move(shared);
    m_thread = std::move(thread);
    return {};
}

bool NoiseDemoLoad::stop()
{
    bool inTime = true;
    if (m_thread) {
        inTime = m_thread->stop(kJoinBudgetMs);
        m_thread.reset();
    }
    // The counts and the failure stay readable (status()) until the next start; the files close now.
    if (m_shared) {
        auto kept = std::make_shared<Shared>();
        kept->rounds = m_shared->rounds.load();
        kept->onTmpfs = m_shared->onTmpfs;
        kept->direct = m_shared->direct;
        if (m_shared->failed.load())
            kept->fail(m_shared->failedCall.c_str(), m_shared->failedErrno.load());
        m_shared = std::move(kept);
    }
    return inTime;
}

void NoiseDemoLoad::requestStop()
{
    if (m_thread)
        m_thread->requestStop();
}

bool NoiseDemoLoad::running() const
{
    return m_thread && m_thread->running();
}

int NoiseDemoLoad::tid() const
{
    return m_thread ? int(m_thread->tid()) : 0;
}

uint64_t NoiseDemoLoad::rounds() const
{
    return m_shared ? m_shared->rounds.load(std::memory_order_relaxed) : 0;
}

std::string NoiseDemoLoad::status() const
{
    if (m_config.kind == NoiseDemoKind::None || !m_shared)
        return {};
    const uint64_t n = rounds();
    std::string out;
    switch (m_config.kind) {
    case NoiseDemoKind::None:
        break;
    case NoiseDemoKind::DiskIo:
        out = std::to_string(n) + (m_shared->direct ? " direct writes" : " synced writes");
        if (m_shared->onTmpfs)
            out += "; " + m_config.directory + " is in memory (tmpfs): no disk, no interrupt";
        break;
    case NoiseDemoKind::RtThread:
        out = std::to_string(n) + " bursts of " + formatDuration(m_config.spinNs) + " (SCHED_FIFO " +
              std::to_string(m_config.rtPriority) + ") on CPU " + std::to_string(m_config.cpu);
        break;
    case NoiseDemoKind::TimerStorm:
        out = std::to_string(n) + " timer expiries read on CPU " + std::to_string(m_config.cpu);
        break;
    }
    if (m_shared->failed.load())
        out += "; stopped early: " + sysError(m_shared->failedCall, m_shared->failedErrno.load());
    return out;
}

std::string NoiseDemoLoad::interruptReport() const
{
    if (m_config.kind != NoiseDemoKind::DiskIo)
        return {};
    if (m_deviceIrqs.empty())
        return "disk interrupts: " + (m_irqNote.empty() ? std::string("not found") : m_irqNote);
    std::map<int, std::string> names;
    std::vector<int> cpus;
    const auto now = readProcInterrupts(&names, &cpus);
    std::vector<std::string> lines;
    uint64_t onMeasured = 0, elsewhere = 0;
    std::set<int> elsewhereCpus;
    for (int irq : m_deviceIrqs) {
        const auto it = now.find(irq);
        const auto before = m_irqAtStart.find(irq);
        if (it == now.end() || before == m_irqAtStart.end())
            continue;
        std::string counts;
        for (size_t i = 0; i < it->second.size() && i < before->second.size() && i < cpus.size(); ++i) {
            const uint64_t d = it->second[i] - std::min(it->second[i], before->second[i]);
            if (d == 0)
                continue;
            counts += (counts.empty() ? "" : ", ") + std::to_string(d) + " on CPU " + std::to_string(cpus[i]);
            if (cpus[i] == m_config.cpu) {
                onMeasured += d;
            } else {
                elsewhere += d;
                elsewhereCpus.insert(cpus[i]);
            }
        }
        if (!counts.empty())
            lines.push_back(names[irq] + " (IRQ " + std::to_string(irq) + "): " + counts);
    }
    std::string out = "disk interrupts so far: ";
    if (lines.empty())
        return out + "none yet";
    for (size_t i = 0; i < lines.size(); ++i)
        out += (i ? "; " : "") + lines[i];
    if (onMeasured == 0 && elsewhere > 0)
        out += ". They land on CPU " + formatCpuList({elsewhereCpus.begin(), elsewhereCpus.end()}) +
               ", not on the measured CPU " + std::to_string(m_config.cpu) +
               ": the IRQ affinity sends them there (IRQ " + std::to_string(m_deviceIrqs.front()) +
               " effective_affinity_list: " +
               readFirstLine("/proc/irq/" + std::to_string(m_deviceIrqs.front()) + "/effective_affinity_list") +
               "), so the disk's interrupts are noise on that CPU, not on the measured one";
    return out;
}

} // namespace rtscope
