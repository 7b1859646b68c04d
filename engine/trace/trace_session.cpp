#include "engine/trace/trace_session.h"

#include "engine/rt/rt_thread.h"
#include "engine/trace/trace_decoder.h"
#include "engine/trace/tracefs_api.h"
#include "engine/util/clock.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <linux/capability.h>
#include <map>
#include <mutex>
#include <sstream>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace rtscope {

namespace {

constexpr long kTracefsMagic = 0x74726163; // include/uapi/linux/magic.h, TRACEFS_MAGIC
constexpr int kCapSysAdmin = 21;           // linux/capability.h
// Besides kTraceEvents, the formats the decoder reads: trace_marker writes, timerlat samples.
const char* const kSessionFtraceEvents[] = {"ftrace/print", "ftrace/timerlat"};
// Sub-buffers read from one CPU per drain before the others get their turn.
constexpr int kMaxSubBuffersPerDrain = 512;
// A batch is handed on when it reaches this many events, even mid-drain.
constexpr size_t kBatchEvents = 16384;

std::string sessionErrno(int err)
{
    return std::strerror(err);
}

// CAP_SYS_ADMIN in the calling thread's effective set (capabilities are per thread).
bool sessionCanMount()
{
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (syscall(SYS_capget, &header, data) != 0)
        return false;
    return (data[kCapSysAdmin / 32].effective >> (kCapSysAdmin % 32)) & 1u;
}

bool sessionKernelHasTracefs()
{
    std::ifstream in("/proc/filesystems");
    std::string line;
    while (std::getline(in, line))
        if (line.size() >= 7 && line.compare(line.size() - 7, 7, "tracefs") == 0 &&
            (line.size() == 7 || line[line.size() - 8] == '\t' || line[line.size() - 8] == ' '))
            return true;
    return false;
}

bool sessionIsTracefs(const std::string& dir)
{
    struct statfs fs {};
    return statfs(dir.c_str(), &fs) == 0 && long(fs.f_type) == kTracefsMagic;
}

// The tracefs mount point: kDefaultTracingDir when tracefs is mounted there, else the first tracefs in the
// mount table (a debugfs/tracing automount counts once it has been entered); empty when none.
std::string sessionFindMount()
{
    std::ifstream in("/proc/self/mounts");
    std::string dev, dir, type, rest;
    std::string first;
    while (in >> dev >> dir >> type && std::getline(in, rest)) {
        if (type != "tracefs")
            continue;
        if (dir == kDefaultTracingDir)
            return dir;
        if (first.empty() && dir.find('\\') == std::string::npos)
            first = dir;
    }
    return first;
}

bool sessionAccess(const std::string& path, int mode)
{
    return faccessat(AT_FDCWD, path.c_str(), mode, AT_EACCESS) == 0;
}

std::string sessionPermissionFix(const std::string& path)
{
    return "permission denied on " + path +
           " (tracefs is root's): tracing needs root: run rtscope as root (sudo), or grant the binary "
           "CAP_DAC_OVERRIDE (sudo setcap cap_dac_override+ep <path to rtscope>), which lets it bypass file "
           "permissions everywhere";
}

// The checks of probe() once tracefs is at @p dir: access, events, tracers.
void sessionProbeMounted(TraceProbe& p, const std::string& dir)
{
    p.tracingDir = dir;
    for (const auto& [path, mode] :
         {std::pair{dir, X_OK}, std::pair{dir + "/instances", W_OK | X_OK}, std::pair{dir + "/events", R_OK | X_OK}}) {
        if (!sessionAccess(path, mode)) {
            const int err = errno;
            p.usable = false;
            p.reason = err == EACCES || err == EPERM ? sessionPermissionFix(path)
                                                     : "cannot use " + path + ": " + sessionErrno(err);
            return;
        }
    }
    for (const char* e : kTraceEvents)
        if (!sessionAccess(dir + "/events/" + e + "/format", R_OK))
            p.missingEvents.push_back(e);
    std::ifstream tracers(dir + "/available_tracers");
    std::string t;
    while (tracers >> t) {
        p.timerlatTracer = p.timerlatTracer || t == "timerlat";
        p.osnoiseTracer = p.osnoiseTracer || t == "osnoise";
    }
    p.usable = true;
}

std::string sessionReadFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return in ? out.str() : std::string();
}

