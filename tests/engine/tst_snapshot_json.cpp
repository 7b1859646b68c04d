// The snapshots of the six experiments other than latency, and of the sweep, as JSON (engine/remote/snapshot_json.h):
// the snapshots of real short runs, mid-run and final, survive toJson → fromJson → toJson unchanged, with their logs
// and histograms; hostile JSON (wrong types, long lists, parts that do not fit together) is refused with a sentence
// naming the field, never read past.
#include "engine/experiments/registry.h"
#include "engine/remote/snapshot_json.h"
#include "engine/util/clock.h"

#include "tests/common/data_rows.h"
#include "tests/common/short_experiment_configs.h"
#include "tests/common/test_main.h"
#include <QtTest>

#include <cmath>

using namespace rtscope;

namespace {

constexpr const char* kSnapshotJsonKinds[] = {"starvation", "drift",    "sleep-floor", "inversion",
                                              "contention", "deadline", "noise"};

QByteArray snapshotJsonFirst(const std::vector<std::string>& errors)
{
    return errors.empty() ? QByteArray("(no sentence)") : QByteArray::fromStdString(errors.front());
}

// toJson(back) == j for the snapshot read back from j, with no sentence.
template <class Config> void snapshotJsonRoundTrip(const nlohmann::json& j, const std::string& what)
{
    std::vector<std::string> errors;
    const auto back = snapshotFromJson(std::type_identity<Config>{}, j, errors);
    QVERIFY2(back, (what + ": " + snapshotJsonFirst(errors).toStdString()).c_str());
    QVERIFY2(errors.empty(), snapshotJsonFirst(errors).constData());
    const nlohmann::json again = toJson(*back);
    if (again != j) {
        const nlohmann::json diff = nlohmann::json::diff(j, again);
        QFAIL((what + ": the round trip changed " + diff.dump().substr(0, 600)).c_str());
    }
}

// Starts @p name's short run, round-trips one live snapshot and the final one; the final JSON in @p final.
template <class Config> void snapshotJsonRunAndCheck(const std::string& name, nlohmann::json& final)
{
    using Experiment = typename ExperimentTraits<Config>::Experiment;
    std::vector<std::string> problems;
    const Config c = ExperimentTraits<Config>::fromJson(test::shortExperimentConfig(name), problems);
    QVERIFY2(problems.empty(), snapshotJsonFirst(problems).constData());
    Experiment e;
    const Error err = e.start(c, ExperimentTraits<Config>::placementTopology());
    QVERIFY2(!err, (name + ": " + err.message).c_str());
    QTRY_VERIFY_WITH_TIMEOUT(e.snapshot() && e.snapshot()->generation > 1, 3000);
    const auto live = e.snapshot();
    snapshotJsonRoundTrip<Config>(toJson(*live), name + " (live)");
    const int64_t end = nowNs() + 8'000 * kNsPerMs;
    while (!e.finished() && nowNs() < end)
        QTest::qWait(10);
    e.stop();
    const auto last = e.snapshot();
    QVERIFY(last);
    final = toJson(*last);
    snapshotJsonRoundTrip<Config>(final, name + " (final)");
    QCOMPARE(final.at("running").get<bool>(), false);
}

template <class Config> std::vector<std::string> snapshotJsonRead(const nlohmann::json& j)
{
    std::vector<std::string> errors;
    const auto s = snapshotFromJson(std::type_identity<Config>{}, j, errors);
    if (s && errors.empty())
        return {};
    return errors.empty() ? std::vector<std::string>{"(refused without a sentence)"} : errors;
}

} // namespace

class TestSnapshotJson : public QObject {
    Q_OBJECT

    // The final JSON of each kind's run, for the hostile edits.
    std::map<std::string, nlohmann::json> m_final;
    // The final JSON of a short real sweep (sweepSnapshotsRoundTrip), for the sweep's hostile edits.
    nlohmann::json m_sweepFinal;

private slots:
    void initTestCase()
    {
        for (const char* name : kSnapshotJsonKinds)
            withExperimentConfigType(name, [&]<class Config>(std::type_identity<Config>) {
                if constexpr (!std::is_same_v<Config, LatencyConfig>) // latency streams the recording instead
                    snapshotJsonRunAndCheck<Config>(name, m_final[name]);
            });
    }

