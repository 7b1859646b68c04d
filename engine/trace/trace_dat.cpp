#include "engine/trace/trace_dat.h"

#include "engine/trace/tracecmd_api.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace rtscope {

namespace {

// trace-cmd's file versions: 6 is what every trace-cmd and KernelShark reads (7 adds sections and compression).
constexpr int kTraceDatFileVersion = 6;
constexpr int kTraceDatOpenNoPlugins = 1; // TRACECMD_FL_LOAD_NO_PLUGINS (trace-cmd.h)
constexpr size_t kTraceDatChunk = size_t(1) << 20;

std::string traceDatErrno(int err)
{
    return std::strerror(err);
}

// An anonymous file in @p dir: nothing is left behind, whatever ends the process.
int traceDatTemporary(const std::string& dir, int& err)
{
    const std::string base = dir.empty() ? std::filesystem::temp_directory_path().string() : dir;
    int fd = open(base.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        // A file system without O_TMPFILE: a named file, unlinked at once.
        std::string path = base + "/rtscope-trace-XXXXXX";
        fd = mkostemp(path.data(), O_CLOEXEC);
        if (fd >= 0)
            unlink(path.c_str());
    }
    err = fd < 0 ? errno : 0;
    return fd;
}

bool traceDatWriteAll(int fd, const void* data, size_t bytes)
{
    const auto* p = static_cast<const uint8_t*>(data);
    while (bytes > 0) {
        const ssize_t n = ::write(fd, p, bytes);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        bytes -= size_t(n);
    }
    return true;
}

} // namespace

TraceDatCapture::TraceDatCapture(std::string tempDir)
    : m_tempDir(std::move(tempDir))
{}

TraceDatCapture::~TraceDatCapture()
{
    for (const auto& [cpu, fd] : m_files)
        close(fd);
}

void TraceDatCapture::begin(const std::string& tracingDir, const std::vector<int>& cpus, size_t subBufferBytes)
{
    std::lock_guard lock(m_mutex);
    if (!m_error.empty())
        return;
    // A version 6 file holds the data in pages of the writer's page size; a kernel set to larger sub-buffers
    // (buffer_subbuf_size_kb) would give pages trace-cmd misreads.
    const size_t pageSize = size_t(sysconf(_SC_PAGESIZE));
    if (subBufferBytes != pageSize) {
        m_error = "the trace's sub-buffers are " + std::to_string(subBufferBytes) +
                  " bytes (buffer_subbuf_size_kb) and a trace-cmd file holds pages of " + std::to_string(pageSize) +
                  ": the raw trace cannot be written";
        return;
    }
    m_tracingDir = tracingDir;
    m_subBufferBytes = subBufferBytes;
    m_padded.assign(subBufferBytes, 0);
    for (int cpu : cpus) {
        if (m_files.count(cpu))
            continue;
        int err = 0;
        const int fd = traceDatTemporary(m_tempDir, err);
        if (fd < 0) {
            m_error = "could not create a temporary file for the raw trace in " +
                      (m_tempDir.empty() ? std::filesystem::temp_directory_path().string() : m_tempDir) + ": " +
                      traceDatErrno(err);
            return;
        }
        m_files[cpu] = fd;
    }
}

void TraceDatCapture::append(int cpu, const void* subBuffer, size_t bytes)
{
    std::lock_guard lock(m_mutex);
    if (!m_error.empty())
        return;
    const auto it = m_files.find(cpu);
    if (it == m_files.end() || bytes > m_subBufferBytes)
        return; // not a CPU begin() was given; cannot happen with the session's reader
    // trace-cmd reads whole pages: a partly filled sub-buffer (its header says how much is data) is padded.
    const void* page = subBuffer;
    if (bytes < m_subBufferBytes) {
        std::memcpy(m_padded.data(), subBuffer, bytes);
        std::fill(m_padded.begin() + std::ptrdiff_t(bytes), m_padded.end(), uint8_t(0));
        page = m_padded.data();
    }
    if (!traceDatWriteAll(it->second, page, m_subBufferBytes)) {
        m_error = "could not keep the raw trace of CPU " + std::to_string(cpu) +
                  " in its temporary file: " + traceDatErrno(errno);
        return;
    }
    ++m_subBuffers;
}

uint64_t TraceDatCapture::subBuffers() const
{
    std::lock_guard lock(m_mutex);
    return m_subBuffers;
}

