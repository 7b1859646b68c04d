#pragma once
// Skips that say what the machine lacks, and count. A test that cannot run here skips with RTSCOPE_SKIP(kind,
// reason) (or RTSCOPE_SKIP_IF(a helper's MaybeSkip)), never with a bare QSKIP (tst_skip_kinds reads the tree for
// one). Every skip is recorded; at the end of the unit the skips are printed and written to RTSCOPE_TEST_SKIP_LOG
// (one file per ctest unit, read by scripts/test), and a unit that skipped anything and failed nothing exits 77,
// which ctest reports as "Skipped" (SKIP_RETURN_CODE, tests/CMakeLists.txt) instead of "Passed".
//
// Four kinds name what a privileged machine has: real-time scheduling, SCHED_DEADLINE, tracefs and root. On a
// machine that has the thing (this process may make a thread SCHED_FIFO, and so on: checked here, independently of
// the engine's probe), a skip of that kind is a wrong skip and fails the test instead, so that a privileged machine
// (a developer's root shell, CI) cannot pass the suite without running its real-time and tracing paths.
#include <QByteArray>
#include <QString>

#include <optional>
#include <string>

namespace rtscope::test {

enum class SkipKind {
    RtPrivilege, ///< SCHED_FIFO/SCHED_RR, a negative nice or locked memory refused ("no-rt-privilege"; strict)
    Deadline,    ///< SCHED_DEADLINE refused ("no-sched-deadline"; strict)
    Tracefs,     ///< no tracefs this process may write ("no-tracefs"; strict)
    Root,        ///< a step only root may take: run as nobody, make a cgroup ("not-root"; strict)
    Cpus,        ///< fewer usable CPUs than the test places threads on ("few-cpus")
    Tool,        ///< a program, a build product or ctest's environment is missing ("no-tool")
    Kernel,      ///< a kernel setting the check depends on is off or different here ("kernel")
    Sanitizer,   ///< this build's sanitizer cannot run it ("sanitizer")
    Privileged,  ///< needs a process without a privilege this one cannot drop ("privileged")
    OptIn,       ///< runs only when asked for with an environment variable ("opt-in")
    Other,       ///< anything else this machine or process does not allow ("other")
};

/// The kind as printed in brackets and in the skip log ("no-rt-privilege", "few-cpus", …).
const char* skipKindName(SkipKind kind);
/// The kind named @p name, as skipKindName() prints it; nullopt for any other name.
std::optional<SkipKind> skipKindFromName(const QString& name);
/// The strict kinds: skipping for one of them fails where the machine has it.
bool isStrictSkipKind(SkipKind kind);
/// Whether this machine has what the strict @p kind names, tried once per process (false for the other kinds).
bool machineHas(SkipKind kind);
/// What machineHas(@p kind) found, in words ("a thread here became SCHED_FIFO 1", "tracefs is not mounted …").
QString machineHasWhy(SkipKind kind);

/// A reason to skip: what the machine lacks (@p kind) and a sentence saying so.
struct Skip {
    SkipKind kind;
    QString reason;
    Skip(SkipKind k, QString r)
        : kind(k)
        , reason(std::move(r))
    {}
    Skip(SkipKind k, const std::string& r)
        : kind(k)
        , reason(QString::fromStdString(r))
    {}
    Skip(SkipKind k, const char* r)
        : kind(k)
        , reason(QString::fromUtf8(r))
    {}
};
/// What a helper that checks a precondition returns: a Skip when the calling test cannot run. (QSKIP in a helper
/// would return from the helper only, and the test would go on.)
using MaybeSkip = std::optional<Skip>;

/// A skip when @p binary, the built rtscope a test runs (RTSCOPE_BINARY), is not set: the test was not run through
/// ctest.
inline MaybeSkip withoutBinary(const QString& binary)
{
    if (!binary.isEmpty())
        return std::nullopt;
    return Skip{SkipKind::Tool, "RTSCOPE_BINARY is not set (run through ctest)"};
}

/// What RTSCOPE_SKIP does with @p skip: records it as a skip of the running test function and returns its message,
/// or, for a strict kind the machine has, records nothing and returns fail = true with a message saying so.
struct SkipOutcome {
    bool fail = false;
    QByteArray message;
};
SkipOutcome takeSkip(const Skip& skip);

/// The end of the unit whose source is @p unitFile (tests/<area>/tst_<unit>.cpp), given QTest::qExec()'s result:
/// prints the unit's skips, writes them to RTSCOPE_TEST_SKIP_LOG (removes that file when there are none) and returns
/// the exit code: @p failures when something failed, else 77 when something skipped, else 0.
int finishUnit(const char* unitFile, int failures);

/// The exit code of a unit that skipped and failed nothing (ctest's SKIP_RETURN_CODE).
inline constexpr int kSkippedExitCode = 77;

} // namespace rtscope::test

/// Skips the calling test function (or data row) as @p skipValue says, or fails it when @p skipValue is of a strict
/// kind the machine has.
#define RTSCOPE_SKIP_AS(skipValue)                                                                                     \
    do {                                                                                                               \
        const rtscope::test::SkipOutcome rtscopeSkipOutcome_ = rtscope::test::takeSkip((skipValue));                   \
        if (rtscopeSkipOutcome_.fail)                                                                                  \
            QFAIL(rtscopeSkipOutcome_.message.constData());                                                            \
        QSKIP(rtscopeSkipOutcome_.message.constData());                                                                \
    } while (false)

/// Skips the calling test function: RTSCOPE_SKIP(Cpus, "needs two usable CPUs"). @p kind is a SkipKind's name;
/// @p reason a const char*, std::string or QString.
#define RTSCOPE_SKIP(kind, reason) RTSCOPE_SKIP_AS((rtscope::test::Skip{rtscope::test::SkipKind::kind, reason}))

/// Skips the calling test function when @p maybeSkip (a MaybeSkip) holds a Skip.
#define RTSCOPE_SKIP_IF(maybeSkip)                                                                                     \
    do {                                                                                                               \
        if (const rtscope::test::MaybeSkip rtscopeMaybeSkip_ = (maybeSkip))                                            \
            RTSCOPE_SKIP_AS(*rtscopeMaybeSkip_);                                                                       \
    } while (false)