// The formats of the events the decoder knows, parsed one by one. libtracefs' tracefs_local_events_system() would
// parse whole systems and also load /proc/kallsyms and the saved command lines: a quarter of a second here.
tep_handle* sessionLoadFormats(const std::string& dir)
{
    tep_handle* tep = tep_alloc();
    if (!tep)
        return nullptr;
    std::string header = sessionReadFile(dir + "/events/header_page");
    if (header.empty() || tep_parse_header_page(tep, header.data(), header.size(), int(sizeof(long))) != 0) {
        tep_free(tep);
        return nullptr;
    }
    tep_set_long_size(tep, int(sizeof(long)));
    tep_set_page_size(tep, int(sysconf(_SC_PAGESIZE)));
    const tep_endian host = tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN;
    tep_set_file_bigendian(tep, host);
    tep_set_local_bigendian(tep, host);
    auto parse = [&](const std::string& full) {
        const std::string system = full.substr(0, full.find('/'));
        const std::string format = sessionReadFile(dir + "/events/" + full + "/format");
        if (!format.empty())
            (void)tep_parse_event(tep, format.data(), format.size(), system.c_str()); // a failure: the event is missing
    };
    for (const char* e : kTraceEvents)
        parse(e);
    for (const char* e : kSessionFtraceEvents)
        parse(e);
    return tep;
}

std::atomic<int> g_sessionInstanceCounter{0};
std::mutex g_sessionMountMutex; // two sessions starting at once mount tracefs once

// The kernel's per-CPU ring buffer statistics (per_cpu/cpuN/stats): "entries: 3", "overrun: 0", …
std::map<std::string, uint64_t> sessionCpuStats(tracefs_instance* instance, int cpu)
{
    std::map<std::string, uint64_t> out;
    const std::string file = "per_cpu/cpu" + std::to_string(cpu) + "/stats";
    char* text = tracefs_instance_file_read(instance, file.c_str(), nullptr);
    if (!text)
        return out;
    std::istringstream in(text);
    free(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        try {
            out[line.substr(0, colon)] = std::stoull(line.substr(colon + 1));
        } catch (...) {
            // "oldest event ts:  12.345" and the like: not a count
        }
    }
    return out;
}

} // namespace

struct TraceSession::State {
    TraceConfig config;
    std::string dir;
    std::string name;
    bool mounted = false;
    tracefs_instance* instance = nullptr;
    tep_handle* tep = nullptr;
    std::unique_ptr<TraceDecoder> decoder;
    struct Cpu {
        int cpu = -1;
        tracefs_cpu* tcpu = nullptr;
        int64_t lastTs = 0;
    };
    std::vector<Cpu> cpus;
    size_t subBufferBytes = 0;
    int markerFd = -1;
    TraceBatchHandler handler;
    RtThread reader;
    int readerCpu = -1;
    bool running = false;
    std::vector<std::string> enabled;
    std::vector<std::string> missing;

    std::atomic<uint64_t> events{0}, subBuffers{0}, bytes{0}, batches{0}, lostEvents{0}, lossReports{0}, undecoded{0},
        handlerErrors{0};
    uint64_t kernelOverrun = 0, kernelDropped = 0, unreadAtStop = 0;
    int64_t readerStopNs = 0;

    void readerLoop(const std::atomic<bool>& stop);
    void drain(std::vector<TraceEvent>& batch, std::vector<uint8_t>& page, int64_t deadlineNs);
    void handOn(std::vector<TraceEvent>& batch);
    Error teardown();
};

void TraceSession::State::handOn(std::vector<TraceEvent>& batch)
{
    if (batch.empty())
        return;
    sortTraceEvents(batch);
    try {
        handler(std::span<const TraceEvent>(batch.data(), batch.size()));
    } catch (...) {
        handlerErrors.fetch_add(1, std::memory_order_relaxed);
    }
    batches.fetch_add(1, std::memory_order_relaxed);
    batch.clear();
}

