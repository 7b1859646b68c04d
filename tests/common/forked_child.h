#pragma once
// A piece of a test run in a forked child of the test process, for what must not touch the process itself (another
// user's identity, a peak resident size of its own), its answer read back through a pipe.
#include <QByteArray>
#include <QTest>

#include <functional>
#include <sys/wait.h>
#include <unistd.h>

namespace rtscope::test {

/// Runs @p work in a forked child and sets @p answer to what it returned. Fails the test when the pipe or the fork
/// cannot be made or the child does not exit 0; the caller returns when QTest::currentTestFailed().
inline void answerOfForkedChild(const std::function<QByteArray()>& work, QByteArray& answer)
{
    int fds[2];
    QCOMPARE(::pipe(fds), 0);
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        ::close(fds[0]);
        const QByteArray out = work();
        (void)!::write(fds[1], out.constData(), size_t(out.size()));
        ::_exit(0);
    }
    ::close(fds[1]);
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
        answer.append(buf, qsizetype(n));
    ::close(fds[0]);
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0, answer.constData());
}

} // namespace rtscope::test
