// A remote run's recording goes to disk as it arrives, not into memory (docs/remote.md): a fake agent on a socket
// pair streams 128 MiB of Recording frames to an AgentClient; the client's peak resident size grows by a few MiB, not
// by the 128 MiB it received (it kept every byte in a std::string: 200 MiB of frames made 290 MB of RSS), the spool
// file grows while the frames arrive, and every byte reads back as it was sent.
#include "engine/remote/agent_client.h"
#include "engine/remote/agent_protocol.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <atomic>
#include <fstream>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace rtscope;

namespace {

// A field of /proc/self/status in KiB ("VmHWM", "VmRSS"), -1 when unreadable.
long long statusKib(const std::string& field)
{
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind(field + ":", 0) == 0)
            return std::stoll(line.substr(field.size() + 1));
    return -1;
}

// The byte at @p offset of the stream the fake agent sends: a pattern that a misplaced piece would not match.
char patternAt(uint64_t offset)
{
    return char('a' + (offset * 7 + offset / 4093) % 26);
}

// Reads frames from @p fd until one of @p type came; false at EOF.
bool awaitFrame(int fd, AgentFrameDecoder& decoder, AgentFrameType type)
{
    char buf[4096];
    for (;;) {
        AgentFrame frame;
        std::string error;
        for (AgentFrameDecoder::Result r; (r = decoder.next(frame, error)) != AgentFrameDecoder::Result::NeedMore;)
            if (r == AgentFrameDecoder::Result::Frame && frame.type == type)
                return true;
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0)
            return false;
        decoder.feed(std::string_view(buf, size_t(n)));
    }
}

} // namespace

class TestAgentClientSpool : public QObject {
    Q_OBJECT

private slots:
    void aRemoteRecordingIsSpooledToDiskAsItArrives()
    {
        constexpr uint64_t kChunk = uint64_t(1) << 20;
        constexpr uint64_t kChunks = 128;
        int fds[2];
        QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        const int agentFd = fds[1];
        std::atomic<bool> agentOk{false};
        std::atomic<bool> resumeSending{false};
        std::thread agent([&] {
            AgentFrameWriter w(agentFd);
            AgentFrameDecoder d;
            if (w.sendJson(AgentFrameType::Hello, agentHello(nlohmann::json::object(), "fake")) ||
                !awaitFrame(agentFd, d, AgentFrameType::Hello) || !awaitFrame(agentFd, d, AgentFrameType::Start) ||
                w.sendJson(
                    AgentFrameType::Started,
                    {{"experiment", "latency"}, {"config", nlohmann::json::object()}, {"label", "fake"}, {"run", 1}}))
                return;
            // The measuring side resets its peak resident size between the Started and the first byte.
            while (!resumeSending)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            std::string chunk(kChunk, '\0');
            for (uint64_t c = 0; c < kChunks; ++c) {
                for (uint64_t i = 0; i < kChunk; ++i)
                    chunk[i] = patternAt(c * kChunk + i);
                if (w.sendChunked(AgentFrameType::Recording, chunk))
                    return;
            }
            agentOk = !w.sendJson(AgentFrameType::Ended, {{"finished", true}});
        });
        {
            AgentClient client(fds[0], fds[0]);
            QVERIFY(!client.connect(5000));
            QVERIFY(!client.start("latency", nlohmann::json::object(), 5000, nullptr));

            std::ofstream("/proc/self/clear_refs") << "5"; // proc(5): VmHWM := VmRSS now
            const long long rssBefore = statusKib("VmRSS");
            QVERIFY(rssBefore > 0);
            resumeSending = true;

            // While the frames arrive, the spool file holds what came: it is written as it comes, not at the end.
            const std::string spool = client.recordingPath();
            QVERIFY2(!spool.empty(), "no spool file");
            uint64_t seenMidRun = 0;
            QElapsedTimer waited;
            waited.start();
            while (!client.ended() && waited.elapsed() < 60000) {
                const uint64_t received = client.recordingBytes();
                struct stat st {};
                if (received > 16 * kChunk && received < kChunks * kChunk && ::stat(spool.c_str(), &st) == 0) {
                    QVERIFY2(uint64_t(st.st_size) >= received,
                             qPrintable(
                                 QString("the spool holds %1 bytes of the %2 received").arg(st.st_size).arg(received)));
                    seenMidRun = received;
                }
                QTest::qWait(5);
            }
            QVERIFY2(client.ended(), "the fake agent's run did not end within 60 s");
            agent.join();
            QVERIFY(agentOk);
            QCOMPARE(client.recordingBytes(), kChunks * kChunk);
            const long long grownKib = statusKib("VmHWM") - rssBefore;
            QVERIFY2(grownKib < 32 * 1024, qPrintable(QString("receiving %1 MiB grew the peak resident size by %2 MiB")
                                                          .arg(kChunks)
                                                          .arg(grownKib / 1024)));
            QVERIFY2(seenMidRun > 0, "the run ended before the spool could be looked at during it");

            // Every byte as sent: the start, a piece across a frame boundary, the end.
            for (const uint64_t at : {uint64_t(0), 37 * kChunk - 100, kChunks * kChunk - 4096}) {
                const std::string piece = client.recordingFrom(at, 4096);
                QCOMPARE(piece.size(), size_t(4096));
                for (size_t i = 0; i < piece.size(); ++i)
                    if (piece[i] != patternAt(at + i))
                        QFAIL(qPrintable(QString("byte %1 differs").arg(at + i)));
            }
            struct stat st {};
            QCOMPARE(::stat(spool.c_str(), &st), 0);
            QCOMPARE(uint64_t(st.st_size), kChunks * kChunk);
        }
        ::close(agentFd);
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestAgentClientSpool)
#include "tst_agent_client_spool.moc"