void TraceSession::State::drain(std::vector<TraceEvent>& batch, std::vector<uint8_t>& page, int64_t deadlineNs)
{
    for (Cpu& c : cpus) {
        for (int n = 0; n < kMaxSubBuffersPerDrain; ++n) {
            // Non-blocking: 0 when the CPU's buffer is empty. A partly filled sub-buffer comes back as it is, so an
            // event waits at most one poll period.
            const int got = tracefs_cpu_read(c.tcpu, page.data(), true);
            if (got < 0 && errno == EINTR)
                continue; // the stop request's wake signal; the drain goes on
            if (got <= 0)
                break;
            subBuffers.fetch_add(1, std::memory_order_relaxed);
            bytes.fetch_add(uint64_t(got), std::memory_order_relaxed);
            if (config.capture)
                config.capture->append(c.cpu, page.data(), size_t(got));
            const TraceDecoder::PageResult r = decoder->decode(page.data(), c.cpu, c.lastTs, batch);
            events.fetch_add(r.events, std::memory_order_relaxed);
            undecoded.fetch_add(r.undecoded, std::memory_order_relaxed);
            if (r.lost != 0) {
                lossReports.fetch_add(1, std::memory_order_relaxed);
                if (r.lost > 0)
                    lostEvents.fetch_add(uint64_t(r.lost), std::memory_order_relaxed);
            }
            if (batch.size() >= kBatchEvents)
                handOn(batch);
            if (nowNs() > deadlineNs)
                break;
        }
    }
    handOn(batch);
}

void TraceSession::State::readerLoop(const std::atomic<bool>& stop)
{
    std::vector<TraceEvent> batch;
    batch.reserve(kBatchEvents + 1024);
    std::vector<uint8_t> page(subBufferBytes);
    const timespec period = toTimespec(int64_t(config.pollMs) * kNsPerMs);
    while (!stop.load(std::memory_order_acquire)) {
        drain(batch, page, INT64_MAX);
        // RtThread::stop's wake signal ends the sleep early (EINTR).
        clock_nanosleep(CLOCK_MONOTONIC, 0, &period, nullptr);
    }
    // Recording is off by now (stop() turned it off first): hand on what is left, within half the join budget.
    drain(batch, page, nowNs() + kJoinBudgetMs / 2 * kNsPerMs);
}

Error TraceSession::State::teardown()
{
    Error result;
    if (instance)
        tracefs_trace_off(instance);
    const int64_t stopRequestNs = nowNs();
    reader.stop(kJoinBudgetMs); // joins even past the budget (demoted): never detached
    readerStopNs = nowNs() - stopRequestNs;
    if (instance && !cpus.empty()) {
        for (const Cpu& c : cpus) {
            auto s = sessionCpuStats(instance, c.cpu);
            kernelOverrun += s["overrun"];
            kernelDropped += s["dropped events"];
            unreadAtStop += s["entries"];
        }
    }
    for (Cpu& c : cpus)
        if (c.tcpu)
            tracefs_cpu_close(c.tcpu);
    cpus.clear();
    if (markerFd >= 0)
        close(markerFd);
    markerFd = -1;
    decoder.reset();
    if (tep)
        tep_free(tep);
    tep = nullptr;
    if (instance) {
        if (config.timerlatTracer)
            tracefs_tracer_clear(instance);
        // rmdir fails with EBUSY while anyone holds a file of the instance open (a reader of its trace_pipe):
        // give such a reader a moment.
        int err = 0;
        for (int attempt = 0; attempt < 20; ++attempt) {
            if (tracefs_instance_destroy(instance) == 0 || errno == ENOENT) {
                err = 0;
                break;
            }
            err = errno;
            if (err != EBUSY)
                break;
            const timespec ms{0, 1'000'000};
            nanosleep(&ms, nullptr);
        }
        if (err)
            result = {ErrorKind::System, "could not remove the trace instance " + dir + "/instances/" + name + ": " +
                                             sessionErrno(err) + " (remove it by hand: rmdir " + dir + "/instances/" +
                                             name + ")"};
        tracefs_instance_free(instance);
        instance = nullptr;
    }
    running = false;
    return result;
}

