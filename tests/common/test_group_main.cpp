// main() of a test group: `tst_<area> UNIT [Qt Test arguments]` runs the unit registered as UNIT, exactly as its
// own executable would (same argv for QTest::qExec, with UNIT in argv[0]'s place). Without a unit, or with an
// unknown one, it lists the units and exits 2.
#include "tests/common/test_main.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

namespace rtscope::test {

namespace {
std::map<std::string, UnitMain>& units()
{
    static std::map<std::string, UnitMain> all; // built by static initialisers, before main()
    return all;
}
} // namespace

bool registerUnit(const char* sourceFile, UnitMain main)
{
    std::string unit = sourceFile;
    unit.erase(0, unit.find_last_of('/') + 1);
    if (unit.rfind("tst_", 0) != 0 || unit.size() <= 8 || unit.compare(unit.size() - 4, 4, ".cpp") != 0) {
        std::fprintf(stderr, "test source '%s' is not named tst_<unit>.cpp\n", sourceFile);
        std::abort();
    }
    unit = unit.substr(4, unit.size() - 8);
    if (!units().emplace(unit, main).second) {
        std::fprintf(stderr, "test unit '%s' is registered twice\n", unit.c_str());
        std::abort();
    }
    return true;
}

} // namespace rtscope::test

int main(int argc, char* argv[])
{
    auto& all = rtscope::test::units();
    const auto it = argc > 1 ? all.find(argv[1]) : all.end();
    if (it == all.end()) {
        std::fprintf(stderr, "usage: %s UNIT [Qt Test options]\n%s; units:", argv[0],
                     argc > 1 ? (std::string("no unit named '") + argv[1] + "'").c_str() : "no unit given");
        for (const auto& [name, main] : all)
            std::fprintf(stderr, " %s", name.c_str());
        std::fprintf(stderr, "\n");
        return 2;
    }
    return it->second(argc - 1, argv + 1);
}
