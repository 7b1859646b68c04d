// ctest: parallel. Pure flag parsing.
// The latency flags as the CLI (`latency`, `monitor`, `sweep`) and the desktop app read them: one reading
// (engine/experiments/latency/latency_flags.h). Each rule the two command lines share, the one they differ in, and a
// sentence naming the flag and what it accepts for every value that does not parse, with the field left as it was.
#include "engine/experiments/latency/latency_flags.h"
#include "engine/rt/cpu_topology.h"

#include "tests/common/data_rows.h"
#include "tests/common/test_main.h"

#include <QtTest>

using namespace rtscope;

namespace {
LatencyConfig applied(const LatencyFlagText& flags, const LatencyFlagRules& rules, std::vector<std::string>& problems,
                      LatencyConfig base = {})
{
    applyLatencyFlags(flags, rules, base, problems);
    return base;
}
} // namespace

class TestLatencyFlags : public QObject {
    Q_OBJECT
private slots:
    void nothingGivenChangesNothing()
    {
        LatencyConfig base;
        base.policy = Policy::RR;
        base.priority = 42;
        base.periodNs = 250'000;
        base.trace = true;
        std::vector<std::string> problems;
        const LatencyConfig c = applied({}, {}, problems, base);
        QVERIFY(problems.empty());
        QCOMPARE(c.policy, Policy::RR);
        QCOMPARE(c.priority, 42);
        QCOMPARE(c.periodNs, int64_t(250'000));
        QVERIFY(c.trace); // --trace left out never unticks the config's choice
    }

    void everyFlagIsWritten()
    {
        LatencyFlagText f;
        f.policy = "rr";
        f.priority = 70;
        f.period = "250"; // bare numbers are microseconds, as cyclictest -i
        f.hogs = 3;
        f.cpu = 1;
        f.hogCpu = 0;
        f.waiter = "timerfd";
        f.trace = true;
        std::vector<std::string> problems;
        const LatencyConfig c = applied(f, {}, problems);
        QVERIFY(problems.empty());
        QCOMPARE(c.policy, Policy::RR);
        QCOMPARE(c.priority, 70);
        QCOMPARE(c.periodNs, int64_t(250'000));
        QCOMPARE(c.hogs, 3);
        QCOMPARE(c.cpu, 1);
        QCOMPARE(c.hogCpu, 0);
        QCOMPARE(c.waiter, WaiterKind::Timerfd);
        QVERIFY(c.trace);
    }

    // cyclictest -p 80 runs SCHED_FIFO: so do `rtscope latency -p 80` and `rtscope --priority 80`.
    void aPriorityAloneMeansFifo()
    {
        LatencyFlagText f;
        f.priority = 80;
        std::vector<std::string> problems;
        QCOMPARE(applied(f, {}, problems).policy, Policy::Fifo);
        LatencyConfig rr;
        rr.policy = Policy::RR;
        QCOMPARE(applied(f, {}, problems, rr).policy, Policy::RR); // a real-time config keeps its policy
        QVERIFY(problems.empty());
    }

    // The one rule that differs: the desktop app gives "--policy fifo" alone its default priority; the CLI passes
    // -p always (0 when left out), which validate() refuses with its own sentence.
    void aRealTimePolicyAloneGetsTheDefaultPriority()
    {
        LatencyFlagText f;
        f.policy = "fifo";
        std::vector<std::string> problems;
        QCOMPARE(applied(f, {.deadline = false, .defaultRtPriority = 80}, problems).priority, 80);
        f.priority = 0;
        const LatencyConfig cli = applied(f, {}, problems);
        QCOMPARE(cli.priority, 0);
        QVERIFY(!cli.validate(CpuTopology::current()).empty());
        LatencyFlagText other;
        other.policy = "other";
        LatencyConfig fifo;
        fifo.policy = Policy::Fifo;
        fifo.priority = 50;
        QCOMPARE(applied(other, {}, problems, fifo).priority, 0); // a fair policy has no RT priority
        QVERIFY(problems.empty());
    }

    void deadlineOnlyWhereTheCommandOffersIt()
    {
        LatencyFlagText f;
        f.policy = "deadline";
        std::vector<std::string> problems;
        QCOMPARE(applied(f, {.deadline = true}, problems).policy, Policy::Deadline);
        QVERIFY(problems.empty());
        const LatencyConfig c = applied(f, {}, problems);
        QCOMPARE(c.policy, Policy::Other);
        QCOMPARE(problems.size(), size_t(1));
        QVERIFY2(problems[0].find("policy must be one of") == 0, problems[0].c_str());
    }

    void unreadableValuesAreNamedAndLeaveTheField_data()
    {
        test::addRows<QString, QString, QString>(
            {"flag", "value", "expected"},
            {{"policy", "policy", "fifoo", "policy must be one of other, batch, idle, fifo, rr (got 'fifoo')"},
             {"period", "period", "1 parsec",
              "period: '1 parsec' is not a duration; use a number with ns, us, ms or s (bare "
              "numbers are microseconds)"},
             {"waiter", "waiter", "sleepy",
              "waiter must be one of abs, rel, timerfd, itimer, posix, busy (got 'sleepy')"}});
    }
    void unreadableValuesAreNamedAndLeaveTheField()
    {
        QFETCH(QString, flag);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        LatencyFlagText f;
        if (flag == "policy")
            f.policy = value.toStdString();
        else if (flag == "period")
            f.period = value.toStdString();
        else
            f.waiter = value.toStdString();
        std::vector<std::string> problems;
        const LatencyConfig c = applied(f, {}, problems);
        QCOMPARE(problems.size(), size_t(1));
        QCOMPARE(QString::fromStdString(problems[0]), expected);
        const LatencyConfig defaults;
        QCOMPARE(c.policy, defaults.policy);
        QCOMPARE(c.periodNs, defaults.periodNs);
        QCOMPARE(c.waiter, defaults.waiter);
    }

    // The help names the limits validate() enforces (the desktop app's said "0-64" hogs while 256 were accepted).
    void theHelpSaysTheLimits()
    {
        QVERIFY(latency_flag_help::hogs().find("0.." + std::to_string(LatencyConfig::kMaxHogs)) != std::string::npos);
        QVERIFY(latency_flag_help::period().find("10us..10s") != std::string::npos);
        QVERIFY(latency_flag_help::policy(true).find("deadline") != std::string::npos);
        QVERIFY(latency_flag_help::policy(false).find("deadline") == std::string::npos);
        QVERIFY(latency_flag_help::waiter().find("timerfd") != std::string::npos);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestLatencyFlags)
#include "tst_latency_flags.moc"
