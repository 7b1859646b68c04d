// ctest: parallel. Read-only probe; compares repeatable fields.
#include "engine/rt/system_probe.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <fstream>
#include <string>
#include <unistd.h>

using namespace rtscope;

class TestSystemProbe : public QObject {
    Q_OBJECT

private:
    SystemProbe m_probe;

private slots:
    void initTestCase() { m_probe = probeSystem(); }

    void fieldsAreFilledAndSane()
    {
        const SystemProbe& p = m_probe;
        QVERIFY(!p.kernelRelease.empty());
        QVERIFY(!p.kernelVersion.empty());
        QVERIFY(!p.machine.empty());
        QVERIFY(!p.onlineCpus.empty());
        QVERIFY(!p.allowedCpus.empty());
        QVERIFY(std::is_sorted(p.onlineCpus.begin(), p.onlineCpus.end()));
        QCOMPARE(long(p.onlineCpus.size()), sysconf(_SC_NPROCESSORS_ONLN));
        for (int cpu : p.allowedCpus)
            QVERIFY(std::binary_search(p.onlineCpus.begin(), p.onlineCpus.end(), cpu));
        QVERIFY(p.clockResolutionNs >= 1);
        QVERIFY(p.timerSlackNs > 0);
        QVERIFY(p.rtPeriodUs > 0);
        QVERIFY(p.rtRuntimeUs == -1 || (p.rtRuntimeUs >= 0 && p.rtRuntimeUs <= p.rtPeriodUs));
        QVERIFY(p.scheduler == "EEVDF" || p.scheduler == "CFS");
        QVERIFY(!p.preemptModel.empty());
        QVERIFY(!p.clocksource.empty());
        QCOMPARE(p.isRoot, geteuid() == 0);
        if (p.isRoot)
            QVERIFY(p.capSysNice);
        if (!p.rtAvailable)
            QVERIFY(!p.rtUnavailableReason.empty());
        if (!p.dmaLatencyAvailable)
            QVERIFY(!p.dmaLatencyReason.empty());
        if (p.preemptRt)
            QCOMPARE(p.preemptModel, std::string("PREEMPT_RT"));
    }

    void schedulerFollowsKernelVersion()
    {
        int major = 0, minor = 0;
        QVERIFY(std::sscanf(m_probe.kernelRelease.c_str(), "%d.%d", &major, &minor) == 2);
        const bool eevdf = major > 6 || (major == 6 && minor >= 6);
        const bool fairServer = major > 6 || (major == 6 && minor >= 12);
        QCOMPARE(m_probe.scheduler, std::string(eevdf ? "EEVDF" : "CFS"));
        QCOMPARE(m_probe.fairServer, fairServer);
    }

    void hypervisorFlagMeansVirtualMachine()
    {
        std::ifstream in("/proc/cpuinfo");
        std::string line;
        bool flag = false;
        while (std::getline(in, line))
            if (line.rfind("flags", 0) == 0 && (line + " ").find(" hypervisor ") != std::string::npos)
                flag = true;
        if (flag)
            QVERIFY(m_probe.virtualMachine);
        qInfo("virtual machine: %s, hypervisor: '%s', preemption: %s", m_probe.virtualMachine ? "yes" : "no",
              m_probe.hypervisor.c_str(), m_probe.preemptModel.c_str());
    }

    void textIsAlignedKeyValueLines()
    {
        const QString text = QString::fromStdString(m_probe.toText());
        const QStringList lines = text.split('\n', Qt::SkipEmptyParts);
        QVERIFY(lines.size() >= 15);
        int valueColumn = -1;
        for (const QString& line : lines) {
            const int colon = line.indexOf(':');
            QVERIFY2(colon > 0, qPrintable(line));
            int col = colon + 1;
            while (col < line.size() && line[col] == ' ')
                ++col;
            if (valueColumn < 0)
                valueColumn = col;
            QCOMPARE(col, valueColumn);
        }
        QVERIFY(text.contains("kernel: ") || text.contains("kernel:"));
        QVERIFY(text.contains(QString::fromStdString(m_probe.kernelRelease)));
    }

    void probeIsRepeatable()
    {
        const SystemProbe again = probeSystem();
        QCOMPARE(again.kernelRelease, m_probe.kernelRelease);
        QCOMPARE(again.onlineCpus, m_probe.onlineCpus);
        QCOMPARE(again.rtAvailable, m_probe.rtAvailable);
    }

    void parseSysfsCpuList_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<int>>("cpus");
        QTest::newRow("range and single") << "0-3,5" << QList<int>{0, 1, 2, 3, 5};
        QTest::newRow("empty") << "" << QList<int>{};
        QTest::newRow("newline only") << "\n" << QList<int>{};
        QTest::newRow("single") << "7" << QList<int>{7};
        QTest::newRow("two ranges, newline") << "0-1,4-5\n" << QList<int>{0, 1, 4, 5};
        QTest::newRow("degenerate range") << "2-2" << QList<int>{2};
        QTest::newRow("unsorted, duplicate") << "5,1-2,2" << QList<int>{1, 2, 5};
        QTest::newRow("garbage") << "garbage" << QList<int>{};
        QTest::newRow("reversed range") << "3-1" << QList<int>{};
        QTest::newRow("empty item") << "1,,2" << QList<int>{};
        QTest::newRow("trailing comma") << "1," << QList<int>{};
        QTest::newRow("negative") << "-1" << QList<int>{};
        QTest::newRow("half range") << "1-" << QList<int>{};
        QTest::newRow("number then garbage") << "1x" << QList<int>{};
        QTest::newRow("absurd range") << "0-99999999" << QList<int>{};
    }
    void parseSysfsCpuList()
    {
        QFETCH(QString, text);
        QFETCH(QList<int>, cpus);
        const std::vector<int> got = rtscope::parseSysfsCpuList(text.toStdString());
        QCOMPARE(QList<int>(got.begin(), got.end()), cpus);
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestSystemProbe)
#include "tst_system_probe.moc"