    void realRunsCarryTheirFigures()
    {
        // The round trips above are only worth something if the runs filled what the pages draw.
        const nlohmann::json& starvation = m_final.at("starvation");
        QVERIFY(!starvation.at("counters").empty());
        QVERIFY(starvation.at("counters")[0].at("ops").get<uint64_t>() > 0);
        QVERIFY(!starvation.at("counters")[0].at("rate").empty());
        QCOMPARE(starvation.at("bursts").size(), size_t(1));

        const nlohmann::json& drift = m_final.at("drift");
        QCOMPARE(drift.at("methods").size(), size_t(2));
        for (const nlohmann::json& m : drift.at("methods")) {
            QVERIFY(m.at("wakes").get<uint64_t>() > 0);
            QCOMPARE(m.at("ticks").size(), m.at("wakes").get<size_t>());
        }

        const nlohmann::json& sleep = m_final.at("sleep-floor");
        QCOMPARE(sleep.at("cells").size(), size_t(4));
        QCOMPARE(sleep.at("samples").size(), size_t(2 * 2 * test::shortSleepFloorConfig().samples));

        const nlohmann::json& inversion = m_final.at("inversion");
        QVERIFY(inversion.at("high_wait").at("count").get<uint64_t>() > 0);
        QVERIFY(!inversion.at("timeline").empty());
        QVERIFY(!inversion.at("periods").empty());

        const nlohmann::json& contention = m_final.at("contention");
        QCOMPARE(contention.at("kinds").size(), size_t(2));
        QVERIFY(contention.at("kinds")[0].at("wait").at("count").get<uint64_t>() > 0);

        const nlohmann::json& deadline = m_final.at("deadline");
        QVERIFY(!deadline.at("tasks").empty());
        QVERIFY(!deadline.at("jobs").empty());
        QVERIFY(deadline.at("counter").at("windows").get<uint64_t>() > 0);

        const nlohmann::json& noise = m_final.at("noise");
        QCOMPARE(noise.at("cpus").size(), size_t(1));
        QVERIFY(noise.at("cpus")[0].at("loops").get<uint64_t>() > 0);
        QCOMPARE(noise.at("cpus")[0].at("histogram").size(), kNoiseHistogramBuckets);
    }

    void histogramsKeepEveryFigure()
    {
        std::vector<std::string> errors;
        const auto s = inversionSnapshotFromJson(m_final.at("inversion"), errors);
        QVERIFY2(s, snapshotJsonFirst(errors).constData());
        const nlohmann::json& h = m_final.at("inversion").at("high_wait");
        QCOMPARE(s->highWait.count(), h.at("count").get<uint64_t>());
        QCOMPARE(s->highWait.min(), h.at("min").get<int64_t>());
        QCOMPARE(s->highWait.max(), h.at("max").get<int64_t>());
        QCOMPARE(s->highWait.percentile(100), s->highWait.max());
        QVERIFY(s->highWait.percentile(50) > 0);
    }

    void logsReadBackAsLogs()
    {
        std::vector<std::string> errors;
        const auto drift = driftSnapshotFromJson(m_final.at("drift"), errors);
        QVERIFY(drift);
        QCOMPARE(drift->methods[0].ticks().size(), size_t(drift->methods[0].wakes));
        const auto sleep = sleepFloorSnapshotFromJson(m_final.at("sleep-floor"), errors);
        QVERIFY(sleep);
        QCOMPARE(sleep->rawSamples().size(), size_t(sleep->samplesDone));
        QVERIFY(sleep->samplesDone > 0);
    }

    void notANumberTravelsAsNull()
    {
        DriftSnapshot s;
        s.config = test::shortDriftConfig();
        s.nominalHz = std::nan("");
        const nlohmann::json j = toJson(s);
        QVERIFY(j.at("nominal_hz").is_null());
        std::vector<std::string> errors;
        const auto back = driftSnapshotFromJson(j, errors);
        QVERIFY(back && std::isnan(back->nominalHz));
        QCOMPARE(toJson(*back), j);
    }

