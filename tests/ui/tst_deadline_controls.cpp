// ctest: parallel. Controls-to-config mapping only.
// The latency controls with policy deadline (ui/widgets/latency_controls.*, latency_config_mapper.*): SCHED_DEADLINE
// is offered, its runtime and deadline rows appear only for it, a config shows and reads back through them, and the
// problems come from the one validation path, LatencyConfig::validate().
#include "engine/rt/cpu_topology.h"
#include "ui/widgets/duration_spin_box.h"
#include "ui/widgets/latency_config_mapper.h"
#include "ui/widgets/latency_controls.h"

#include "tests/common/test_main.h"
#include <QComboBox>
#include <QFormLayout>

#include <QtTest>

using namespace rtscope;

class TestDeadlineControls : public QObject {
    Q_OBJECT

private slots:
    void rowsAppearOnlyForDeadline()
    {
        LatencyControls controls(CpuTopology::current().online);
        controls.show();
        const LatencyControlWidgets& w = controls.widgets();
        QVERIFY(w.runtime && w.deadline);
        QVERIFY(w.policy->findData(int(Policy::Deadline)) >= 0);
        QVERIFY(!w.runtime->isVisible());
        QVERIFY(!w.deadline->isVisible());
        w.policy->setCurrentIndex(w.policy->findData(int(Policy::Deadline)));
        QVERIFY(w.runtime->isVisible());
        QVERIFY(w.deadline->isVisible());
        QCOMPARE(w.deadline->text(), QString("= period"));
        const LatencyConfig c = controls.mapper().config(LatencyConfig{});
        QCOMPARE(c.policy, Policy::Deadline);
        QCOMPARE(c.runtimeNs, LatencyConfigMapper::kDefaultRuntimeNs);
        QCOMPARE(c.deadlineNs, int64_t(0));
        QVERIFY(c.validate(CpuTopology::current()).empty());
        w.policy->setCurrentIndex(w.policy->findData(int(Policy::Fifo)));
        QVERIFY(!w.runtime->isVisible());
        const LatencyConfig f = controls.mapper().config(LatencyConfig{});
        QCOMPARE(f.runtimeNs, int64_t(0)); // another policy carries no deadline fields
        QCOMPARE(f.deadlineNs, int64_t(0));
    }

    void configShowsAndReadsBack()
    {
        LatencyControls controls(CpuTopology::current().online);
        controls.show();
        LatencyConfig c;
        c.policy = Policy::Deadline;
        c.runtimeNs = 2'000'000;
        c.deadlineNs = 1'000'000;
        QVERIFY(controls.mapper().unrepresentable(c).isEmpty());
        controls.mapper().setConfig(c);
        QVERIFY(controls.widgets().runtime->isVisible()); // setConfig shows the rows too
        QCOMPARE(controls.mapper().config(LatencyConfig{}), c);
        // The window shows what validate() says about it, word for word.
        const auto problems = controls.mapper().config(LatencyConfig{}).validate(CpuTopology::current());
        QVERIFY(!problems.empty());
        QVERIFY2(QString::fromStdString(problems.front()).startsWith("runtime must not exceed deadline"),
                 problems.front().c_str());
    }
};

RTSCOPE_TEST_MAIN(TestDeadlineControls)
#include "tst_deadline_controls.moc"
