// ctest: parallel. Maps controls to config and back; nothing started.
// The latency controls ↔ LatencyConfig mapping, data-driven over every control: a user change of each control
// reaches the config field it names (and says so), and every config shows in the controls and reads back.
#include "engine/rt/cpu_topology.h"
#include "ui/widgets/duration_spin_box.h"
#include "ui/widgets/latency_config_mapper.h"
#include "ui/widgets/latency_controls.h"
#include "ui/widgets/period_editor.h"

#include "tests/common/data_rows.h"
#include "tests/common/page_test_util.h"
#include "tests/common/test_main.h"
#include <QCheckBox>
#include <QComboBox>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>

#include <QtTest>

#include <sched.h>

using namespace rtscope;
using rtscope::test::checkOnlyFieldChanged;
using rtscope::test::onlineCpus;
using rtscope::test::setControlNamed;

Q_DECLARE_METATYPE(rtscope::LatencyConfig)

namespace {

const test::ConfigFields<LatencyConfig> kLatencyFields = {
    {"policy", &LatencyConfig::policy}, {"priority", &LatencyConfig::priority}, {"periodNs", &LatencyConfig::periodNs},
    {"hogs", &LatencyConfig::hogs},     {"cpu", &LatencyConfig::cpu},           {"hogCpu", &LatencyConfig::hogCpu},
    {"waiter", &LatencyConfig::waiter}, {"trace", &LatencyConfig::trace},
};

} // namespace

class TestLatencyConfigMapper : public QObject {
    Q_OBJECT
private slots:
    void everyControlReachesItsField_data()
    {
        test::addColumns<QString, qlonglong, QString, qlonglong, bool>("control", "value", "field", "expected",
                                                                       "fifoFirst");
        for (Policy p : {Policy::Other, Policy::Batch, Policy::Idle, Policy::Fifo, Policy::RR})
            QTest::addRow("policy %s", policyName(p)) << "policy" << qlonglong(p) << "policy" << qlonglong(p) << false;
        for (int prio : {priorityMin(Policy::Fifo), 50, priorityMax(Policy::Fifo)})
            QTest::addRow("priority %d", prio)
                << "priority" << qlonglong(prio) << "priority" << qlonglong(prio) << true;
        QTest::newRow("priority under OTHER is 0") << "priority" << 42LL << "priority" << 0LL << false;
        for (qlonglong ns : {10'000LL, 20'000LL, 250'000LL, 1'000'000LL, 1'000'000'000LL})
            QTest::addRow("period %lld ns", ns) << "period" << ns << "periodNs" << ns << false;
        QTest::newRow("period slider at 0") << "periodSlider" << 0LL << "periodNs" << 10'000LL << false;
        QTest::newRow("period slider at the end")
            << "periodSlider" << qlonglong(PeriodEditor::kSliderSteps) << "periodNs" << 1'000'000'000LL << false;
        for (int hogs : {0, 1, 16, 64})
            QTest::addRow("hogs %d", hogs) << "hogs" << qlonglong(hogs) << "hogs" << qlonglong(hogs) << false;
        QTest::newRow("cpu auto") << "cpu" << -1LL << "cpu" << -1LL << false;
        QTest::newRow("hog cpu same as measuring") << "hogCpu" << -1LL << "hogCpu" << -1LL << false;
        for (int cpu : onlineCpus()) {
            QTest::addRow("cpu %d", cpu) << "cpu" << qlonglong(cpu) << "cpu" << qlonglong(cpu) << false;
            QTest::addRow("hog cpu %d", cpu) << "hogCpu" << qlonglong(cpu) << "hogCpu" << qlonglong(cpu) << false;
        }
        for (WaiterKind w : {WaiterKind::Absolute, WaiterKind::Relative, WaiterKind::Timerfd, WaiterKind::Itimer,
                             WaiterKind::Posix, WaiterKind::Busy})
            QTest::addRow("waiter %s", waiterName(w)) << "waiter" << qlonglong(w) << "waiter" << qlonglong(w) << false;
        // "Explain spikes (kernel tracing)": on and off, whatever the probe says about this machine (the box is
        // disabled where tracing cannot work, but a config that asks for it still shows and reads back).
        QTest::newRow("trace on") << "trace" << 1LL << "trace" << 1LL << false;
        QTest::newRow("trace off") << "trace" << 0LL << "trace" << 0LL << false;
    }
    void everyControlReachesItsField()
    {
        QFETCH(QString, control);
        QFETCH(qlonglong, value);
        QFETCH(QString, field);
        QFETCH(qlonglong, expected);
        QFETCH(bool, fifoFirst);

        LatencyControls controls(onlineCpus());
        LatencyConfig start;
        start.hogs = 2; // so a row that sets hogs to 0 is a change
        start.periodNs = 2'000'000;
        start.waiter = WaiterKind::Timerfd;
        if (fifoFirst) {
            start.policy = Policy::Fifo;
            start.priority = 10;
        }
        // Start from a different value, so setting the control is a change the user could make.
        if (field != "priority" && kLatencyFields.of(start, field) == expected) {
            if (field == "cpu")
                start.cpu = expected == -1 ? onlineCpus().front() : -1;
            else if (field == "hogCpu")
                start.hogCpu = expected == -1 ? onlineCpus().front() : -1;
            else if (field == "waiter")
                start.waiter = WaiterKind::Absolute;
            else if (field == "policy")
                start.policy = Policy::Batch;
            else if (field == "trace")
                start.trace = !start.trace;
        }
        controls.mapper().setConfig(start);
        QSignalSpy edited(&controls, &LatencyControls::edited);
        setControlNamed(controls, control, value);
        // The slider is throttled; everything else reports at once.
        QTRY_COMPARE_WITH_TIMEOUT(edited.count(), 1, 2000);
        // The field the row names, and nothing else moved.
        checkOnlyFieldChanged(controls.mapper().config(start), start, field, expected, kLatencyFields);
    }