TraceSession::TraceSession()
    : m_state(std::make_unique<State>())
{}

TraceSession::~TraceSession()
{
    (void)stop(); // nothing to report to from a destructor; stop() has tried everything it can
}

TraceProbe TraceSession::probe(const std::string& tracingDir)
{
    TraceProbe p;
    p.kernelHasTracefs = sessionKernelHasTracefs();
    if (!tracingDir.empty()) {
        p.tracingDir = tracingDir;
        struct stat st {};
        if (stat(tracingDir.c_str(), &st) != 0) {
            const int err = errno;
            p.reason = err == EACCES ? sessionPermissionFix(tracingDir)
                                     : "no tracefs at " + tracingDir + ": " + sessionErrno(err) +
                                           ": mount it there (mount -t tracefs nodev " + tracingDir +
                                           ") or leave the tracing directory to rtscope (" + kDefaultTracingDir + ")";
            return p;
        }
        if (!sessionIsTracefs(tracingDir)) {
            p.reason = tracingDir + " is not a tracefs mount: mount it there (mount -t tracefs nodev " + tracingDir +
                       ") or leave the tracing directory to rtscope (" + kDefaultTracingDir + ")";
            return p;
        }
        sessionProbeMounted(p, tracingDir);
        return p;
    }
    if (!p.kernelHasTracefs) {
        p.reason = "this kernel has no tracefs (built without CONFIG_FTRACE): kernel tracing cannot work on it; a "
                   "distribution kernel has it";
        return p;
    }
    const std::string mounted = sessionFindMount();
    if (!mounted.empty()) {
        sessionProbeMounted(p, mounted);
        return p;
    }
    p.tracingDir = kDefaultTracingDir;
    if (sessionCanMount()) {
        p.usable = true;
        p.needsMount = true;
        p.reason = std::string("tracefs is not mounted: starting a trace mounts it at ") + kDefaultTracingDir;
    } else {
        p.reason = std::string("tracefs is not mounted: mount it as root: mount -t tracefs nodev ") +
                   kDefaultTracingDir + " (systemd: systemctl start sys-kernel-tracing.mount)";
    }
    return p;
}

int TraceSession::removeStaleInstances(const std::string& tracingDir)
{
    const std::string base = tracingDir + "/instances";
    DIR* d = opendir(base.c_str());
    if (!d)
        return 0;
    std::vector<std::string> stale;
    while (dirent* entry = readdir(d)) {
        int pid = 0, n = 0, used = 0;
        if (std::sscanf(entry->d_name, "rtscope-%d-%d%n", &pid, &n, &used) != 2 || entry->d_name[used] != '\0')
            continue;
        // Only a process that is gone: a live one (this one included) owns its instance. A pid from another pid
        // namespace that shares this tracefs would look gone; rtscope does not run across namespaces.
        if (pid > 0 && pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH)
            stale.push_back(base + "/" + entry->d_name);
    }
    closedir(d);
    int removed = 0;
    for (const std::string& path : stale)
        removed += rmdir(path.c_str()) == 0 ? 1 : 0;
    return removed;
}

