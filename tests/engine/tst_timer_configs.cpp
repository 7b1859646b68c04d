// ctest: parallel. Pure validation.
// The timer lab's two configs: every limit gives one sentence naming the field and its range, valid configs give
// none, and the JSON form round-trips. No threads, no timing.
#include "engine/experiments/timers/drift_config.h"
#include "engine/experiments/timers/sleep_floor_config.h"
#include "engine/rt/cpu_topology.h"

#include "tests/common/data_rows.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace rtscope;
using namespace rtscope::test;

namespace {

std::vector<WaiterKind> driftMethods(const QString& text)
{
    std::vector<WaiterKind> out;
    for (const QString& n : text.split(',', Qt::SkipEmptyParts))
        out.push_back(n == "busy" ? WaiterKind::Busy : *parseDriftMethod(n.toStdString()));
    return out;
}

} // namespace

class TestTimerConfigs : public QObject {
    Q_OBJECT
private slots:
    void driftDefaultsAreValid()
    {
        const DriftConfig c;
        QVERIFY2(c.validate(twoCpuTopology()).empty(), qPrintable(joined(c.validate(twoCpuTopology()))));
        QCOMPARE(c.methods.size(), size_t(5));
        QCOMPARE(c.tickCount(), int64_t(500));
        QCOMPARE(c.resolvedCpu(twoCpuTopology()), 1);
    }

