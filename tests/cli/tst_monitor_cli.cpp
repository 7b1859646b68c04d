// `rtscope monitor` end to end with the real binary and the real engine: refusals (the address, a non-loopback
// address without --metrics-listen-any, a busy port), two scrapes of /metrics whose counters grow and whose histogram
// agrees with itself, scrapers that misbehave (a slow client, a half-closed socket, a reset, a 1 MB request line,
// 210 idle connections, other methods, garbage) while the measurement goes on, gauges no scrape resets, and a real
// Prometheus scraping it, queried through its HTTP API, that sees a counter
// reset when the monitor restarts. Every child is stopped on every exit path (MonitorTestChild's destructor).
#include "tests/common/cli_process.h"
#include "tests/common/loopback_port.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"

#include "tests/common/test_main.h"
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QUrl>

#include <QtTest>
#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <map>
#include <memory>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <poll.h>
#include <sstream>
#include <string>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <thread>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::test;

namespace {

using MonitorClock = std::chrono::steady_clock;

// A connected socket to 127.0.0.1:@p port, or -1.
int monitorConnect(int port)
{
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(uint16_t(port));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

bool monitorSendAll(int fd, const std::string& data)
{
    size_t sent = 0;
    while (sent < data.size()) {
        const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        sent += size_t(n);
    }
    return true;
}

// Everything the peer sends until it closes, or until @p timeoutMs pass.
std::string monitorReadAll(int fd, int timeoutMs)
{
    std::string out;
    const auto end = MonitorClock::now() + std::chrono::milliseconds(timeoutMs);
    char buf[65536];
    while (MonitorClock::now() < end) {
        pollfd p{fd, POLLIN, 0};
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - MonitorClock::now()).count();
        if (poll(&p, 1, int(std::max<long long>(left, 1))) <= 0)
            break;
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
            break;
        out.append(buf, size_t(n));
    }
    return out;
}

struct MonitorHttpReply {
    int status = 0; ///< 0: no reply
    std::string headers;
    std::string body;
};

// @p request sent as it is on a new connection; the reply, read until the server closes.
MonitorHttpReply monitorRaw(int port, const std::string& request, int timeoutMs = 5000)
{
    MonitorHttpReply r;
    const int fd = monitorConnect(port);
    if (fd < 0)
        return r;
    const std::string raw = monitorSendAll(fd, request) ? monitorReadAll(fd, timeoutMs) : std::string();
    close(fd);
    const size_t split = raw.find("\r\n\r\n");
    if (raw.rfind("HTTP/1.1 ", 0) != 0 || split == std::string::npos)
        return r;
    r.status = std::stoi(raw.substr(9, 3));
    r.headers = raw.substr(0, split);
    r.body = raw.substr(split + 4);
    return r;
}

MonitorHttpReply monitorHttp(int port, const std::string& method, const std::string& target, int timeoutMs = 5000)
{
    return monitorRaw(
        port, method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        timeoutMs);
}

// Whether the server has closed @p fd (a read gives end of file or a reset) within @p timeoutMs.
bool monitorClosedByServer(int fd, int timeoutMs)
{
    const std::string got = monitorReadAll(fd, timeoutMs); // returns at the close, or after the timeout
    pollfd p{fd, POLLIN, 0};
    char c;
    return poll(&p, 1, 0) > 0 && ::recv(fd, &c, 1, MSG_DONTWAIT) <= 0 && got.find("200 OK") == std::string::npos;
}

// "name{labels}" → value for every sample line of an exposition.
std::map<std::string, double> monitorParse(const std::string& text)
{
    std::map<std::string, double> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        const size_t space = line.rfind(' ');
        const std::string value = line.substr(space + 1);
        out[line.substr(0, space)] = value == "NaN" ? NAN : std::stod(value);
    }
    return out;
}

/// A child (rtscope monitor, prometheus) stopped with SIGTERM, then SIGKILL, whenever the test leaves its scope.
class MonitorTestChild {
public:
    MonitorTestChild(const QString& program, const QStringList& args)
    {
        m_process.setProgram(program);
        m_process.setArguments(args);
        m_process.start();
        m_process.waitForStarted(5000);
    }
    ~MonitorTestChild() { stop(); }