    void configsShowAndReadBack_data()
    {
        QTest::addColumn<LatencyConfig>("config");
        const std::vector<int> cpus = onlineCpus();
        int row = 0;
        for (Policy p : {Policy::Other, Policy::Batch, Policy::Idle, Policy::Fifo, Policy::RR}) {
            for (WaiterKind w : {WaiterKind::Absolute, WaiterKind::Relative, WaiterKind::Timerfd, WaiterKind::Itimer,
                                 WaiterKind::Posix, WaiterKind::Busy}) {
                LatencyConfig c;
                c.policy = p;
                c.priority = isRealtime(p) ? 1 + row % 99 : 0;
                c.waiter = w;
                c.periodNs = (row % 2) ? 20'000 : 5'000'000;
                c.hogs = row % 65;
                c.cpu = row % 3 == 0 ? -1 : cpus[size_t(row) % cpus.size()];
                c.hogCpu = row % 4 == 0 ? -1 : cpus[size_t(row + 1) % cpus.size()];
                c.nice = 3; // no control: must come from the base config untouched
                c.trace = row % 2 == 0;
                c.traceThresholdNs = 250'000; // no control either
                c.traceTop = 7;
                QTest::addRow("%s %s", policyName(p), waiterName(w)) << c;
                ++row;
            }
        }
    }
    void configsShowAndReadBack()
    {
        QFETCH(LatencyConfig, config);
        LatencyControls controls(onlineCpus());
        QSignalSpy edited(&controls, &LatencyControls::edited);
        QVERIFY(controls.mapper().unrepresentable(config).isEmpty());
        controls.mapper().setConfig(config);
        QCOMPARE(edited.count(), 0); // config → controls is not a user edit
        QVERIFY(controls.mapper().config(config) == config);
        QCOMPARE(controls.widgets().priority->isEnabled(), isRealtime(config.policy));
    }