Error TraceDatCapture::writeDat(const std::function<Error(std::string_view)>& sink) const
{
    std::lock_guard lock(m_mutex);
    if (!m_error.empty())
        return {ErrorKind::System, m_error};
    if (m_files.empty())
        return {ErrorKind::Unavailable, "no kernel trace was recorded (tracing did not start)"};

    // One data file per CPU up to the highest traced one; the CPUs not traced have none (/dev/null is empty).
    const int cpuCount = m_files.rbegin()->first + 1;
    std::vector<std::string> paths(size_t(cpuCount), "/dev/null");
    for (const auto& [cpu, fd] : m_files)
        paths[size_t(cpu)] = "/proc/self/fd/" + std::to_string(fd);
    std::vector<char*> files;
    for (std::string& p : paths)
        files.push_back(p.data());

    int err = 0;
    const int fd = traceDatTemporary(m_tempDir, err);
    if (fd < 0)
        return {ErrorKind::System, "could not create a temporary file for the .dat: " + traceDatErrno(err)};
    const int outFd = dup(fd); // libtracecmd closes the one it is given
    tracecmd_output* out = outFd >= 0 ? tracecmd_output_create_fd(outFd) : nullptr;
    if (!out) {
        if (outFd >= 0)
            close(outFd);
        close(fd);
        return {ErrorKind::System, "libtracecmd could not start a .dat file"};
    }
    tracecmd_set_quiet(out, true);
    // libtracecmd warns on stderr that the top-level buffer has no "buffer" option, which a version 6 file without
    // instances does not need; its errors still show, and every step's result is checked below.
    tracecmd_set_loglevel(TEP_LOG_ERROR);
    const char* step = nullptr;
    // The headers come from the tracefs the session used: the event formats, header_page, kernel symbols, printk
    // formats and the saved command lines (all read, nothing written there).
    if (tracecmd_output_set_trace_dir(out, m_tracingDir.c_str()) < 0)
        step = "use the tracing directory";
    else if (tracecmd_output_set_version(out, kTraceDatFileVersion) < 0)
        step = "choose file version 6";
    else {
        tracecmd_set_out_clock(out, "mono"); // the session's trace clock (trace_session.h), not the top level's
        if (tracecmd_output_write_headers(out, nullptr) < 0)
            step = "write the event formats";
        else if (tracecmd_write_cmdlines(out) < 0)
            step = "write the command lines";
        else if (tracecmd_write_cpus(out, cpuCount) < 0)
            step = "write the CPU count";
        else if (tracecmd_write_options(out) < 0)
            step = "write the options";
        else if (tracecmd_write_cpu_data(out, cpuCount, files.data(), nullptr) < 0)
            step = "write the trace data";
    }
    const int stepErr = errno;
    tracecmd_output_close(out);
    if (step) {
        close(fd);
        return {ErrorKind::System, std::string("libtracecmd could not ") + step + " of the .dat file" +
                                       (stepErr ? ": " + traceDatErrno(stepErr) : std::string())};
    }

    // Handed on in pieces: a long run's trace is not held in memory.
    std::vector<char> chunk(kTraceDatChunk);
    off_t offset = 0;
    for (;;) {
        const ssize_t n = pread(fd, chunk.data(), chunk.size(), offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int readErr = errno;
            close(fd);
            return {ErrorKind::System, "could not read back the .dat file: " + traceDatErrno(readErr)};
        }
        if (n == 0)
            break;
        if (Error e = sink(std::string_view(chunk.data(), size_t(n)))) {
            close(fd);
            return e;
        }
        offset += n;
    }
    close(fd);
    return Error::none();
}

TraceDatContents readTraceDat(const std::string& path)
{
    TraceDatContents c;
    tracecmd_input* in = tracecmd_open(path.c_str(), kTraceDatOpenNoPlugins);
    if (!in) {
        c.error = "libtracecmd could not open " + path;
        return c;
    }
    tep_handle* tep = tracecmd_get_tep(in);
    c.cpus = tracecmd_cpus(in);
    for (int cpu = 0; cpu < c.cpus; ++cpu) {
        while (tep_record* record = tracecmd_read_data(in, cpu)) {
            ++c.events;
            if (tep_event* event = tep_find_event_by_record(tep, record))
                ++c.byName[std::string(event->system) + "/" + event->name];
            tracecmd_free_record(record);
        }
    }
    tracecmd_close(in);
    return c;
}

} // namespace rtscope