Error TraceSession::start(const TraceConfig& config, const CpuTopology& topology, TraceBatchHandler onBatch)
{
    if (m_state->running)
        return {ErrorKind::InvalidConfig, "The trace session is already running; stop it first."};
    // What the config asks, before anything is created.
    std::vector<std::string> problems;
    if (!onBatch)
        problems.push_back("trace: no handler for the events");
    if (config.cpus.empty())
        problems.push_back("trace: no CPU to trace");
    for (int c : config.cpus)
        if (!topology.usable(c))
            problems.push_back("trace: CPU " + std::to_string(c) + " is not usable (usable: " + topology.usableText() +
                               ")");
    if (config.bufferKbPerCpu < 1)
        problems.push_back("trace: the buffer must be at least 1 KiB per CPU");
    if (config.pollMs < 1 || config.pollMs > 50)
        problems.push_back("trace: the poll period must be 1..50 ms (the reader must stop within " +
                           std::to_string(kJoinBudgetMs) + " ms)");
    if (!problems.empty())
        return {ErrorKind::InvalidConfig, joinErrors(problems)};

    m_state = std::make_unique<State>(); // a fresh run: the previous run's figures go
    State& s = *m_state;
    s.config = config;
    std::sort(s.config.cpus.begin(), s.config.cpus.end());
    s.config.cpus.erase(std::unique(s.config.cpus.begin(), s.config.cpus.end()), s.config.cpus.end());
    s.handler = std::move(onBatch);

    // Where tracefs is, mounting it when it is not (as libtracefs' own tracefs_tracing_dir() would, but never
    // falling back to mounting debugfs).
    {
        std::lock_guard lock(g_sessionMountMutex);
        TraceProbe p = probe(config.tracingDir);
        if (p.usable && p.needsMount && config.mountIfNeeded) {
            if (mount("nodev", kDefaultTracingDir, "tracefs", 0, nullptr) != 0) {
                const int err = errno;
                return {err == EPERM ? ErrorKind::Permission : ErrorKind::Unavailable,
                        std::string("tracefs is not mounted and mounting it at ") + kDefaultTracingDir + " failed: " +
                            sessionErrno(err) + ": mount it as root: mount -t tracefs nodev " + kDefaultTracingDir};
            }
            s.mounted = true;
            p = probe(config.tracingDir);
        } else if (p.needsMount) {
            p.usable = false;
            p.reason =
                std::string("tracefs is not mounted: mount it as root: mount -t tracefs nodev ") + kDefaultTracingDir;
        }
        if (!p.usable)
            return {p.kernelHasTracefs && p.reason.find("permission") != std::string::npos ? ErrorKind::Permission
                                                                                           : ErrorKind::Unavailable,
                    p.reason};
        s.dir = p.tracingDir;
    }
    (void)removeStaleInstances(s.dir); // best effort: an instance that cannot be removed is not ours to fail on

    // The instance. From here on every failure goes through teardown(), which removes it.
    for (int attempt = 0; attempt < 100; ++attempt) {
        s.name = "rtscope-" + std::to_string(getpid()) + "-" + std::to_string(g_sessionInstanceCounter.fetch_add(1));
        const std::string path = s.dir + "/instances/" + s.name;
        if (mkdir(path.c_str(), 0750) == 0)
            break;
        const int err = errno;
        s.name.clear();
        if (err != EEXIST)
            return {err == EACCES || err == EPERM ? ErrorKind::Permission : ErrorKind::System,
                    err == EACCES || err == EPERM
                        ? sessionPermissionFix(s.dir + "/instances")
                        : "could not create a trace instance in " + s.dir + "/instances: " + sessionErrno(err)};
    }
    if (s.name.empty())
        return {ErrorKind::System, "could not find a free trace instance name in " + s.dir + "/instances"};
    s.instance = tracefs_instance_alloc(s.dir.c_str(), s.name.c_str());
    if (!s.instance) {
        const std::string path = s.dir + "/instances/" + s.name;
        rmdir(path.c_str());
        return {ErrorKind::System, "libtracefs could not open the trace instance " + path};
    }
    auto fail = [&](const std::string& what, int err) -> Error {
        const std::string message = what + (err ? ": " + sessionErrno(err) : std::string());
        (void)s.teardown(); // the first error is the one to report
        return {err == EACCES || err == EPERM ? ErrorKind::Permission : ErrorKind::System, message};
    };
    auto write = [&](const char* file, const std::string& value) {
        return tracefs_instance_file_write(s.instance, file, value.c_str()) >= 0;
    };

    // A new instance records as soon as an event is enabled: keep it off until everything is set.
    if (!write("tracing_on", "0"))
        return fail("could not turn the trace instance off while setting it up", errno);
    if (!write("trace_clock", "mono"))
        return fail("could not set the instance's trace clock to mono", errno);
    {
        char* clock = tracefs_get_clock(s.instance);
        const bool mono = clock && std::string(clock) == "mono";
        free(clock);
        if (!mono)
            return fail("the instance's trace clock did not become mono", 0);
    }
    std::string cpuList;
    for (int c : s.config.cpus)
        cpuList += (cpuList.empty() ? "" : ",") + std::to_string(c);
    if (tracefs_instance_set_affinity(s.instance, cpuList.c_str()) < 0)
        return fail("could not limit the trace instance to CPU " + cpuList, errno);
    for (int c : s.config.cpus)
        if (tracefs_instance_set_buffer_size(s.instance, size_t(s.config.bufferKbPerCpu), c) < 0)
            return fail("could not size the trace buffer of CPU " + std::to_string(c) + " to " +
                            std::to_string(s.config.bufferKbPerCpu) + " KiB",
                        errno);
    // The CPUs not measured record nothing (cpumask): their buffers shrink to the least the kernel keeps.
    for (int c : topology.online)
        if (!std::binary_search(s.config.cpus.begin(), s.config.cpus.end(), c))
            (void)tracefs_instance_set_buffer_size(s.instance, 1, c);

    // The event formats, then the events.
    s.tep = sessionLoadFormats(s.dir);
    if (!s.tep)
        return fail("could not read the trace event formats under " + s.dir + "/events", errno);
    s.decoder = std::make_unique<TraceDecoder>(s.tep);
    for (const char* full : kTraceEvents) {
        const std::string name(full);
        const std::string system = name.substr(0, name.find('/'));
        const std::string event = name.substr(name.find('/') + 1);
        if (s.decoder->knows(system.c_str(), event.c_str()) &&
            tracefs_event_file_write(s.instance, system.c_str(), event.c_str(), "enable", "1") >= 0)
            s.enabled.push_back(name);
        else
            s.missing.push_back(name);
    }
    if (std::find(s.enabled.begin(), s.enabled.end(), "sched/sched_switch") == s.enabled.end())
        return fail("could not enable sched/sched_switch, which every anatomy needs", errno);
    if (s.config.timerlatTracer) {
        if (!tracefs_tracer_available(s.dir.c_str(), "timerlat") || !write("current_tracer", "timerlat")) {
            s.config.timerlatTracer = false;
            s.missing.push_back("timerlat tracer");
        }
    }

    // The readers of the measured CPUs' buffers, non-blocking, one sub-buffer at a time.
    s.subBufferBytes = size_t(std::max(tep_get_sub_buffer_size(s.tep), int(sysconf(_SC_PAGESIZE))));
    {
        long long kb = 0;
        if (tracefs_instance_file_read_number(s.instance, "buffer_subbuf_size_kb", &kb) == 0 && kb > 0)
            s.subBufferBytes = std::max(s.subBufferBytes, size_t(kb) * 1024);
    }
    for (int c : s.config.cpus) {
        const std::string file = "per_cpu/cpu" + std::to_string(c) + "/trace_pipe_raw";
        const int fd = tracefs_instance_file_open(s.instance, file.c_str(), O_RDONLY | O_NONBLOCK);
        if (fd < 0)
            return fail("could not open " + s.dir + "/instances/" + s.name + "/" + file, errno);
        tracefs_cpu* tcpu = tracefs_cpu_alloc_fd(fd, int(s.subBufferBytes), true);
        if (!tcpu) {
            close(fd);
            return fail("could not set up the reader of CPU " + std::to_string(c), errno);
        }
        s.cpus.push_back({c, tcpu, 0});
    }
    s.markerFd = tracefs_instance_file_open(s.instance, "trace_marker", O_WRONLY);
    if (s.config.capture)
        s.config.capture->begin(s.dir, s.config.cpus, s.subBufferBytes); // a failure is the capture's to report

    if (!write("tracing_on", "1"))
        return fail("could not turn the trace instance on", errno);

    // The reader, off the measured CPUs when there is another one.
    s.readerCpu = topology.otherThan(s.config.cpus);
    ThreadSpec spec;
    spec.policy = Policy::Other;
    spec.cpu = s.readerCpu;
    spec.name = "rtscope-trace";
    spec.lockStack = false; // not a real-time thread: a page fault costs it nothing that matters
    State* state = &s;
    if (Error e = s.reader.start(spec, [state](const std::atomic<bool>& stop) { state->readerLoop(stop); })) {
        (void)s.teardown();
        return e;
    }
    s.running = true;
    return Error::none();
}