    /// SIGTERM and up to 5 s for it to exit; the exit code, or -1 when it crashed or had to be killed.
    int stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
        ::kill(pid_t(m_process.processId()), SIGTERM);
        if (!m_process.waitForFinished(5000)) {
            m_process.kill();
            m_process.waitForFinished(2000);
            return -1;
        }
        return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
    }
    bool running() const { return m_process.state() == QProcess::Running; }
    /// What it printed so far (all of it once stopped).
    QString out()
    {
        m_process.waitForReadyRead(0); // take in what the pipe holds
        return m_stdout += QString::fromUtf8(m_process.readAllStandardOutput());
    }
    QString err()
    {
        m_process.waitForReadyRead(0);
        return m_stderr += QString::fromUtf8(m_process.readAllStandardError());
    }

    /// Waits until 127.0.0.1:@p port answers @p path with 200 (or the child exits): whether it did.
    bool waitForHttp(int port, const std::string& path, int timeoutMs)
    {
        const auto end = MonitorClock::now() + std::chrono::milliseconds(timeoutMs);
        while (MonitorClock::now() < end && running()) {
            if (monitorHttp(port, "GET", path, 2000).status == 200)
                return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return false;
    }

private:
    QProcess m_process;
    QString m_stdout, m_stderr;
};

} // namespace