    void priorityRangeComesFromTheKernel()
    {
        LatencyControls controls(onlineCpus());
        QCOMPARE(controls.widgets().priority->minimum(), sched_get_priority_min(SCHED_FIFO));
        QCOMPARE(controls.widgets().priority->maximum(), sched_get_priority_max(SCHED_FIFO));
        QCOMPARE(controls.widgets().hogs->maximum(), 64);
        QCOMPARE(controls.widgets().period->minimumNs(), int64_t(10'000));
        QCOMPARE(controls.widgets().period->maximumNs(), int64_t(1'000'000'000));
    }

    void valuesOutsideTheWindowAreReportedNotClamped()
    {
        LatencyControls controls(onlineCpus());
        LatencyConfig c;
        c.periodNs = 5'000'000'000;
        c.hogs = 100;
        c.cpus = {0, 1};
        const QStringList problems = controls.mapper().unrepresentable(c);
        QCOMPARE(problems.size(), 3);
        QVERIFY2(problems[0].startsWith("period must be between 10.0 µs and 1.000 s"), qPrintable(problems[0]));
        QVERIFY2(problems[1].startsWith("hogs must be between 0 and 64"), qPrintable(problems[1]));
        QVERIFY2(problems[2].startsWith("cpus: the window measures one CPU"), qPrintable(problems[2]));
    }

    void sliderIsLogScaledAndThrottled()
    {
        PeriodEditor editor(20'000, 1'000'000'000);
        QCOMPARE(editor.periodAt(0), int64_t(20'000));
        QCOMPARE(editor.periodAt(PeriodEditor::kSliderSteps), int64_t(1'000'000'000));
        int64_t previous = 0;
        for (int pos = 0; pos <= PeriodEditor::kSliderSteps; pos += 50) {
            QVERIFY(editor.periodAt(pos) > previous);
            previous = editor.periodAt(pos);
        }
        // The middle of a log slider over 20 µs … 1 s is the geometric mean, about 4.5 ms.
        const int64_t mid = editor.periodAt(PeriodEditor::kSliderSteps / 2);
        QVERIFY(mid > 4'000'000 && mid < 5'000'000);

        QSignalSpy changed(&editor, &PeriodEditor::periodChanged);
        for (int pos = 100; pos < 200; pos += 10)
            editor.slider()->setValue(pos); // a drag: ten moves at once
        QCOMPARE(changed.count(), 0);
        QTRY_COMPARE(changed.count(), 1);
        QCOMPARE(changed.first().first().value<int64_t>(), editor.periodAt(190));
        QCOMPARE(editor.periodNs(), editor.periodAt(190));
    }

    void durationSpinBoxReadsUnits_data()
    {
        test::addColumns<QString, qlonglong>("text", "ns");
        QTest::newRow("250us") << "250us" << 250'000LL;
        QTest::newRow("µs") << QString::fromUtf8("250 µs") << 250'000LL;
        QTest::newRow("1.5ms") << "1.5ms" << 1'500'000LL;
        QTest::newRow("bare µs") << "500" << 500'000LL;
        QTest::newRow("1 s") << "1s" << 1'000'000'000LL;
    }
    void durationSpinBoxReadsUnits()
    {
        QFETCH(QString, text);
        QFETCH(qlonglong, ns);
        DurationSpinBox box;
        box.setRangeNs(20'000, 1'000'000'000);
        int pos = 0;
        QString t = text;
        QCOMPARE(box.validate(t, pos), QValidator::Acceptable);
        QCOMPARE(box.valueFromText(text), double(ns));
        QString tooShort = "5us";
        QCOMPARE(box.validate(tooShort, pos), QValidator::Intermediate);
        QCOMPARE(DurationSpinBox::formatNs(1'500'000), QString::fromUtf8("1.5 ms"));
        QCOMPARE(DurationSpinBox::formatNs(20'000), QString::fromUtf8("20 µs"));
        QCOMPARE(DurationSpinBox::formatNs(1'000'000'000), QString("1 s"));
        box.setValueNs(1'000'000);
        box.stepBy(1);
        QCOMPARE(box.valueNs(), int64_t(2'000'000));
        box.stepBy(-2);
        QCOMPARE(box.valueNs(), int64_t(500'000));
    }
};

RTSCOPE_TEST_MAIN(TestLatencyConfigMapper)
#include "tst_latency_config_mapper.moc"