Error TraceSession::stop()
{
    State& s = *m_state;
    if (!s.instance && !s.running)
        return Error::none();
    if (s.reader.running() && pid_t(syscall(SYS_gettid)) == s.reader.tid())
        return {ErrorKind::InvalidConfig,
                "TraceSession::stop() called from its own batch handler"}; // it would join itself
    return s.teardown();
}

bool TraceSession::running() const
{
    return m_state->running;
}

std::string TraceSession::instanceName() const
{
    return m_state->running ? m_state->name : std::string();
}

std::string TraceSession::instanceDir() const
{
    return m_state->running ? m_state->dir + "/instances/" + m_state->name : std::string();
}

std::string TraceSession::tracingDir() const
{
    return m_state->running ? m_state->dir : std::string();
}

bool TraceSession::mountedTracefs() const
{
    return m_state->mounted;
}

std::vector<std::string> TraceSession::enabledEvents() const
{
    return m_state->enabled;
}

std::vector<std::string> TraceSession::missingEvents() const
{
    return m_state->missing;
}

int TraceSession::readerCpu() const
{
    return m_state->readerCpu;
}

TraceStats TraceSession::stats() const
{
    const State& s = *m_state;
    TraceStats t;
    t.events = s.events.load(std::memory_order_relaxed);
    t.subBuffers = s.subBuffers.load(std::memory_order_relaxed);
    t.bytes = s.bytes.load(std::memory_order_relaxed);
    t.batches = s.batches.load(std::memory_order_relaxed);
    t.lostEvents = s.lostEvents.load(std::memory_order_relaxed);
    t.lossReports = s.lossReports.load(std::memory_order_relaxed);
    t.undecoded = s.undecoded.load(std::memory_order_relaxed);
    t.handlerErrors = s.handlerErrors.load(std::memory_order_relaxed);
    t.kernelOverrun = s.kernelOverrun;
    t.kernelDropped = s.kernelDropped;
    t.unreadAtStop = s.unreadAtStop;
    t.readerStopNs = s.readerStopNs;
    return t;
}

