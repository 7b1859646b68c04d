#pragma once
// The entry point of a Qt Test unit. Every tests/<area>/tst_<unit>.cpp ends with one of the three macros below
// instead of QTEST_MAIN / QTEST_GUILESS_MAIN / QTEST_APPLESS_MAIN; they expand to what Qt's macros expand to (the
// same application object, attributes and QFINDTESTDATA source path), with one difference: when the build
// defines RTSCOPE_TEST_GROUPED, the unit registers itself with its area's test group
// (tests/common/test_group_main.cpp) instead of defining main(), under the name of its file (tst_<unit>.cpp ->
// "<unit>", taken from __FILE__, which names the unit's own source even inside a unity file). A group links every
// unit of an area into one executable, so the suite links three executables instead of fifty; ctest still runs
// each unit on its own, in its own process, as `tst_<area> <unit>` (tests/CMakeLists.txt). The other difference:
// the unit ends through finishUnit() (tests/common/test_skip.h), which lists its skips and exits 77 when it skipped
// anything and failed nothing, so that ctest reports it as skipped.
#include "tests/common/test_skip.h"

#include <QtTest/QtTest>

namespace rtscope::test {
using UnitMain = int (*)(int argc, char* argv[]);
/// Registers @p main under the unit named by @p sourceFile, a path ending in tst_<unit>.cpp (called from a static
/// initialiser); returns true.
bool registerUnit(const char* sourceFile, UnitMain main);
} // namespace rtscope::test

// The body of Qt's QTEST_MAIN_WRAPPER (qtest.h, Qt 6.4) minus the self-coverage hook, which is empty outside Qt's
// own coverage builds, and with qExec's result (the number of failures) passed through finishUnit().
#define RTSCOPE_TEST_BODY(TestObject, ...)                                                                             \
    {                                                                                                                  \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                                             \
        __VA_ARGS__                                                                                                    \
        TestObject tc;                                                                                                 \
        QTEST_SET_MAIN_SOURCE_PATH                                                                                     \
        return rtscope::test::finishUnit(__FILE__, QTest::qExec(&tc, argc, argv));                                     \
    }

#ifdef RTSCOPE_TEST_GROUPED
// Named after the test class, so that the units compiled together in one unity file do not collide.
#define RTSCOPE_TEST_ENTRY(TestObject, ...)                                                                            \
    namespace {                                                                                                        \
    namespace unit_##TestObject                                                                                        \
    {                                                                                                                  \
        int unitMain(int argc, char* argv[]) RTSCOPE_TEST_BODY(TestObject, __VA_ARGS__)                                \
            [[maybe_unused]] const bool registered = rtscope::test::registerUnit(__FILE__, unitMain);                  \
    }                                                                                                                  \
    }
#else
#define RTSCOPE_TEST_ENTRY(TestObject, ...) int main(int argc, char* argv[]) RTSCOPE_TEST_BODY(TestObject, __VA_ARGS__)
#endif

/// QTEST_MAIN: QApplication in a widgets build, QGuiApplication with Qt Gui, else QCoreApplication.
#define RTSCOPE_TEST_MAIN(TestObject) RTSCOPE_TEST_ENTRY(TestObject, QTEST_MAIN_SETUP())
/// QTEST_GUILESS_MAIN: a QCoreApplication.
#define RTSCOPE_TEST_GUILESS_MAIN(TestObject) RTSCOPE_TEST_ENTRY(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
/// QTEST_APPLESS_MAIN: no application object.
#define RTSCOPE_TEST_APPLESS_MAIN(TestObject) RTSCOPE_TEST_ENTRY(TestObject)