    void hostileInputNamesTheField_data()
    {
        // pointer: JSON pointer of the field to replace
        // value: its new value, as JSON
        test::addRows<QString, QString, QString, QString>(
            {"kind", "pointer", "value", "sentence"},
            {{"counter ops a string", "starvation", "/counters/0/ops", "\"many\"",
              "counters[0].ops must be an unsigned integer"},
             {"negative unsigned", "starvation", "/generation", "-1", "generation must be an unsigned integer"},
             {"int beyond its type", "starvation", "/controller_cpu", "4294967296",
              "controller_cpu must be an integer in"},
             {"lead-in longer than its array", "starvation", "/lead_in", "[1,2,3,4,5,6,7,8,9,10,11,12]",
              "lead_in has 12 elements, more than the"},
             {"starved counters past the list", "starvation", "/starved_counters", "7",
              "starved_counters 7 must be 0 … the"},
             {"drift method out of range", "drift", "/methods/0/method", "99",
              "methods[0].method must be an integer in 0 … 5"},
             {"drift ticks not a list", "drift", "/methods/1/ticks", "{}", "methods[1].ticks must be a list"},
             {"drift tick not an object", "drift", "/methods/1/ticks/0", "3", "methods[1].ticks[0] must be an object"},
             {"config field", "drift", "/config/period_ns", "\"fast\"", "config: period_ns"},
             {"sleep cells that do not fit", "sleep-floor", "/cells", "[]",
              "cells has 0 entries; the config's 2 requests × 2 methods need 4"},
             {"sleep sample of no request", "sleep-floor", "/samples/0/request", "7",
              "samples: a sample names request 7"},
             {"histogram bucket out of range", "inversion", "/high_wait/buckets/0/0", "99999999",
              "high_wait.buckets names bucket 99999999"},
             {"histogram count that does not add up", "inversion", "/high_wait/count", "1",
              "high_wait buckets and overflow do not add up"},
             {"segment lane", "inversion", "/timeline/0/lane", "3", "timeline[0].lane must be an integer in 0 … 2"},
             {"contention kinds short", "contention", "/kinds/1", "null", "kinds[1] must be an object"},
             {"contention kind missing", "contention", "/current_kind", "5", "current_kind 5 must be -1 … 1"},
             {"jobs per cpu too long", "deadline", "/tasks/0/jobs_per_cpu",
              QString::fromStdString(nlohmann::json(std::vector<int>(1025, 0)).dump()),
              "tasks[0].jobs_per_cpu has 1025 elements, more than the 1024"},
             {"deadline job slot", "deadline", "/jobs/0/slot", "40", "jobs: a job names slot 40"},
             {"bool a number", "deadline", "/running", "1", "running must be true or false"}});
    }

