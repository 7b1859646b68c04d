// ctest: parallel. Pure formatting.
// The machine identity of a run (engine/export/run_identity.*) as comment lines after cyclictest's footer: rtscope's
// own importer reads the histogram unchanged (and keeps the lines), a grep-style reader of cyclictest's text finds its
// lines and the identity's, and a hostile value stays on one line.
#include "engine/experiments/latency/latency_run.h"
#include "engine/export/run_identity.h"
#include "engine/formats/cyclictest_format.h"
#include "engine/pipeline/histogram.h"
#include "engine/rt/system_probe.h"

#include "tests/common/board_probe.h"
#include "tests/common/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>
#include <sstream>

using namespace rtscope;

namespace {

LatencySnapshot identityTestSnapshot()
{
    LatencySnapshot s;
    s.config.hogs = 2;
    for (int cpu : {0, 1}) {
        LatencyThreadStats t;
        t.cpu = cpu;
        t.histogram = Histogram(100);
        for (int i = 0; i < 1000; ++i)
            t.histogram.record(3'000 + 17 * i + cpu * 1000);
        t.histogram.record(250'000); // beyond the 100 bins: an overflow
        t.samples = t.histogram.count();
        s.threads.push_back(std::move(t));
    }
    return s;
}

RunIdentity identityTestIdentity()
{
    SystemProbe p = rtscope::test::rtBoardProbe("board-7", "6.18.0-rt5");
    p.kernelVersion = "#1 SMP PREEMPT_RT";
    p.cpuModel = "Test CPU\n# Max Latencies: 00000"; // a hostile value must not forge a line
    p.isolatedCpus = {1};
    RunIdentity id = latencyRunIdentity(p, identityTestSnapshot(), "rtscope latency --hogs 2", 1'700'000'000);
    id.kernelCmdline = "console=ttyS0 isolcpus=1";
    return id;
}

// What a reader written for cyclictest's text does: the lines that start with @p prefix.
std::vector<std::string> grepLines(const std::string& text, const std::string& prefix)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.starts_with(prefix))
            out.push_back(line);
    return out;
}

} // namespace

class TestRunIdentity : public QObject {
    Q_OBJECT
private slots:
    void linesAndJson()
    {
        const RunIdentity id = identityTestIdentity();
        QCOMPARE(id.measuredCpus, (std::vector<int>{0, 1}));
        QCOMPARE(id.load, std::string("2 hogs (OTHER) on each measured CPU"));
        const auto lines = runIdentityLines(id);
        const std::string all = [&] {
            std::string s;
            for (const auto& l : lines)
                s += l + "\n";
            return s;
        }();
        for (const auto& l : lines) {
            QVERIFY2(l.starts_with("# "), l.c_str());
            QVERIFY2(l.find('\n') == std::string::npos, l.c_str());
        }
        for (const char* line : {"# Host: board-7\n", "# Kernel: 6.18.0-rt5 #1 SMP PREEMPT_RT\n",
                                 "# Kernel command line: console=ttyS0 isolcpus=1\n", "# Preempt model: PREEMPT_RT\n",
                                 "# Isolated CPUs: 1\n", "# nohz_full CPUs: none\n", "# Measured CPUs: 0-1\n",
                                 "# Load: 2 hogs (OTHER) on each measured CPU\n", "# Load command: none\n",
                                 "# Command: rtscope latency --hogs 2\n", "# Date: 2023-11-14T22:13:20Z\n",
                                 "# CPU model: Test CPU\\x0a# Max Latencies: 00000\n"})
            QVERIFY2(all.find(line) != std::string::npos, line);

        const nlohmann::json j = runIdentityJson(id);
        QCOMPARE(j["host"].get<std::string>(), std::string("board-7"));
        QCOMPARE(j["kernel_cmdline"].get<std::string>(), std::string("console=ttyS0 isolcpus=1"));
        QCOMPARE(j["isolated_cpus"], nlohmann::json::array({1}));
        QCOMPARE(j["measured_cpus"], nlohmann::json::array({0, 1}));
        QVERIFY(j["load_command"].is_null());
        QCOMPARE(j["date"].get<std::string>(), std::string("2023-11-14T22:13:20Z"));
        for (const char* key :
             {"kernel_release", "kernel_version", "preempt_model", "cpu_model", "nohz_full_cpus", "load", "command"})
            QVERIFY2(j.contains(key), key);
    }

    void histfileStillReadsAsCyclictests()
    {
        const LatencySnapshot s = identityTestSnapshot();
        CyclictestData plain;
        for (const auto& t : s.threads)
            plain.threads.push_back(cyclictestThreadFrom(t.histogram, t.histogram.exactUsBinCount()));
        CyclictestData withIdentity = plain;
        withIdentity.trailer = runIdentityLines(identityTestIdentity());
        const std::string before = writeCyclictestHistogram(plain);
        const std::string after = writeCyclictestHistogram(withIdentity);

        // Everything cyclictest writes is there, byte for byte, in its place; the identity follows the footer.
        const size_t lastThread = after.find("# Thread 1:");
        QVERIFY(lastThread != std::string::npos);
        const size_t cut = after.find('\n', lastThread) + 1; // just after cyclictest's last footer line
        QVERIFY(before.ends_with("\n\n"));
        QCOMPARE(after.substr(0, cut), before.substr(0, before.size() - 1));
        QVERIFY(after.substr(cut).starts_with("# rtscope "));
        QVERIFY(after.ends_with("Z\n\n")); // the date line, then cyclictest's closing blank line

        // rtscope's importer reads the same histogram and keeps the identity.
        CyclictestData a, b;
        std::string error;
        QVERIFY2(parseCyclictestHistogram(before, a, error), error.c_str());
        QVERIFY2(parseCyclictestHistogram(after, b, error), error.c_str());
        QCOMPARE(b.threads.size(), a.threads.size());
        for (size_t i = 0; i < a.threads.size(); ++i) {
            QCOMPARE(b.threads[i].bins, a.threads[i].bins);
            QCOMPARE(b.threads[i].overflows, a.threads[i].overflows);
            QCOMPARE(b.threads[i].overflowCycles, a.threads[i].overflowCycles);
            QCOMPARE(b.threads[i].cycles, a.threads[i].cycles);
            QCOMPARE(b.threads[i].minUs, a.threads[i].minUs);
            QCOMPARE(b.threads[i].maxUs, a.threads[i].maxUs);
        }
        QVERIFY(a.trailer.empty());
        QCOMPARE(b.trailer, withIdentity.trailer);
        // And writes it back byte for byte.
        QCOMPARE(writeCyclictestHistogram(b), after);

        // A grep-style reader: one "# Max Latencies:" line with one figure per thread, the data rows without
        // comments (what OSADL-style plot scripts take), and the identity's lines.
        const auto maxLines = grepLines(after, "# Max Latencies:");
        QCOMPARE(maxLines.size(), size_t(1));
        QCOMPARE(maxLines[0], grepLines(before, "# Max Latencies:")[0]);
        size_t dataRows = 0;
        std::istringstream in(after);
        for (std::string line; std::getline(in, line);)
            if (!line.empty() && line[0] != '#')
                ++dataRows;
        QCOMPARE(dataRows, size_t(100));
        QCOMPARE(grepLines(after, "# Kernel: ").size(), size_t(1));
        QCOMPARE(grepLines(after, "# Preempt model: ").size(), size_t(1));
        QCOMPARE(grepLines(after, "# Date: ").size(), size_t(1));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestRunIdentity)
#include "tst_run_identity.moc"
