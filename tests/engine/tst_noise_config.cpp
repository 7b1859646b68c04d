// ctest: parallel. Pure validation.
// The noise lab's config: every bad field gives one sentence naming the field and its range, valid configs give none,
// the JSON form round-trips and unknown keys are reported. No threads, no timing.
#include "engine/experiments/noise/noise_config.h"
#include "engine/experiments/noise/noise_snapshot.h"
#include "engine/rt/cpu_topology.h"

#include "tests/common/data_rows.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace rtscope;
using namespace rtscope::test;

class TestNoiseConfig : public QObject {
    Q_OBJECT
private slots:
    void defaultsAreValid()
    {
        const NoiseConfig c;
        QVERIFY2(c.validate(twoCpuTopology()).empty(), qPrintable(joined(c.validate(twoCpuTopology()))));
        QCOMPARE(c.resolvedCpus(twoCpuTopology()), std::vector<int>{1});
        QCOMPARE(QString::fromStdString(c.label()), QString("OTHER · CPU auto · threshold 1.0 us · 5.000 s · traced"));
    }

    // One row per bad field: the sentence that must appear (and it must be the only one).
    void validation_data()
    {
        test::addRows<QString, QString, int, qint64, qint64, QString>(
            {"cpus", "policy", "priority", "threshold", "duration", "expected"},
            {{"threshold 0", "1", "other", 0, qint64(0), qint64(5'000'000'000),
              "threshold must be between 100 ns and 10.00 ms (got 0 ns)"},
             {"threshold negative", "1", "other", 0, qint64(-5), qint64(5'000'000'000),
              "threshold must be between 100 ns and 10.00 ms (got -5 ns)"},
             {"threshold too long", "1", "other", 0, qint64(20'000'000), qint64(5'000'000'000),
              "threshold must be between 100 ns and 10.00 ms (got 20.00 ms)"},
             {"cpu that does not exist", "1,7", "other", 0, qint64(1000), qint64(5'000'000'000),
              "cpus must list online CPUs this process may use (0-1); got 7"},
             {"cpu twice", "1,1", "other", 0, qint64(1000), qint64(5'000'000'000), "cpus lists CPU 1 more than once"},
             {"duration below range", "1", "other", 0, qint64(1000), qint64(50'000'000),
              "duration must be between 100.00 ms and 86400.000 s, or 0 for until stopped (got 50.00 ms)"},
             {"duration negative", "1", "other", 0, qint64(1000), qint64(-1),
              "duration must be between 100.00 ms and 86400.000 s, or 0 for until stopped (got -1 ns)"},
             {"fifo on every cpu", "0,1", "fifo", 50, qint64(1000), qint64(5'000'000'000),
              "cpus: a fifo run needs a usable CPU besides CPU 0-1 (usable: 0-1), because a real-time poller "
              "takes its whole CPU and must never hold every one; measure fewer CPUs or choose policy other"},
             {"fifo priority 0", "1", "fifo", 0, qint64(1000), qint64(5'000'000'000),
              "priority must be between 1 and 99 for fifo (got 0)"},
             {"other with a priority", "1", "other", 5, qint64(1000), qint64(5'000'000'000),
              "priority must be 0 for other (got 5); choose policy fifo or rr for a real-time priority"},
             {"deadline", "1", "deadline", 0, qint64(1000), qint64(5'000'000'000),
              "policy must be one of other, batch, idle, fifo, rr (got deadline): a "
              "SCHED_DEADLINE thread is not pinned and gets only its runtime, so it cannot "
              "poll one CPU"}});
    }
    void validation()
    {
        QFETCH(QString, cpus);
        QFETCH(QString, policy);
        QFETCH(int, priority);
        QFETCH(qint64, threshold);
        QFETCH(qint64, duration);
        QFETCH(QString, expected);
        NoiseConfig c;
        for (const QString& n : cpus.split(',', Qt::SkipEmptyParts))
            c.cpus.push_back(n.toInt());
        c.policy = *parseLatencyPolicy(policy.toStdString());
        c.priority = priority;
        c.thresholdNs = threshold;
        c.durationNs = duration;
        const std::vector<std::string> problems = c.validate(twoCpuTopology());
        QCOMPARE(joined(problems), expected);
    }

    void edgesAreValid()
    {
        NoiseConfig c;
        c.cpus = {0};
        c.policy = Policy::Fifo;
        c.priority = 99;
        c.thresholdNs = NoiseConfig::kMinThresholdNs;
        c.durationNs = 0; // until stopped
        QVERIFY2(c.validate(twoCpuTopology()).empty(), qPrintable(joined(c.validate(twoCpuTopology()))));
        c.thresholdNs = NoiseConfig::kMaxThresholdNs;
        c.durationNs = NoiseConfig::kMaxDurationNs;
        QVERIFY(c.validate(twoCpuTopology()).empty());
        QCOMPARE(QString::fromStdString(c.label()), QString("FIFO 99 · CPU 0 · threshold 10.00 ms · 86400.000 s · "
                                                            "traced"));
    }

    void noCpuUsable()
    {
        CpuTopology none;
        none.online = {0, 1};
        const NoiseConfig c;
        QCOMPARE(joined(c.validate(none)), QString("cpus: this process may not run on any online CPU"));
    }

    void jsonRoundTrip()
    {
        NoiseConfig c;
        c.cpus = {0, 1};
        c.policy = Policy::RR;
        c.priority = 42;
        c.thresholdNs = 2500;
        c.durationNs = 0;
        c.trace = false;
        const nlohmann::json j = toJson(c);
        QCOMPARE(QString::fromStdString(j.dump()),
                 QString(R"({"cpus":[0,1],"duration_ns":0,"policy":"rr","priority":42,"threshold_ns":2500,)"
                         R"("trace":false})"));
        std::vector<std::string> errors;
        const NoiseConfig back = noiseConfigFromJson(j, errors);
        QVERIFY2(errors.empty(), qPrintable(joined(errors)));
        QVERIFY(back == c);
    }

    void jsonProblemsNameTheField()
    {
        std::vector<std::string> errors;
        const NoiseConfig c = noiseConfigFromJson(
            nlohmann::json::parse(R"({"cpus":"1","policy":"often","threshold_ns":1.5,"trace":1,"thresh":5})"), errors);
        const QString all = joined(errors);
        QVERIFY2(all.contains("unknown field 'thresh'"), qPrintable(all));
        QVERIFY2(all.contains("cpus must be an array of CPU numbers"), qPrintable(all));
        QVERIFY2(all.contains("policy must be one of other, batch, idle, fifo, rr"), qPrintable(all));
        QVERIFY2(all.contains("threshold_ns must be an integer"), qPrintable(all));
        QVERIFY2(all.contains("trace must be true or false"), qPrintable(all));
        QCOMPARE(errors.size(), size_t(5));
        QVERIFY(c == NoiseConfig{}); // every refused field keeps its default
        errors.clear();
        (void)noiseConfigFromJson(nlohmann::json::array(), errors);
        QCOMPARE(joined(errors), QString("noise config must be a JSON object"));
    }

    void kindNames()
    {
        QStringList names, labels;
        for (NoiseKind k : kNoiseKinds) {
            names << noiseKindName(k);
            labels << noiseKindLabel(k);
        }
        QCOMPARE(names.join(','), QString("irq,softirq,nmi,thread,unexplained,untraced"));
        QCOMPARE(labels.join(','), QString("IRQ,softirq,NMI,thread,unexplained (HW/VM),untraced"));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestNoiseConfig)
#include "tst_noise_config.moc"