    void driftValidation_data()
    {
        QTest::addColumn<qint64>("period");
        QTest::addColumn<qint64>("work");
        QTest::addColumn<qint64>("ticks");
        QTest::addColumn<qint64>("duration");
        QTest::addColumn<QString>("methods");
        QTest::addColumn<QString>("policy");
        QTest::addColumn<int>("priority");
        QTest::addColumn<qint64>("slack");
        QTest::addColumn<int>("cpu");
        QTest::addColumn<qint64>("stallAt");
        QTest::addColumn<qint64>("stall");
        QTest::addColumn<QString>("expected"); // "" = valid

        const QString all = "naive,abs,timerfd,itimer,posix";
        auto row = [&](const char* name, qint64 period, qint64 work, qint64 ticks, const QString& expected) {
            QTest::newRow(name) << period << work << ticks << qint64(0) << all << "other" << 0 << qint64(0) << -1
                                << qint64(0) << qint64(0) << expected;
        };
        row("defaults", 1'000'000, 0, 500, "");
        row("period 100 us", 100'000, 0, 500, "");
        row("period 1 s", 1'000'000'000, 0, 10, "");
        row("period 0", 0, 0, 500, "period must be between 100.0 us and 1.000 s (got 0 ns)");
        row("period too short", 99'999, 0, 500, "period must be between 100.0 us and 1.000 s (got 100.0 us)");
        row("period too long", 2'000'000'000, 0, 500, "period must be between 100.0 us and 1.000 s (got 2.000 s)");
        row("negative work", 1'000'000, -100'000, 500,
            "work must be between 0 ns and 90 % of the period (900.0 us) (got -100.0 us)");
        row("work = period", 1'000'000, 1'000'000, 500,
            "work must be between 0 ns and 90 % of the period (900.0 us) (got 1.00 ms)");
        row("work > period", 1'000'000, 5'000'000, 500, "work must be between 0 ns and 90 % of the period");
        row("work 90 %", 1'000'000, 900'000, 500, "");
        row("work 91 %", 1'000'000, 910'000, 500, "work must be between 0 ns and 90 % of the period");
        row("ticks 1", 1'000'000, 0, 1, "ticks must be between 2 and 200000 (got 1)");
        row("ticks 0", 1'000'000, 0, 0, "ticks must be between 2 and 200000 (got 0)");
        row("ticks too many", 1'000'000, 0, 200'001, "ticks must be between 2 and 200000 (got 200001)");
        row("run over an hour", 1'000'000'000, 0, 4000, "ticks × period must be at most 3600.000 s");

        auto full = [&](const char* name, const QString& methods, const QString& policy, int prio, qint64 slack,
                        int cpu, qint64 stallAt, qint64 stall, qint64 duration, const QString& expected) {
            QTest::newRow(name) << qint64(1'000'000) << qint64(0) << qint64(500) << duration << methods << policy
                                << prio << slack << cpu << stallAt << stall << expected;
        };
        full("empty method list", "", "other", 0, 0, -1, 0, 0, 0,
             "methods must name at least one of naive, abs, timerfd, itimer, posix (got none)");
        full("busy is not a drift method", "abs,busy", "other", 0, 0, -1, 0, 0, 0,
             "methods: 'busy' is not allowed here; choose from naive, abs, timerfd, itimer, posix");
        full("repeated method", "abs,timerfd,abs", "other", 0, 0, -1, 0, 0, 0, "methods must not repeat 'abs'");
        full("one method", "naive", "other", 0, 0, -1, 0, 0, 0, "");
        full("fifo 80", all, "fifo", 80, 0, -1, 0, 0, 0, "");
        full("fifo priority 0", all, "fifo", 0, 0, -1, 0, 0, 0, "priority must be between 1 and 99 for fifo (got 0)");
        full("other with priority", all, "other", 50, 0, -1, 0, 0, 0, "priority must be 0 for other (got 50)");
        full("slack 1 ns", all, "other", 0, 1, -1, 0, 0, 0, "");
        full("slack negative", all, "other", 0, -1, -1, 0, 0, 0,
             "slack must be between 0 (the default) and 1.000 s (got -1 ns)");
        full("slack too long", all, "other", 0, 2'000'000'000, -1, 0, 0, 0, "slack must be between 0 (the default)");
        full("cpu 0", all, "other", 0, 0, 0, 0, 0, 0, "");
        full("cpu absent", all, "other", 0, 0, 7, 0, 0, 0,
             "cpu must be one of the online CPUs this process may use (0-1); got 7");
        full("duration 2 s", all, "other", 0, 0, -1, 0, 0, 2'000'000'000, "");
        full("duration one period", all, "other", 0, 0, -1, 0, 0, 1'000'000,
             "duration must be between 2.00 ms (two periods) and 3600.000 s");
        full("duration too many ticks", all, "other", 0, 0, -1, 0, 0, 300'000'000'000,
             "duration must be at most 200000 periods");
        full("stall", all, "other", 0, 0, -1, 100, 10'000'000, 0, "");
        full("stall without tick", all, "other", 0, 0, -1, 0, 10'000'000, 0,
             "stall-at must be between 1 and 499 when stall is set (got 0)");
        full("stall after the end", all, "other", 0, 0, -1, 500, 10'000'000, 0,
             "stall-at must be between 1 and 499 (the tick after which to stall), or 0 for no stall (got 500)");
        full("stall negative", all, "other", 0, 0, -1, 100, -5, 0,
             "stall must be between 0 ns and 1.000 s (got -5 ns)");
    }
    void driftValidation()
    {
        QFETCH(qint64, period);
        QFETCH(qint64, work);
        QFETCH(qint64, ticks);
        QFETCH(qint64, duration);
        QFETCH(QString, methods);
        QFETCH(QString, policy);
        QFETCH(int, priority);
        QFETCH(qint64, slack);
        QFETCH(int, cpu);
        QFETCH(qint64, stallAt);
        QFETCH(qint64, stall);
        QFETCH(QString, expected);
        DriftConfig c;
        c.periodNs = period;
        c.workNs = work;
        c.ticks = ticks;
        c.durationNs = duration;
        c.methods = driftMethods(methods);
        c.policy = *parsePolicy(policy.toStdString());
        c.priority = priority;
        c.timerSlackNs = slack;
        c.cpu = cpu;
        c.stallTick = stallAt;
        c.stallNs = stall;
        const auto problems = c.validate(twoCpuTopology());
        checkOneProblemOrNone(problems, expected);
    }

    void driftItimerNeedsWholeMicroseconds()
    {
        DriftConfig c;
        c.periodNs = 1'000'500;
        const auto problems = c.validate(twoCpuTopology());
        QCOMPARE(problems.size(), size_t(1));
        QVERIFY(QString::fromStdString(problems.front()).startsWith("period must be a whole number of microseconds"));
        c.methods = {WaiterKind::Absolute, WaiterKind::Timerfd};
        QVERIFY(c.validate(twoCpuTopology()).empty());
    }

    // Real-time threads never hold every CPU, and never spin more than 90 % of a period between them.
    void driftRealtimeSafetyRules()
    {
        DriftConfig c;
        c.policy = Policy::Fifo;
        c.priority = 80;
        CpuTopology one;
        one.online = {0};
        one.allowed = {0};
        auto problems = c.validate(one);
        QCOMPARE(problems.size(), size_t(1));
        QVERIFY2(
            QString::fromStdString(problems.front()).startsWith("cpu: a fifo run needs a usable CPU besides CPU 0"),
            problems.front().c_str());
        c.policy = Policy::Other;
        c.priority = 0;
        QVERIFY(c.validate(one).empty());

        c.policy = Policy::Fifo;
        c.priority = 80;
        c.workNs = 200'000; // 5 methods × 200 us = 1 ms of a 1 ms period
        problems = c.validate(twoCpuTopology());
        QCOMPARE(problems.size(), size_t(1));
        QVERIFY2(QString::fromStdString(problems.front())
                     .startsWith("work × methods must be at most 90 % of the period under fifo (got 5 × 200.0 us"),
                 problems.front().c_str());
        c.policy = Policy::Other;
        c.priority = 0;
        QVERIFY(c.validate(twoCpuTopology()).empty()); // SCHED_OTHER threads share the CPU whatever they do
    }

    void driftEveryProblemIsReported()
    {
        DriftConfig c;
        c.periodNs = 0;
        c.workNs = -1;
        c.methods.clear();
        c.ticks = 0;
        const auto problems = c.validate(twoCpuTopology());
        QCOMPARE(problems.size(), size_t(4));
    }

    void driftMethodNames()
    {
        QCOMPARE(parseDriftMethod("naive"), std::optional<WaiterKind>(WaiterKind::Relative));
        QCOMPARE(parseDriftMethod("rel"), std::optional<WaiterKind>(WaiterKind::Relative));
        QCOMPARE(parseDriftMethod("ABS"), std::optional<WaiterKind>(WaiterKind::Absolute));
        QCOMPARE(parseDriftMethod("setitimer"), std::optional<WaiterKind>(WaiterKind::Itimer));
        QVERIFY(!parseDriftMethod("busy"));
        QVERIFY(!parseDriftMethod("sundial"));
        for (WaiterKind k : kDriftMethods)
            QCOMPARE(parseDriftMethod(driftMethodName(k)), std::optional<WaiterKind>(k));
        QCOMPARE(driftMethodList(), std::string("naive, abs, timerfd, itimer, posix"));
    }

    void driftJsonRoundTrip()
    {
        DriftConfig c;
        c.periodNs = 2'000'000;
        c.workNs = 300'000;
        c.ticks = 123;
        c.methods = {WaiterKind::Posix, WaiterKind::Relative};
        c.policy = Policy::Fifo;
        c.priority = 70;
        c.timerSlackNs = 1;
        c.cpu = 1;
        c.stallTick = 10;
        c.stallNs = 5'000'000;
        std::vector<std::string> errors;
        const DriftConfig back = driftConfigFromJson(toJson(c), errors);
        QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
        QVERIFY(back == c);

        nlohmann::json bad = toJson(c);
        bad["methods"] = {"abs", "sundial"};
        bad["period_ns"] = "fast";
        bad["colour"] = "blue";
        errors.clear();
        driftConfigFromJson(bad, errors);
        QCOMPARE(errors.size(), size_t(3));
    }

    void sleepFloorDefaultsAreValid()
    {
        const SleepFloorConfig c;
        QVERIFY2(c.validate(twoCpuTopology()).empty(), qPrintable(joined(c.validate(twoCpuTopology()))));
        QCOMPARE(c.requestsNs.front(), int64_t(0));
        QCOMPARE(c.requestsNs.back(), int64_t(10'000'000));
        QCOMPARE(c.methods.size(), size_t(5));
        QCOMPARE(c.totalSamples(), int64_t(9 * 5 * 200));
        QVERIFY(c.estimatedRunNs() > 200 * 5 * int64_t(11'000'000)); // at least the requested time itself
    }

    void sleepFloorValidation_data()
    {
        const QList<qint64> def{0, 1, 1000, 1'000'000};
        const QString all = "nanosleep,rel,abs,busy,hybrid";
        QList<qint64> many;
        for (int i = 0; i < 33; ++i)
            many << i;
        test::addRows<QList<qint64>, qint64, QString, qint64, qint64, QString>(
            {"requests", "samples", "methods", "slack", "margin", "expected"},
            {{"valid", def, 200, all, 0, 100'000, ""},
             {"no requests", QList<qint64>{}, 200, all, 0, 100'000,
              "requests must list at least one length between 0 ns and 100.00 ms (got none)"},
             {"negative request", QList<qint64>{0, -1000}, 200, all, 0, 100'000,
              "requests must each be between 0 ns and 100.00 ms (got -1.0 us)"},
             {"request too long", QList<qint64>{0, 200'000'000}, 200, all, 0, 100'000,
              "requests must each be between 0 ns and 100.00 ms (got 200.00 ms)"},
             {"repeated request", QList<qint64>{0, 1000, 1000}, 200, all, 0, 100'000,
              "requests must not repeat 1.0 us"},
             {"33 requests", many, 1, all, 0, 100'000, "requests must list between 1 and 32 lengths (got 33)"},
             {"samples 0", def, 0, all, 0, 100'000, "samples must be between 1 and 100000 (got 0)"},
             {"samples negative", def, -5, all, 0, 100'000, "samples must be between 1 and 100000 (got -5)"},
             {"samples too many", def, 100'001, all, 0, 100'000, "samples must be between 1 and 100000 (got 100001)"},
             {"no methods", def, 200, "", 0, 100'000,
              "methods must name at least one of nanosleep, rel, abs, busy, hybrid (got none)"},
             {"repeated method", def, 200, "busy,busy", 0, 100'000, "methods must not repeat 'busy'"},
             {"slack 1 ns", def, 200, all, 1, 100'000, ""},
             {"slack too long", def, 200, all, 20'000'000, 100'000,
              "slack must be between 0 (the default) and 10.00 ms (got 20.00 ms)"},
             {"margin negative", def, 200, all, 0, -1, "margin must be between 0 ns and 10.00 ms (got -1 ns)"},
             {"too long a run", QList<qint64>{100'000'000}, 10'000, "busy", 0, 100'000,
              "samples × requests × methods would take about 1000.000 s; the run must be at most 600.000 s"},
             {"too many samples", many.mid(0, 32), 100'000, "busy", 0, 0,
              "samples × requests × methods must be at most 1000000 (got 100000 × 32 × 1 = 3200000)"}});
    }
    void sleepFloorValidation()
    {
        QFETCH(QList<qint64>, requests);
        QFETCH(qint64, samples);
        QFETCH(QString, methods);
        QFETCH(qint64, slack);
        QFETCH(qint64, margin);
        QFETCH(QString, expected);
        SleepFloorConfig c;
        c.requestsNs.assign(requests.begin(), requests.end());
        c.samples = samples;
        c.methods.clear();
        for (const QString& n : methods.split(',', Qt::SkipEmptyParts))
            c.methods.push_back(*parseSleepMethod(n.toStdString()));
        c.timerSlackNs = slack;
        c.hybridMarginNs = margin;
        const auto problems = c.validate(twoCpuTopology());
        checkOneProblemOrNone(problems, expected);
    }

    void sleepFloorSchedulingAndCpu()
    {
        SleepFloorConfig c;
        c.policy = Policy::Fifo;
        c.priority = 0;
        QVERIFY(QString::fromStdString(c.validate(twoCpuTopology()).front())
                    .startsWith("priority must be between 1 and 99"));
        c.priority = 99;
        QVERIFY(c.validate(twoCpuTopology()).empty());
        c.cpu = 5;
        QVERIFY(QString::fromStdString(c.validate(twoCpuTopology()).front())
                    .startsWith("cpu must be one of the online CPUs"));
        CpuTopology one;
        one.online = {0};
        one.allowed = {0};
        c.cpu = -1;
        QVERIFY(QString::fromStdString(c.validate(one).front()).startsWith("cpu: a fifo run needs a usable CPU"));
    }

    void sleepMethodNames()
    {
        for (SleepMethod m : kSleepMethods)
            QCOMPARE(parseSleepMethod(sleepMethodName(m)), std::optional<SleepMethod>(m));
        QCOMPARE(parseSleepMethod("Busy-Wait"), std::optional<SleepMethod>(SleepMethod::Busy));
        QCOMPARE(parseSleepMethod("relative"), std::optional<SleepMethod>(SleepMethod::Relative));
        QVERIFY(!parseSleepMethod("naptime"));
        QCOMPARE(sleepMethodList(), std::string("nanosleep, rel, abs, busy, hybrid"));
    }

    void sleepFloorJsonRoundTrip()
    {
        SleepFloorConfig c;
        c.requestsNs = {0, 1, 1'000'000};
        c.samples = 50;
        c.methods = {SleepMethod::Hybrid, SleepMethod::Busy};
        c.timerSlackNs = 1;
        c.policy = Policy::RR;
        c.priority = 10;
        c.cpu = 1;
        c.backgroundLoad = true;
        c.hybridMarginNs = 30'000;
        std::vector<std::string> errors;
        const SleepFloorConfig back = sleepFloorConfigFromJson(toJson(c), errors);
        QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
        QVERIFY(back == c);

        errors.clear();
        sleepFloorConfigFromJson(nlohmann::json::array(), errors);
        QCOMPARE(errors, std::vector<std::string>{"sleep-floor config must be a JSON object"});
        errors.clear();
        sleepFloorConfigFromJson(nlohmann::json{{"requests_ns", {0, "1us"}}, {"background_load", 1}}, errors);
        QCOMPARE(errors.size(), size_t(2));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestTimerConfigs)
#include "tst_timer_configs.moc"