    void hostileInputNamesTheField()
    {
        QFETCH(QString, kind);
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, sentence);
        nlohmann::json j = m_final.at(kind.toStdString());
        j[nlohmann::json::json_pointer(pointer.toStdString())] = nlohmann::json::parse(value.toStdString());
        std::vector<std::string> errors;
        withExperimentConfigType(kind.toStdString(), [&]<class Config>(std::type_identity<Config>) {
            if constexpr (!std::is_same_v<Config, LatencyConfig>)
                errors = snapshotJsonRead<Config>(j);
        });
        QVERIFY2(!errors.empty(), "accepted");
        QVERIFY2(QString::fromStdString(errors.front()).startsWith(sentence), errors.front().c_str());
    }

    // The sweep (not a registry entry, but the agent runs it): a real short sweep's snapshots, one with the running
    // setting's live latency snapshot and the final one, survive the round trip with every figure.
    void sweepSnapshotsRoundTrip()
    {
        const SweepConfig c = test::shortSweepConfig();
        SweepExperiment e;
        QVERIFY(!e.start(c, ExperimentTraits<SweepConfig>::placementTopology()));
        QTRY_VERIFY_WITH_TIMEOUT(e.snapshot() && e.snapshot()->live && !e.snapshot()->live->threads.empty() &&
                                     e.snapshot()->live->threads.front().samples > 10,
                                 3000);
        const nlohmann::json live = toJson(*e.snapshot());
        QVERIFY(!live.at("live").is_null());
        snapshotJsonRoundTrip<SweepConfig>(live, "sweep (live)");
        QTRY_VERIFY_WITH_TIMEOUT(e.finished(), 5000);
        e.stop();
        m_sweepFinal = toJson(*e.snapshot());
        snapshotJsonRoundTrip<SweepConfig>(m_sweepFinal, "sweep (final)");
        qInfo("sweep snapshot JSON: %zu bytes with the running setting (%zu timeline points), %zu bytes final",
              live.dump().size(), live.at("live").at("threads")[0].at("series").size(), m_sweepFinal.dump().size());
        // Worth something only with the figures the page draws: every setting's row with its histogram.
        QCOMPARE(m_sweepFinal.at("running").get<bool>(), false);
        QCOMPARE(m_sweepFinal.at("finished").get<bool>(), true);
        QCOMPARE(m_sweepFinal.at("results").size(), size_t(2));
        for (const nlohmann::json& r : m_sweepFinal.at("results")) {
            QVERIFY2(r.at("error").get<std::string>().empty(), r.at("error").get<std::string>().c_str());
            QVERIFY(r.at("stats").at("samples").get<uint64_t>() > 50);
            QCOMPARE(r.at("stats").at("histogram").at("count"), r.at("stats").at("samples"));
            QVERIFY(r.at("stats").at("series").empty()); // the sweep keeps no timeline per setting
        }
        std::vector<std::string> errors;
        const auto back = sweepSnapshotFromJson(m_sweepFinal, errors);
        QVERIFY(back);
        QCOMPARE(back->config, c);
        QCOMPARE(back->results[1].setting, c.settings[1]);
        QCOMPARE(back->results[1].stats.histogram.percentile(99),
                 e.snapshot()->results[1].stats.histogram.percentile(99));
    }

    void sweepHostileInputNamesTheField_data()
    {
        test::addRows<QString, QString, QString>(
            {"pointer", "value", "sentence"},
            {{"policy out of range", "/results/0/setting/policy", "99",
              "results[0].setting.policy must be an integer in 0 … 5"},
             {"total not the settings", "/total", "7", "total 7 must be the config's 2 settings"},
             {"current past the settings", "/current", "2", "current 2 must be 0 … 1"},
             {"result of another setting", "/results/1/setting/priority", "50",
              "results[1].setting is not the config's setting 1 (FIFO 1)"},
             {"config settings unreadable", "/config/settings", "\"fast\"", "config: settings: 'fast' is not a policy"},
             {"samples a string", "/results/0/stats/samples", "\"many\"",
              "results[0].stats.samples must be an unsigned integer"},
             {"histogram that does not add up", "/results/0/stats/histogram/count", "1",
              "results[0].stats.histogram buckets and overflow do not"},
             {"live not an object", "/live", "[]", "live must be an object"},
             {"results longer than the settings allowed", "/results",
              QString::fromStdString(nlohmann::json(std::vector<int>(33, 0)).dump()),
              "results has 33 elements, more than the 32 allowed"}});
    }

    void sweepHostileInputNamesTheField()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, sentence);
        QVERIFY2(!m_sweepFinal.is_null(), "sweepSnapshotsRoundTrip made no sweep");
        nlohmann::json j = m_sweepFinal;
        j[nlohmann::json::json_pointer(pointer.toStdString())] = nlohmann::json::parse(value.toStdString());
        const std::vector<std::string> errors = snapshotJsonRead<SweepConfig>(j);
        QVERIFY2(!errors.empty(), "accepted");
        QVERIFY2(QString::fromStdString(errors.front()).startsWith(sentence), errors.front().c_str());
        // A series longer than the aggregator keeps is refused before any point is read.
        nlohmann::json big = m_sweepFinal;
        big["results"][0]["stats"]["series"] = nlohmann::json::array();
        big["results"][0]["stats"]["series"].get_ref<nlohmann::json::array_t&>().resize(
            LatencyAggregator::kSeriesCapacity + 1);
        QVERIFY(QString::fromStdString(snapshotJsonRead<SweepConfig>(big).front())
                    .startsWith("results[0].stats.series has 120001 elements, more than the 120000 allowed"));
    }

    void shapesThatAreNoSnapshot()
    {
        for (const char* text : {"null", "[]", "3", "\"x\""}) {
            std::vector<std::string> errors;
            QVERIFY(!starvationSnapshotFromJson(nlohmann::json::parse(text), errors));
            QCOMPARE(errors.front(), std::string("the snapshot must be a JSON object"));
        }
        // A contention list shorter than the config's kinds.
        nlohmann::json j = m_final.at("contention");
        j["kinds"].erase(1);
        QVERIFY(QString::fromStdString(snapshotJsonRead<ContentionConfig>(j).front())
                    .startsWith("kinds has 1 entries for the config's 2 lock kinds"));
        // A list over the global bound is refused before any element is read.
        nlohmann::json big = m_final.at("deadline");
        big["admission"] = nlohmann::json::array();
        big["admission"].get_ref<nlohmann::json::array_t&>().resize(kMaxSnapshotListItems + 1);
        QVERIFY(QString::fromStdString(snapshotJsonRead<DeadlineConfig>(big).front())
                    .startsWith("admission has 1000001 elements, more than the 1000000 allowed"));
        // Absent fields keep their defaults: an empty object reads (a peer one version apart).
        std::vector<std::string> errors;
        QVERIFY(inversionSnapshotFromJson(nlohmann::json::object(), errors));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestSnapshotJson)
#include "tst_snapshot_json.moc"
