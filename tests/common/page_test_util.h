#pragma once
// What the experiment-page tests share: the set-up, starting a run as the main window does, the 100 ms join on
// stop() and on destruction, a settings round trip, driving a control as a user would, and screenshots.
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/sched_policy.h"
#include "engine/rt/system_probe.h"
#include "tests/common/config_fields.h"
#include "tests/common/test_util.h"
#include "tests/common/thread_census.h"
#include "ui/common/gui_thread_affinity.h"
#include "ui/experiment_page.h"
#include "ui/widgets/duration_spin_box.h"
#include "ui/widgets/experiment_controls.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>
#include <type_traits>
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

/// One control of @p page both ways. Config → widgets → config: the defaults changed by @p edit go in and come back
/// exactly, and @p shown (given the config) holds once they are in. Widget → config: from the defaults, @p userEdit
/// of @p controls' widgets is one edit that gives the defaults changed by @p expectedFromUser, nothing else.
template <class Page, class Controls, class Edit, class UserEdit, class Shown>
void checkMapperRoundTrip(Page& page, Controls& controls, const Edit& edit, const UserEdit& userEdit,
                          const Edit& expectedFromUser, const Shown& shown)
{
    using Config = std::decay_t<decltype(page.config())>;
    const Config defaults = page.config();
    Config c = defaults;
    edit(c);
    QVERIFY(!(c == defaults)); // the row really changes something
    QCOMPARE(page.applyConfig(c), QStringList());
    QVERIFY(shown(c));
    QVERIFY(page.config() == c);

    QVERIFY(page.applyConfig(defaults).isEmpty());
    QSignalSpy edited(&controls, &ExperimentControls::edited);
    userEdit(controls.widgets());
    QCOMPARE(edited.count(), 1);
    Config expected = defaults;
    expectedFromUser(expected);
    QVERIFY(page.config() == expected);
}

/// @p page refuses @p bad as a whole: problems naming @p sentence, shown by the page and in @p controls' problems
/// label, the config as it was, and nothing running.
template <class Page, class Config>
void checkRefusedAsAWhole(Page& page, const ExperimentControls& controls, const Config& bad, const QString& sentence)
{
    const Config before = page.config();
    const QStringList problems = page.applyConfig(bad);
    QVERIFY(!problems.isEmpty());
    QVERIFY2(problems.join(" | ").contains(sentence), qPrintable(problems.join(" | ")));
    QCOMPARE(page.problems(), problems);
    const auto* label = controls.findChild<QLabel*>("problems");
    QVERIFY(label);
    QVERIFY2(label->text().contains(sentence.toHtmlEscaped()), qPrintable(label->text()));
    QVERIFY(page.config() == before); // refused as a whole: the controls keep the last valid config
    QVERIFY(!page.isRunning());
}

/// @p page's config changed by @p edit is refused as a whole (checkRefusedAsAWhole).
template <class Page, class Edit>
void checkEditRefusedAsAWhole(Page& page, const ExperimentControls& controls, const Edit& edit, const QString& sentence)
{
    auto bad = page.config();
    edit(bad);
    checkRefusedAsAWhole(page, controls, bad, sentence);
}

/// Shows @p start in @p controls, which must be able to show it and read it back as it was.
template <class Controls, class Config> void showStartConfig(Controls& controls, const Config& start)
{
    QVERIFY(controls.mapper().unrepresentable(start).isEmpty());
    controls.mapper().setConfig(start);
    QVERIFY(controls.mapper().config(start) == start);
}

/// Sets the control named @p name among @p controls' children to @p value, as a user would.
inline void setControlNamed(const QWidget& controls, const QString& name, const QVariant& value)
{
    QWidget* w = controls.findChild<QWidget*>(name);
    QVERIFY2(w, qPrintable("no control named " + name));
    setControl(w, value);
}

/// A timer lab's @p config shown in @p controls (not a user edit) and read back exactly over the defaults; the
/// priority editable for a real-time policy only, the custom slack only for a slack above 1 ns.
template <class Controls, class Config> void checkTimerConfigShown(Controls& controls, const Config& config)
{
    QSignalSpy edited(&controls, &ExperimentControls::edited);
    QVERIFY(controls.mapper().unrepresentable(config).isEmpty());
    controls.mapper().setConfig(config);
    QCOMPARE(edited.count(), 0); // config → controls is not a user edit
    QVERIFY(controls.mapper().config(Config{}) == config);
    QCOMPARE(controls.widgets().priority->isEnabled(), isRealtime(config.policy));
    QCOMPARE(controls.widgets().slackCustom->isEnabled(), config.timerSlackNs > 1);
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
