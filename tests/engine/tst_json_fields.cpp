// ctest: parallel. Pure JSON field readers.
// JsonFields: the typed JSON field reader of every config and the recording header. Each problem is one sentence
// that starts with the field's path; a refused field keeps its default; problems are collected.
#include "engine/experiments/latency/latency_config.h"
#include "engine/util/json_fields.h"

#include "tests/common/data_rows.h"
#include "tests/common/test_main.h"

#include <QtTest>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

using namespace rtscope;

class TestJsonFields : public QObject {
    Q_OBJECT

    enum class Colour { Red, Green };
    static std::optional<Colour> parseColour(std::string_view name)
    {
        if (name == "red")
            return Colour::Red;
        if (name == "green")
            return Colour::Green;
        return std::nullopt;
    }

private slots:
    void readsEveryType()
    {
        const auto j = nlohmann::json::parse(R"({"n": -5, "u": 7, "big": 18446744073709551615, "b": true,
            "d": 2.5, "di": 3, "s": "text", "c": "green", "l": [1, 2, 3]})");
        std::vector<std::string> problems;
        JsonFields f(j, problems);
        QVERIFY(f.ok());
        int n = 0;
        uint64_t u = 0, big = 0;
        bool b = false;
        double d = 0, di = 0;
        std::string s;
        Colour c = Colour::Red;
        std::vector<int> l;
        QVERIFY(f.integer("n", n));
        QVERIFY(f.integer("u", u));
        QVERIFY(f.integer("big", big));
        QVERIFY(f.boolean("b", b));
        QVERIFY(f.number("d", d));
        QVERIFY(f.number("di", di));
        QVERIFY(f.string("s", s));
        QVERIFY(f.name("c", c, parseColour, "red, green"));
        QVERIFY(f.integerList("l", l));
        QCOMPARE(n, -5);
        QCOMPARE(u, uint64_t(7));
        QCOMPARE(big, UINT64_MAX);
        QVERIFY(b);
        QCOMPARE(d, 2.5);
        QCOMPARE(di, 3.0);
        QCOMPARE(s, std::string("text"));
        QVERIFY(c == Colour::Green);
        QCOMPARE(l, (std::vector<int>{1, 2, 3}));
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
    }

    void absentFieldsKeepTheirDefaults()
    {
        const nlohmann::json j = nlohmann::json::object();
        std::vector<std::string> problems;
        JsonFields f(j, problems);
        int n = 42;
        std::vector<int> l{9};
        QVERIFY(!f.integer("n", n));
        QVERIFY(!f.integerList("l", l));
        QCOMPARE(n, 42);
        QCOMPARE(l, std::vector<int>{9});
        QVERIFY(problems.empty());
        QVERIFY(!f.integer({"n", Presence::Required}, n));
        QCOMPARE(problems, std::vector<std::string>{"n is missing"});
    }

    // Every problem a field can have, in the configs' wording: the sentence, and the default kept.
    void sentences_data()
    {
        test::addRows<QString, QString>(
            {"json", "expected"}, {{"float for an integer", R"({"i": 1.5})", "i must be an integer"},
                                   {"string for an integer", R"({"i": "1"})", "i must be an integer"},
                                   {"above int", R"({"i": 2147483648})", "i is out of range"},
                                   {"below int", R"({"i": -2147483649})", "i is out of range"},
                                   // Read as int64_t, 2^64 - 1 would wrap to -1: it is out of range, not -1.
                                   {"above int64", R"({"i64": 18446744073709551615})", "i64 is out of range"},
                                   {"below the field's range", R"({"ranged": 0})", "ranged is out of range"},
                                   {"above the field's range", R"({"ranged": 11})", "ranged is out of range"},
                                   {"negative unsigned", R"({"u": -1})", "u must not be negative"},
                                   {"string for a bool", R"({"b": "yes"})", "b must be true or false"},
                                   {"string for a number", R"({"d": "2.5"})", "d must be a number"},
                                   {"number out of range", R"({"d": 1e300})", "d is out of range"},
                                   {"number for a string", R"({"s": 5})", "s must be a string"},
                                   {"unknown name", R"({"c": "blue"})", "c must be one of red, green"},
                                   {"number for a name", R"({"c": 1})", "c must be one of red, green"},
                                   {"object for a list", R"({"l": {}})", "l must be a list"},
                                   {"list too long", R"({"l": [1, 2, 3, 4]})", "l must be a list"},
                                   {"bad element", R"({"l": [1, "x"]})", "l[1] must be an integer"},
                                   {"element out of range", R"({"l": [1, 2, 300]})", "l[2] is out of range"},
                                   {"field phrase", R"({"cpus": [1, -1]})", "cpus must be an array of CPU numbers"},
                                   {"item phrase", R"({"p": [-1]})", "p must hold numbers from 0 to 255"},
                                   {"unknown field", R"({"colour": 1})", "unknown field 'colour'"}});
    }
    void sentences()
    {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        const auto j = nlohmann::json::parse(json.toStdString());
        std::vector<std::string> problems;
        JsonFields f(j, problems);
        f.rejectUnknown({"i", "i64", "ranged", "u", "b", "d", "s", "c", "l", "cpus", "p"});
        int i = 1, ranged = 5;
        int64_t i64 = 1;
        uint64_t u = 1;
        bool b = false;
        double d = 1;
        std::string s = "default";
        Colour c = Colour::Red;
        std::vector<int> l{7}, cpus{7}, p{7};
        f.integer("i", i);
        f.integer("i64", i64);
        f.integer("ranged", ranged, 1, 10);
        f.integer("u", u);
        f.boolean("b", b);
        f.number("d", d, 0, 1e9);
        f.string("s", s);
        f.name("c", c, parseColour, "red, green");
        f.integerList("l", l, {0, 255, 0, 3});
        f.integerList({"cpus", Presence::Optional, "must be an array of CPU numbers"}, cpus, {0});
        f.integerList("p", p, {0, 255, 0, SIZE_MAX, "must hold numbers from 0 to 255"});
        QCOMPARE(problems, std::vector<std::string>{expected.toStdString()});
        // A refused field keeps its default.
        QCOMPARE(i, 1);
        QCOMPARE(ranged, 5);
        QCOMPARE(i64, int64_t(1));
        QCOMPARE(u, uint64_t(1));
        QVERIFY(!b);
        QCOMPARE(d, 1.0);
        QCOMPARE(s, std::string("default"));
        QVERIFY(c == Colour::Red);
        QCOMPARE(l, std::vector<int>{7});
        QCOMPARE(cpus, std::vector<int>{7});
        QCOMPARE(p, std::vector<int>{7});
    }

    void problemsAreCollectedInOrder()
    {
        const auto j = nlohmann::json::parse(R"({"a": "x", "zz": 1, "b": 1.5, "c": [], "d": null})");
        std::vector<std::string> problems;
        JsonFields f(j, problems, "test config");
        f.rejectUnknown({"a", "b", "c", "d"});
        int a = 0, b = 0;
        bool c = false;
        std::string d;
        f.integer("a", a);
        f.integer("b", b);
        f.boolean("c", c);
        f.string({"d", Presence::Optional, "must be a command line"}, d);
        f.string({"e", Presence::Required}, d);
        QCOMPARE(problems,
                 (std::vector<std::string>{"unknown field 'zz'", "a must be an integer", "b must be an integer",
                                           "c must be true or false", "d must be a command line", "e is missing"}));
    }

    void notAnObjectIsOneSentence()
    {
        std::vector<std::string> problems;
        const nlohmann::json list = nlohmann::json::array({1, 2});
        JsonFields f(list, problems, "test config");
        QVERIFY(!f.ok());
        int n = 3;
        QVERIFY(!f.integer({"n", Presence::Required}, n)); // nothing more is said: every field reads as absent
        f.rejectUnknown({});
        QCOMPARE(n, 3);
        QCOMPARE(problems, std::vector<std::string>{"test config must be a JSON object"});

        problems.clear();
        JsonFields unnamed(list, problems, {}, JsonWording::labels());
        QCOMPARE(problems, std::vector<std::string>{"expected an object"});
    }

    // The full path of a field in nested objects and lists: "phases[1].config.period_ns".
    void nestedPathsAreFull()
    {
        const auto j = nlohmann::json::parse(R"({"phases": [{"config": {}}, {"config": {"period_ns": "1 ms",
            "colour": 1, "cpus": [0, "x"]}}, 5], "base": 3})");
        std::vector<std::string> problems;
        JsonFields f(j, problems, "preset");
        JsonFields second = f.element("phases", 1);
        QVERIFY(second.ok());
        QCOMPARE(second.path(), std::string("phases[1]"));
        JsonFields config = second.object({"config", Presence::Required});
        QVERIFY(config.ok());
        config.rejectUnknown({"period_ns", "cpus"});
        int64_t period = 1000;
        std::vector<int> cpus;
        QVERIFY(!config.integer("period_ns", period));
        QVERIFY(!config.integerList("cpus", cpus));
        QVERIFY(!f.element("phases", 2).ok());
        QVERIFY(!f.element("phases", 3).ok()); // no such element: absent, nothing said
        QVERIFY(!f.object("base").ok());
        QVERIFY(!f.object("absent").ok());
        QVERIFY(!f.element("phases", 0).object("missing").ok());
        QVERIFY(!f.element("phases", 0).object({"required", Presence::Required}).ok());
        QCOMPARE(period, int64_t(1000));
        QCOMPARE(problems, (std::vector<std::string>{"phases[1].config: unknown field 'colour'",
                                                     "phases[1].config.period_ns must be an integer",
                                                     "phases[1].config.cpus[1] must be an integer",
                                                     "phases[2] must be a JSON object", "base must be a JSON object",
                                                     "phases[0].required is missing"}));
    }

    void labelsWording()
    {
        const auto j = nlohmann::json::parse(R"({"format": 1, "start_ns": -5, "cpus": [], "on": 1, "kind": "x"})");
        std::vector<std::string> problems;
        JsonFields f(j, problems, {}, JsonWording::labels());
        std::string format;
        int64_t start = 0;
        std::vector<int> cpus;
        bool on = false;
        Colour c = Colour::Red;
        f.string("format", format);
        f.integer("start_ns", start, 0, INT64_MAX);
        f.integer({"end_ns", Presence::Required}, start);
        f.integerList({"cpus", Presence::Optional, "expected an array of 1 to 128 CPU numbers"}, cpus,
                      {0, 65535, 1, 128});
        f.boolean("on", on);
        f.name("kind", c, parseColour, "red, green");
        QCOMPARE(problems,
                 (std::vector<std::string>{"format: expected a string", "start_ns: out of range", "end_ns: missing",
                                           "cpus: expected an array of 1 to 128 CPU numbers",
                                           "on: expected true or false", "kind: expected one of red, green"}));
    }

    void listCallsEachElementUntilItSaysStop()
    {
        const auto j = nlohmann::json::parse(R"({"names": ["a", "b", 3, "d"], "one": "a"})");
        std::vector<std::string> problems;
        JsonFields f(j, problems);
        std::vector<std::string> seen;
        QVERIFY(f.list("names", [&](const nlohmann::json& item, size_t i) {
            if (!item.is_string()) {
                f.report(f.itemPath("names", i), "must be a name");
                return false;
            }
            seen.push_back(item.get<std::string>());
            return true;
        }));
        QCOMPARE(seen, (std::vector<std::string>{"a", "b"}));
        QVERIFY(!f.list("one", [](const nlohmann::json&, size_t) { return true; }));
        QVERIFY(!f.list("absent", [](const nlohmann::json&, size_t) { return true; }));
        QCOMPARE(problems, (std::vector<std::string>{"names[2] must be a name", "one must be a list"}));
    }

    // The configs read through JsonFields: an integer above INT64_MAX is refused, not wrapped to a negative
    // number ("cpu": 2^64 - 1 was once read as -1, "the highest usable CPU").
    void configsRefuseHugeIntegers()
    {
        std::vector<std::string> errors;
        const LatencyConfig c = latencyConfigFromJson(
            nlohmann::json::parse(R"({"cpu": 18446744073709551615, "nice": 18446744073709551615})"), errors);
        QCOMPARE(errors, (std::vector<std::string>{"nice is out of range", "cpu is out of range"}));
        QCOMPARE(c.cpu, LatencyConfig{}.cpu);
        QCOMPARE(c.nice, LatencyConfig{}.nice);
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestJsonFields)
#include "tst_json_fields.moc"
