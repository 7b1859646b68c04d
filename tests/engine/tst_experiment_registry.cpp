// ctest: parallel. Config round trips; experiments constructed, never started.
// The experiment registry (engine/experiments/registry.h): every name leads to its own config type, an unknown
// name to none, and every experiment's default config survives its own JSON and validation, the path every preset
// phase takes.
#include "engine/experiments/registry.h"
#include "engine/presets/preset.h"

#include "tests/common/test_main.h"
#include <QtTest>

#include <set>

using namespace rtscope;

class TestExperimentRegistry : public QObject {
    Q_OBJECT

private slots:
    void everyNameLeadsToItsOwnConfig()
    {
        const std::vector<std::string>& names = experimentNames();
        QCOMPARE(names.size(), size_t(8));
        QCOMPARE(std::set<std::string>(names.begin(), names.end()).size(), names.size());
        for (const std::string& name : names) {
            int calls = 0;
            std::string_view reached;
            QVERIFY(withExperimentConfigType(name, [&]<class Config>(std::type_identity<Config>) {
                ++calls;
                reached = ExperimentTraits<Config>::kName;
            }));
            QCOMPARE(calls, 1);
            QCOMPARE(std::string(reached), name);
        }
        QCOMPARE(presetExperiments(), names); // the presets list the registry
    }

    void everyEntryRunsItsOwnConfig()
    {
        // The factory of each entry takes that config, and its run calls itself by the registry's name (the
        // "the latency experiment is already running" sentences).
        [&]<class... Configs>(ExperimentList<Configs...>) {
            (
                [&] {
                    using Experiment = typename ExperimentTraits<Configs>::Experiment;
                    static_assert(std::is_same_v<typename Experiment::Config, Configs>);
                    QCOMPARE(std::string_view(Experiment::RunType::kName), ExperimentTraits<Configs>::kName);
                    Experiment e;
                    QVERIFY(!e.running());
                    QVERIFY(!e.snapshot());
                }(),
                ...);
        }(ExperimentConfigs{});
    }

    void unknownNamesReachNothing()
    {
        for (const char* name : {"", "Latency", "sweep", "latency ", "cpus"}) {
            bool called = false;
            QVERIFY(!withExperimentConfigType(name, [&]<class Config>(std::type_identity<Config>) { called = true; }));
            QVERIFY2(!called, name);
        }
        const std::vector<std::string> errors = validateExperimentConfig("sweep", nlohmann::json::object());
        QCOMPARE(errors.size(), size_t(1));
        QVERIFY2(QString::fromStdString(errors.front())
                     .startsWith("experiment must be one of latency, starvation, drift, sleep-floor, inversion, "
                                 "contention, deadline, noise (got 'sweep')"),
                 errors.front().c_str());
    }

    void defaultConfigsRoundTripAndValidate()
    {
        for (const std::string& name : experimentNames()) {
            withExperimentConfigType(name, [&]<class Config>(std::type_identity<Config>) {
                const nlohmann::json j = toJson(Config{});
                std::vector<std::string> errors;
                const Config back = ExperimentTraits<Config>::fromJson(j, errors);
                QVERIFY2(errors.empty(), (name + ": " + (errors.empty() ? "" : errors.front())).c_str());
                QCOMPARE(toJson(back).dump(), j.dump());
                const std::vector<std::string> problems = validateExperimentConfig(name, j);
                QVERIFY2(problems.empty(), (name + ": " + (problems.empty() ? "" : problems.front())).c_str());
            });
        }
    }

    void readingErrorsComeBeforeRangeChecks()
    {
        // A mistyped field is reported as such, once, not followed by a range verdict on the default it kept.
        const std::vector<std::string> errors =
            validateExperimentConfig("latency", nlohmann::json{{"period_ns", "fast"}});
        QCOMPARE(errors.size(), size_t(1));
        QVERIFY2(QString::fromStdString(errors.front()).contains("period_ns"), errors.front().c_str());
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestExperimentRegistry)
#include "tst_experiment_registry.moc"
