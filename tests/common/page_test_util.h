#pragma once
// What the experiment-page tests share: the set-up, starting a run as the main window does, the 100 ms join on
// stop() and on destruction, a settings round trip, driving a control as a user would, and screenshots.
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "tests/common/test_util.h"
#include "tests/common/thread_census.h"
#include "ui/common/gui_thread_affinity.h"
#include "ui/experiment_page.h"
#include "ui/widgets/duration_spin_box.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>
#include <vector>

namespace rtscope::test {

/// The wake-up signal the waiters use, this machine's probe, and the desktop app's point size (gui_main.cpp), so
/// the screenshots show what a user sees.
inline SystemProbe setUpPageTest()
{
    installWakeSignalHandler();
    QFont f = QApplication::font();
    f.setPointSizeF(12);
    QApplication::setFont(f);
    return probeSystem();
}

inline std::vector<int> onlineCpus()
{
    return CpuTopology::current().online;
}

/// The rule of the timer labs: the measuring threads on CPU 1 when there is one.
inline int measuringCpu()
{
    const CpuTopology t = CpuTopology::current();
    return t.usable(1) ? 1 : t.allowed.back();
}

/// Applies @p config, starts @p page and keeps the GUI thread off its busy CPUs as the main window does; false, with
/// the problems logged, when it did not start.
template <class Page, class Config> bool startRun(Page& page, const Config& config)
{
    if (const QStringList problems = page.applyConfig(config); !problems.isEmpty()) {
        qWarning() << problems;
        return false;
    }
    if (!page.start()) {
        qWarning() << page.problems();
        return false;
    }
    GuiThreadAffinity::keepOff(page.busyCpus());
    return true;
}

/// Stops the running @p page: every worker must be joined within 100 ms.
inline void stopJoinsWithin100ms(ExperimentPage& page)
{
    QVERIFY(page.isRunning());
    QVERIFY(threadsAlive() > 0);
    QElapsedTimer t;
    t.start();
    page.stop();
    const qint64 ms = t.elapsed();
    QVERIFY2(ms < 100, qPrintable(QString("stop took %1 ms").arg(ms)));
    QVERIFY(!page.isRunning());
    QCOMPARE(threadsAlive(), 0);
}

/// Destroys the running @p page: its destructor must join every worker within 100 ms.
inline void destructionJoinsWithin100ms(std::unique_ptr<ExperimentPage> page)
{
    QVERIFY(page->isRunning());
    QElapsedTimer t;
    t.start();
    page.reset();
    const qint64 ms = t.elapsed();
    QVERIFY2(ms < 100, qPrintable(QString("destruction took %1 ms").arg(ms)));
    QCOMPARE(threadsAlive(), 0);
}

/// Saves @p from's settings in a fresh file, inside the page's group as the main window does, and restores them
/// into @p to.
inline void saveAndRestore(const ExperimentPage& from, ExperimentPage& to)
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QSettings settings(dir.filePath("settings.ini"), QSettings::IniFormat);
    settings.beginGroup(from.name());
    from.saveSettings(settings);
    settings.endGroup();
    settings.beginGroup(to.name());
    to.restoreSettings(settings);
    settings.endGroup();
}

/// Sets @p w as a user would: the combo box item whose data is @p value, a duration in ns, a number, a tick, or
/// text followed by Enter.
inline void setControl(QWidget* w, const QVariant& value)
{
    if (auto* box = qobject_cast<QComboBox*>(w)) {
        const int i = box->findData(value.toInt());
        QVERIFY2(i >= 0, qPrintable(QString("%1 has no item %2").arg(w->objectName()).arg(value.toInt())));
        box->setCurrentIndex(i);
    } else if (auto* duration = qobject_cast<DurationSpinBox*>(w)) {
        duration->setValueNs(value.toLongLong());
    } else if (auto* spin = qobject_cast<QSpinBox*>(w)) {
        spin->setValue(value.toInt());
    } else if (auto* slider = qobject_cast<QSlider*>(w)) {
        slider->setValue(value.toInt());
    } else if (auto* check = qobject_cast<QCheckBox*>(w)) {
        check->setChecked(value.toBool());
    } else if (auto* line = qobject_cast<QLineEdit*>(w)) {
        line->setText(value.toString());
        emit line->editingFinished(); // what pressing Enter or leaving the field does
    } else {
        QFAIL("unknown control type");
    }
}

/// One bit per enumerator: a list of methods as a number a data row can hold.
template <class Enum> qlonglong enumMask(const std::vector<Enum>& values)
{
    qlonglong mask = 0;
    for (Enum v : values)
        mask |= 1LL << int(v);
    return mask;
}

/// Writes @p widget to @p file in RTSCOPE_SCREENSHOT_DIR when that is set (scripts/screenshots).
inline void saveScreenshot(QWidget& widget, const QString& file)
{
    const QByteArray dir = qgetenv("RTSCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QDir().mkpath(QString::fromLocal8Bit(dir));
    const QString path = QDir(QString::fromLocal8Bit(dir)).filePath(file);
    QVERIFY(widget.grab().save(path, "PNG"));
    qInfo("screenshot written to %s", qPrintable(path));
}

} // namespace rtscope::test
