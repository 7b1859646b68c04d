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

bool registerUnit(const char* unit, UnitMain main)
{
    if (!units().emplace(unit, main).second) {
        std::fprintf(stderr, "test unit '%s' is registered twice\n", unit);
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
