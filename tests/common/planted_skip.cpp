// A unit whose tests end as the environment says, for engine/skip_kinds (tests/engine/tst_skip_kinds.cpp), which
// runs it as a process: RTSCOPE_PLANTED_SKIP=<kind name> makes plantedSkip() skip with that kind,
// RTSCOPE_PLANTED_FAILURE=1 makes plantedFailure() fail. Built as its own executable (planted_skip), not a ctest test.
#include "tests/common/test_main.h"

#include <QtTest>

class PlantedSkip : public QObject {
    Q_OBJECT

private slots:
    void plantedSkip()
    {
        const QString kind = qEnvironmentVariable("RTSCOPE_PLANTED_SKIP");
        if (kind.isEmpty())
            return;
        const std::optional<rtscope::test::SkipKind> k = rtscope::test::skipKindFromName(kind);
        QVERIFY2(k, qPrintable("RTSCOPE_PLANTED_SKIP names no skip kind: " + kind));
        RTSCOPE_SKIP_AS((rtscope::test::Skip{*k, "planted\tby skip_kinds"}));
    }

    void plantedFailure()
    {
        if (qEnvironmentVariableIsSet("RTSCOPE_PLANTED_FAILURE"))
            QFAIL("planted failure");
    }
};

RTSCOPE_TEST_APPLESS_MAIN(PlantedSkip)
#include "planted_skip.moc"