Error TraceSession::mark(std::string_view text)
{
    const State& s = *m_state;
    if (!s.running || s.markerFd < 0)
        return {ErrorKind::Unavailable, "the trace session is not running"};
    if (::write(s.markerFd, text.data(), text.size()) < 0) {
        const int err = errno;
        // The kernel answers EBADF when its buffer refuses the record: the writer's CPU is not traced.
        return {ErrorKind::Unavailable,
                err == EBADF ? "the trace marker was not recorded: the calling thread's CPU is not traced"
                             : std::string("could not write the trace marker: ") + sessionErrno(err)};
    }
    return Error::none();
}

std::string TraceSession::functionName(uint64_t address)
{
    // Text symbols only (t/T, w/W): an hrtimer callback is a function. Read once, on first use (some 100 ms).
    static std::once_flag once;
    static std::map<uint64_t, std::string> symbols;
    std::call_once(once, [] {
        std::ifstream in("/proc/kallsyms");
        std::string line;
        while (std::getline(in, line)) {
            char type = 0;
            char name[256];
            unsigned long long addr = 0;
            if (std::sscanf(line.c_str(), "%llx %c %255s", &addr, &type, name) != 3 || addr == 0)
                continue;
            if (type == 't' || type == 'T' || type == 'w' || type == 'W')
                symbols.emplace(addr, name);
        }
    });
    const auto it = symbols.find(address);
    return it == symbols.end() ? std::string() : it->second;
}

} // namespace rtscope