class TestMonitorCli : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

    // The monitor as the tests run it: 1 kHz on the default CPU, FIFO where this machine allows it (other tests may
    // load CPUs with real-time spinners meanwhile), the endpoint on @p port.
    QStringList monitorArgs(int port) const
    {
        QStringList args{"monitor", "--metrics-listen", QString("127.0.0.1:%1").arg(port)};
        if (m_probe.rtAvailable)
            args << "-p"
                 << "50";
        return args;
    }

    // Scrapes until a samples counter is above 0 (the first figures are published 0.1 s after the start).
    static std::map<std::string, double> scrapeWithSamples(int port, QString* why)
    {
        const auto end = MonitorClock::now() + std::chrono::seconds(5);
        std::map<std::string, double> m;
        while (MonitorClock::now() < end) {
            m = scrape(port, why);
            for (const auto& [key, value] : m)
                if (key.rfind("rtscope_samples_total{", 0) == 0 && value > 0)
                    return m;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        *why = "no sample scraped within 5 s";
        return m;
    }

    static std::map<std::string, double> scrape(int port, QString* why)
    {
        const MonitorHttpReply r = monitorHttp(port, "GET", "/metrics");
        if (r.status != 200) {
            *why = QString("scrape: status %1").arg(r.status);
            return {};
        }
        if (r.headers.find("application/openmetrics-text; version=1.0.0") == std::string::npos)
            *why = "scrape: not served as OpenMetrics: " + QString::fromStdString(r.headers);
        if (r.body.size() < 6 || r.body.substr(r.body.size() - 6) != "# EOF\n")
            *why = "scrape: no # EOF at the end";
        return monitorParse(r.body);
    }

    // The histogram of @p cpu agrees with itself and with the counter: +Inf == _count == samples, cumulative buckets.
    static QString histogramProblem(const std::map<std::string, double>& m, const std::string& cpu)
    {
        const std::string l = "{cpu=\"" + cpu + "\"";
        const auto get = [&](const std::string& key) -> std::optional<double> {
            const auto it = m.find(key);
            return it == m.end() ? std::nullopt : std::optional<double>(it->second);
        };
        const auto inf = get("rtscope_wakeup_latency_seconds_bucket" + l + ",le=\"+Inf\"}");
        const auto count = get("rtscope_wakeup_latency_seconds_count" + l + "}");
        const auto samples = get("rtscope_samples_total" + l + "}");
        if (!inf || !count || !samples || !get("rtscope_wakeup_latency_seconds_sum" + l + "}") ||
            !get("rtscope_skipped_periods_total" + l + "}") || !get("rtscope_dropped_samples_total" + l + "}") ||
            !get("rtscope_wakeup_latency_max_seconds" + l + "}"))
            return QString::fromStdString("a family is missing for cpu " + cpu);
        if (*inf != *count || *count != *samples)
            return QString("+Inf %1, _count %2, samples %3 differ").arg(*inf).arg(*count).arg(*samples);
        double last = 0;
        int buckets = 0;
        for (const auto& [key, value] : m)
            if (key.rfind("rtscope_wakeup_latency_seconds_bucket" + l, 0) == 0 &&
                key.find("+Inf") == std::string::npos) {
                ++buckets;
                if (value > *inf)
                    return QString::fromStdString(key + " exceeds +Inf");
                last = std::max(last, value);
            }
        if (buckets != 51)
            return QString("%1 finite buckets, not 51").arg(buckets);
        return {};
    }

    // A Prometheus HTTP API query (instant); the "result" array, or null with @p why set.
    static nlohmann::json promQuery(int port, const QString& query, QString* why)
    {
        const std::string target = "/api/v1/query?query=" + QUrl::toPercentEncoding(query).toStdString();
        const MonitorHttpReply r = monitorHttp(port, "GET", target);
        const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
        if (r.status != 200 || j.is_discarded() || j.value("status", "") != "success") {
            *why = QString("query %1: status %2, %3").arg(query).arg(r.status).arg(QString::fromStdString(r.body));
            return nullptr;
        }
        return j["data"]["result"];
    }
    // The value of the first series of an instant query, NaN when there is none.
    static double promScalar(int port, const QString& query, QString* why)
    {
        const nlohmann::json result = promQuery(port, query, why);
        if (!result.is_array() || result.empty())
            return NAN;
        return std::stod(result[0]["value"][1].get<std::string>());
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope");
        m_probe = probeSystem();
    }

    void helpListsTheFlags()
    {
        const QStringList missing =
            missingFromHelp({"monitor"}, {"--metrics-listen", "--metrics-listen-any", "--cpus", "--policy",
                                          "--priority", "--period", "--hogs", "127.0.0.1:9464"});
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(", ")));
    }

    void refusesBadInput()
    {
        for (const auto& [args, expected] : std::vector<std::pair<QStringList, QString>>{
                 {{"--metrics-listen", "localhost"}, "metrics-listen: 'localhost' is not an address and port"},
                 {{"--metrics-listen", "127.0.0.1:70000"}, "metrics-listen: '127.0.0.1:70000'"},
                 {{"--metrics-listen", "127.0.0.1:"}, "metrics-listen"},
                 {{"--metrics-listen", "[::1]9464"}, "metrics-listen"},
                 {{"--metrics-listen", "0.0.0.0:9464"}, "--metrics-listen-any"},
                 {{"--period", "5us"}, "period"},
                 {{"--hogs", "1000"}, "hogs"},
                 {{"--cpus", "x"}, "cpus: 'x'"},
                 {{"--noise-cpus", "x"}, "noise-cpus: 'x' is not a CPU list"},
                 {{"-a", "1", "--noise-cpus", "1"}, "noise-cpus: CPU 1 is a latency measuring CPU"},
                 {{"--noise-cpus", "4000"}, "noise-cpus: "},
             }) {
            const QString problem = refusalProblem(QStringList{"monitor"} + args, expected);
            QVERIFY2(problem.isEmpty(), qPrintable(args.join(' ') + ": " + problem));
        }
    }

    void busyPortIsRefusedNamingTheFlag()
    {
        const int fd = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        QVERIFY(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && listen(fd, 1) == 0);
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        const Run r = run({"monitor", "--metrics-listen", QString("127.0.0.1:%1").arg(ntohs(a.sin_port))}, 10000);
        close(fd);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("metrics-listen") && r.err.contains("in use"), qPrintable(r.err));
        QVERIFY2(r.out.isEmpty(), qPrintable("measured anyway: " + r.out)); // bound before anything is measured
    }

    void nonLoopbackWarnsWhenAskedFor()
    {
        const int port = rtscope::test::freeLoopbackPort();
        MonitorTestChild m(binary(),
                           {"monitor", "--metrics-listen", QString("0.0.0.0:%1").arg(port), "--metrics-listen-any"});
        QVERIFY2(m.waitForHttp(port, "/metrics", 5000), qPrintable(m.err()));
        QCOMPARE(m.stop(), 0);
        QVERIFY2(m.err().contains("warning") && m.err().contains("not a loopback address"), qPrintable(m.err()));
    }

    // The packaged systemd unit's ExecStart, as written (on another port): it starts and serves.
    void systemdUnitCommandRuns()
    {
        QFile unit(QStringLiteral(QT_TESTCASE_SOURCEDIR) + "/../packaging/systemd/rtscope-monitor.service");
        QVERIFY(unit.open(QIODevice::ReadOnly));
        QString exec;
        for (const QString& line : QString::fromUtf8(unit.readAll()).split('\n'))
            if (line.startsWith("ExecStart=/usr/bin/rtscope "))
                exec = line.mid(int(qstrlen("ExecStart=/usr/bin/rtscope ")));
        QVERIFY2(exec.contains("monitor") && exec.contains("--metrics-listen 127.0.0.1:9464"), qPrintable(exec));
        if (!m_probe.rtAvailable && exec.contains("-p "))
            RTSCOPE_SKIP(RtPrivilege, "the unit asks for SCHED_FIFO, which is not permitted here");
        const int port = rtscope::test::freeLoopbackPort();
        exec.replace("127.0.0.1:9464", QString("127.0.0.1:%1").arg(port));
        MonitorTestChild m(binary(), exec.split(' ', Qt::SkipEmptyParts));
        QVERIFY2(m.waitForHttp(port, "/metrics", 5000), qPrintable(m.err()));
        QCOMPARE(m.stop(), 0);
    }

    void scrapesGrowAndAgree()
    {
        const int port = rtscope::test::freeLoopbackPort();
        MonitorTestChild m(binary(), monitorArgs(port));
        QVERIFY2(m.waitForHttp(port, "/metrics", 5000), qPrintable(m.err()));
        QString why;
        const auto first = scrapeWithSamples(port, &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        const auto second = scrape(port, &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));

        // The CPU measured: the one the samples counter names.
        std::string cpu;
        for (const auto& [key, value] : second)
            if (key.rfind("rtscope_samples_total{cpu=\"", 0) == 0)
                cpu = key.substr(27, key.find('"', 27) - 27);
        QVERIFY2(!cpu.empty(), "no samples counter");
        const std::string samplesKey = "rtscope_samples_total{cpu=\"" + cpu + "\"}";
        QVERIFY2(first.at(samplesKey) > 0, "no sample in the first scrape");
        QVERIFY2(second.at(samplesKey) > first.at(samplesKey),
                 qPrintable(QString("samples %1 then %2").arg(first.at(samplesKey)).arg(second.at(samplesKey))));
        for (const auto* m2 : {&first, &second}) {
            const QString problem = histogramProblem(*m2, cpu);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        // The max of the interval is a latency in range (or NaN when nothing came in, not here at 1 kHz).
        const double max = second.at("rtscope_wakeup_latency_max_seconds{cpu=\"" + cpu + "\"}");
        QVERIFY2(max > 0 && max < 10, qPrintable(QString::number(max)));
        // The info metric names this kernel.
        utsname u{};
        uname(&u);
        bool infoFound = false;
        for (const auto& [key, value] : second)
            if (key.rfind("rtscope_monitor_info{", 0) == 0) {
                infoFound = value == 1 && key.find("kernel=\"" + std::string(u.release) + "\"") != std::string::npos &&
                            key.find("preempt=\"") != std::string::npos;
            }
        QVERIFY(infoFound);

        // Read-only: another path is 404, another method on /metrics 405.
        QCOMPARE(monitorHttp(port, "GET", "/").status, 404);
        QCOMPARE(monitorHttp(port, "GET", "/metrics/../admin").status, 404);
        QCOMPARE(monitorHttp(port, "POST", "/metrics").status, 405);
        QCOMPARE(monitorHttp(port, "DELETE", "/metrics").status, 405);

        QCOMPARE(m.stop(), 0);
        QVERIFY2(m.out().contains("Summary:"), qPrintable(m.out()));
    }

    // The noise lab beside the measurement: its families for its CPU, its noise no larger than its runtime, the
    // kinds adding up to it, the available ratio what the two say.
    void noiseCpusServeTheNoiseFamilies()
    {
        const std::vector<int> allowed = rtscope::CpuTopology::current().allowed;
        if (allowed.size() < 2)
            RTSCOPE_SKIP(Cpus, "the noise lab needs a CPU other than the measuring one");
        const std::string latencyCpu = std::to_string(allowed.back()), noiseCpu = std::to_string(allowed.front());
        const int port = rtscope::test::freeLoopbackPort();
        MonitorTestChild m(binary(), monitorArgs(port) << "-a" << QString::fromStdString(latencyCpu) << "--noise-cpus"
                                                       << QString::fromStdString(noiseCpu));
        QVERIFY2(m.waitForHttp(port, "/metrics", 5000), qPrintable(m.err()));
        QString why;
        scrapeWithSamples(port, &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        const auto s = scrape(port, &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));
        const std::string l = "{cpu=\"" + noiseCpu + "\"";
        const auto get = [&](const std::string& key) {
            const auto it = s.find(key);
            return it == s.end() ? NAN : it->second;
        };
        const double runtime = get("rtscope_noise_runtime_seconds_total" + l + "}");
        const double noise = get("rtscope_noise_seconds_total" + l + "}");
        const double available = get("rtscope_noise_available_ratio" + l + "}");
        QVERIFY2(runtime > 0.3 && runtime < 60, qPrintable(QString::number(runtime)));
        QVERIFY2(noise >= 0 && noise <= runtime, qPrintable(QString("%1 of %2").arg(noise).arg(runtime)));
        QVERIFY2(std::abs(available - (runtime - noise) / runtime) < 1e-3, qPrintable(QString::number(available)));
        QVERIFY(get("rtscope_noise_max_single_seconds" + l + "}") >= 0);
        QCOMPARE(get("rtscope_noise_dropped_gaps_total" + l + "}"), 0.0);
        double kinds = 0;
        for (const char* kind : {"irq", "softirq", "nmi", "thread", "unexplained", "untraced"}) {
            const double k = get("rtscope_noise_kind_seconds_total" + l + ",kind=\"" + kind + "\"}");
            QVERIFY2(k >= 0, kind);
            kinds += k;
        }
        QVERIFY2(std::abs(kinds - noise) < 1e-6, qPrintable(QString("kinds %1, noise %2").arg(kinds).arg(noise)));
        // The latency families are still there, for the other CPU only.
        QVERIFY(!std::isnan(get("rtscope_samples_total{cpu=\"" + latencyCpu + "\"}")));
        QVERIFY(std::isnan(get("rtscope_samples_total" + l + "}")));
        QCOMPARE(m.stop(), 0);
        QVERIFY2(m.out().contains(QString::fromStdString("noise CPU " + noiseCpu + ":")), qPrintable(m.out()));
    }

    void misbehavingScrapersDoNotStopTheMeasurement()
    {
        const int port = rtscope::test::freeLoopbackPort();
        MonitorTestChild m(binary(), monitorArgs(port));
        QVERIFY2(m.waitForHttp(port, "/metrics", 5000), qPrintable(m.err()));
        QString why;
        const auto before = scrapeWithSamples(port, &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));

        // Two slow clients: half a request line, then nothing (the server waits on them beside every other
        // connection, and closes them when their request's 2 s are up).
        const int slow = monitorConnect(port);
        QVERIFY(slow >= 0 && monitorSendAll(slow, "GET /metr"));
        const int slow2 = monitorConnect(port);
        QVERIFY(slow2 >= 0 && monitorSendAll(slow2, "GET /metrics HTTP/1.1\r\nHo"));
        // A half-closed socket: the request cut short, then the client's write side shut.
        const int half = monitorConnect(port);
        QVERIFY(half >= 0 && monitorSendAll(half, "GET /metrics HTTP/1.1\r\nHost: x\r\n"));
        shutdown(half, SHUT_WR);
        // A reset while the reply is written: the request, then close with SO_LINGER 0 (an RST).
        const int reset = monitorConnect(port);
        QVERIFY(reset >= 0 && monitorSendAll(reset, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
        linger lin{1, 0};
        setsockopt(reset, SOL_SOCKET, SO_LINGER, &lin, sizeof lin);
        close(reset);
        // A 1 MB request line.
        const int huge = monitorConnect(port);
        QVERIFY(huge >= 0);
        const bool hugeSent = monitorSendAll(huge, "GET /" + std::string(1 << 20, 'a') + " HTTP/1.1\r\n\r\n");
        const std::string hugeReply = monitorReadAll(huge, 5000);
        close(huge);
        // Refused (414 URI Too Long, or 400) or cut off; never served.
        QVERIFY2(hugeReply.empty() || hugeReply.rfind("HTTP/1.1 414 ", 0) == 0 ||
                     hugeReply.rfind("HTTP/1.1 400 ", 0) == 0,
                 hugeReply.c_str());
        Q_UNUSED(hugeSent); // the server may close before the whole megabyte is read

        // A good scrape still gets through, and the measurement went on meanwhile (the figures are published ten
        // times a second, and a scrape now comes at once: scrape until a newer publication shows, for up to 2 s).
        std::string samplesKey;
        for (const auto& [key, value] : before)
            if (key.rfind("rtscope_samples_total{", 0) == 0)
                samplesKey = key;
        QVERIFY(!samplesKey.empty());
        std::map<std::string, double> after;
        for (int i = 0; i < 20 && (after.empty() || after.at(samplesKey) <= before.at(samplesKey)); ++i) {
            if (i > 0)
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            after = scrape(port, &why);
            QVERIFY2(why.isEmpty(), qPrintable(why));
            QVERIFY(after.count(samplesKey));
        }
        close(slow);
        close(slow2);
        close(half);
        QVERIFY(m.running());
        QVERIFY2(after.at(samplesKey) > before.at(samplesKey),
                 qPrintable(QString("samples %1 then %2").arg(before.at(samplesKey)).arg(after.at(samplesKey))));
        QCOMPARE(m.stop(), 0);
    }

    // 200 idle connections and ten with half a request (all from this address, as one hostile local user makes
    // them) do not slow a scrape down: each is answered before a request's own 2 s budget could have run out for
    // any of them. The server keeps at most 64 of one client's connections (the oldest unfinished closed first) and
    // closes each unfinished request after its 2 s.
    void idleConnectionsDoNotDelayScrapes()
    {
        const int port = rtscope::test::freeLoopbackPort();
        MonitorTestChild m(binary(), monitorArgs(port));
        QVERIFY2(m.waitForHttp(port, "/metrics", 5000), qPrintable(m.err()));
        std::vector<int> idle;
        for (int i = 0; i < 200; ++i)
            idle.push_back(monitorConnect(port));
        for (int i = 0; i < 10; ++i) {
            idle.push_back(monitorConnect(port));
            QVERIFY(idle.back() >= 0 && monitorSendAll(idle.back(), "GET /metr"));
        }
        QVERIFY(std::all_of(idle.begin(), idle.end(), [](int fd) { return fd >= 0; }));
        double slowestMs = 0;
        for (int i = 0; i < 5; ++i) {
            const auto t0 = MonitorClock::now();
            QString why;
            scrape(port, &why);
            QVERIFY2(why.isEmpty(), qPrintable(why));
            slowestMs =
                std::max(slowestMs, std::chrono::duration<double, std::milli>(MonitorClock::now() - t0).count());
        }
        qInfo("5 scrapes with 210 idle or half-sent connections open: the slowest took %.1f ms", slowestMs);
        QVERIFY2(slowestMs < 2000, qPrintable(QString::number(slowestMs)));
        // The per-client bound: the older ones were closed to make room; at most 64 of them are still open.
        int open = 0;
        for (int fd : idle)
            open += !monitorClosedByServer(fd, 0);
        QVERIFY2(open <= 64, qPrintable(QString("%1 of 210 still open").arg(open)));
        // The request budget: after it, none is left.
        std::this_thread::sleep_for(std::chrono::milliseconds(2500));
        open = 0;
        for (int fd : idle) {
            open += !monitorClosedByServer(fd, 1000);
            close(fd);
        }
        QCOMPARE(open, 0);
        QCOMPARE(m.stop(), 0);
    }

    // What is not GET or HEAD of /metrics: every other method on /metrics 405 with Allow (TRACE and CONNECT
    // included), other paths 404, anything that is not an HTTP/1.x request 400, at once.
    void methodsPathsAndGarbage()
    {
        const int port = rtscope::test::freeLoopbackPort();
        MonitorTestChild m(binary(), monitorArgs(port));
        QVERIFY2(m.waitForHttp(port, "/metrics", 5000), qPrintable(m.err()));
        for (const char* method : {"TRACE", "CONNECT", "OPTIONS", "PUT", "PATCH", "BREW"}) {
            const MonitorHttpReply r = monitorHttp(port, method, "/metrics");
            QVERIFY2(r.status == 405, method);
            QVERIFY2(r.headers.find("Allow: GET, HEAD") != std::string::npos, r.headers.c_str());
        }
        QCOMPARE(monitorHttp(port, "CONNECT", "127.0.0.1:22").status, 404);
        const MonitorHttpReply head = monitorHttp(port, "HEAD", "/metrics");
        QCOMPARE(head.status, 200);
        QVERIFY2(head.body.empty() && head.headers.find("Content-Length: ") != std::string::npos, head.headers.c_str());
        QCOMPARE(monitorRaw(port, "GET /metrics?x=1 HTTP/1.0\r\n\r\n").status, 200);
        const auto t0 = MonitorClock::now();
        for (const std::string& garbage :
             {std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11), std::string("hello\r\n\r\n"),
              std::string("GET /metrics\r\n\r\n"), std::string("GET /metrics HTTP/2.0\r\n\r\n"),
              std::string("GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n"), std::string("GET\x01 / HTTP/1.1\r\n")}) {
            const MonitorHttpReply r = monitorRaw(port, garbage);
            QVERIFY2(r.status == 400, qPrintable(QString::fromStdString(garbage).toHtmlEscaped()));
        }
        // Refused as it came, not after a request's 2 s: six refusals well within one budget.
        const double refusedMs = std::chrono::duration<double, std::milli>(MonitorClock::now() - t0).count();
        QVERIFY2(refusedMs < 2000, qPrintable(QString::number(refusedMs)));
        QCOMPARE(m.stop(), 0);
    }

    // No scrape resets a gauge: the max since the start never goes down from one scrape to the next, whoever
    // scrapes, and the recent max (the last 60 s) is there too, at most the max.
    void maxGaugesAreNotResetByScrapes()
    {
        const int port = rtscope::test::freeLoopbackPort();
        MonitorTestChild m(binary(), monitorArgs(port));
        QVERIFY2(m.waitForHttp(port, "/metrics", 5000), qPrintable(m.err()));
        QString why;
        auto last = scrapeWithSamples(port, &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));
        std::string cpu;
        for (const auto& [key, value] : last)
            if (key.rfind("rtscope_samples_total{cpu=\"", 0) == 0)
                cpu = key.substr(27, key.find('"', 27) - 27);
        const std::string maxKey = "rtscope_wakeup_latency_max_seconds{cpu=\"" + cpu + "\"}";
        const std::string recentKey = "rtscope_wakeup_latency_recent_max_seconds{cpu=\"" + cpu + "\"}";
        for (int i = 0; i < 5; ++i) {
            const auto next = scrape(port, &why); // back to back: the old gauge held only these few ms
            QVERIFY2(why.isEmpty(), qPrintable(why));
            QVERIFY2(next.count(maxKey), "the max gauge is missing");
            QVERIFY2(next.at(maxKey) >= last.at(maxKey),
                     qPrintable(QString("max %1 then %2").arg(last.at(maxKey)).arg(next.at(maxKey))));
            QVERIFY2(next.count(recentKey), "the recent max gauge is missing");
            QVERIFY2(next.at(recentKey) > 0 && next.at(recentKey) <= next.at(maxKey),
                     qPrintable(QString("recent %1, max %2").arg(next.at(recentKey)).arg(next.at(maxKey))));
            last = next;
        }
        QCOMPARE(m.stop(), 0);
    }

    void prometheusScrapesAndSeesTheRestart()
    {
        const QString prometheus = "/usr/bin/prometheus";
        if (!QFile::exists(prometheus))
            RTSCOPE_SKIP(Tool, "no /usr/bin/prometheus here (scripts/deps test installs Debian's prometheus)");
        const int port = rtscope::test::freeLoopbackPort();
        const int promPort = rtscope::test::freeLoopbackPort();
        QVERIFY(port > 0 && promPort > 0 && port != promPort);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        {
            QFile cfg(dir.filePath("prometheus.yml"));
            QVERIFY(cfg.open(QIODevice::WriteOnly));
            cfg.write(QString("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
                              "scrape_configs:\n  - job_name: rtscope\n    static_configs:\n"
                              "      - targets: ['127.0.0.1:%1']\n")
                          .arg(port)
                          .toUtf8());
        }
        auto monitor = std::make_unique<MonitorTestChild>(binary(), monitorArgs(port));
        QVERIFY2(monitor->waitForHttp(port, "/metrics", 5000), qPrintable(monitor->err()));
        MonitorTestChild prom(prometheus,
                              {"--config.file=" + dir.filePath("prometheus.yml"),
                               "--storage.tsdb.path=" + dir.filePath("data"),
                               QString("--web.listen-address=127.0.0.1:%1").arg(promPort), "--log.level=warn"});
        QVERIFY2(prom.waitForHttp(promPort, "/-/ready", 15000), qPrintable(prom.err()));

        QString why;
        // Two scrapes of the first monitor.
        const auto waitFor = [&](const QString& query, auto&& ok, int timeoutMs) {
            const auto end = MonitorClock::now() + std::chrono::milliseconds(timeoutMs);
            double v = NAN;
            while (MonitorClock::now() < end) {
                v = promScalar(promPort, query, &why);
                if (ok(v))
                    return v;
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
            }
            return v;
        };
        const double scrapes = waitFor(
            "count_over_time(rtscope_samples_total[1m])", [](double v) { return v >= 2; }, 10000);
        QVERIFY2(scrapes >= 2, qPrintable(QString("%1 scrapes; %2 %3").arg(scrapes).arg(why, prom.err())));

        // The sample counter as Prometheus has it, against the monitor's own now: behind it by at most what one
        // scrape interval (1 s) and this query's time take at 1 kHz.
        const double inProm = promScalar(promPort, "max(rtscope_samples_total)", &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));
        const auto own = scrape(port, &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));
        double ownSamples = NAN;
        for (const auto& [key, value] : own)
            if (key.rfind("rtscope_samples_total{", 0) == 0)
                ownSamples = value;
        QVERIFY2(inProm > 0 && inProm <= ownSamples && ownSamples - inProm <= 2500,
                 qPrintable(QString("Prometheus %1, rtscope %2").arg(inProm).arg(ownSamples)));

        // The 99th percentile over the last seconds: a number, inside what the run measured.
        const double p99 = waitFor(
            "histogram_quantile(0.99, rate(rtscope_wakeup_latency_seconds_bucket[5s]))",
            [](double v) { return std::isfinite(v); }, 5000);
        QVERIFY2(std::isfinite(p99) && p99 > 0 && p99 <= 0.1, qPrintable(QString("p99 %1 %2").arg(p99).arg(why)));
        // Since start, against the p99 rtscope itself prints when stopped (a while later: generous).
        const double p99All =
            promScalar(promPort, "histogram_quantile(0.99, rtscope_wakeup_latency_seconds_bucket)", &why);

        // Restart the monitor: Prometheus must see the counter go back (a reset), from what the new one serves.
        QCOMPARE(monitor->stop(), 0);
        const QString summary = monitor->out();
        const int at = summary.indexOf(" p99 ");
        QVERIFY2(at > 0, qPrintable(summary));
        const double ownP99 = summary.mid(at + 5).section(' ', 0, 0).toDouble() / 1e6;
        QVERIFY2(ownP99 > 0 && p99All > ownP99 / 3 && p99All < ownP99 * 3,
                 qPrintable(QString("Prometheus p99 since start %1 s, rtscope's %2 s").arg(p99All).arg(ownP99)));
        const auto restarted = MonitorClock::now();
        monitor = std::make_unique<MonitorTestChild>(binary(), monitorArgs(port));
        QVERIFY2(monitor->waitForHttp(port, "/metrics", 5000), qPrintable(monitor->err()));
        const double resets = waitFor(
            "resets(rtscope_samples_total[1m])", [](double v) { return v >= 1; }, 8000);
        QVERIFY2(resets >= 1, qPrintable(QString("resets %1 %2").arg(resets).arg(why)));
        // Not invented: the stored series has exactly one decrease, and every value after it is no more than the new
        // monitor can have measured since its start (1 kHz, plus slack for its first samples).
        const nlohmann::json raw = promQuery(promPort, "rtscope_samples_total[1m]", &why);
        const double sinceRestartMs =
            std::chrono::duration<double, std::milli>(MonitorClock::now() - restarted).count();
        QVERIFY2(raw.is_array() && raw.size() == 1, qPrintable(why));
        int decreases = 0;
        double previous = -1;
        for (const auto& pair : raw[0]["values"]) {
            const double v = std::stod(pair[1].get<std::string>());
            decreases += v < previous;
            previous = v;
            if (decreases > 0)
                QVERIFY2(v <= sinceRestartMs + 100,
                         qPrintable(QString("%1 samples %2 ms after the restart").arg(v).arg(sinceRestartMs)));
        }
        QCOMPARE(decreases, 1);
        QCOMPARE(monitor->stop(), 0);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestMonitorCli)
#include "tst_monitor_cli.moc"
