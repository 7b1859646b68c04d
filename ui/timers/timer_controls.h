#pragma once
// What the two timer panels (drift, sleep floor) build alike: the timer-slack choice (a combo and a custom value),
// the group of method switches, and the form stacked over that group.
#include <QCheckBox>
#include <QGroupBox>
#include <QString>
#include <QVBoxLayout>

#include <cstdint>
#include <map>

class QComboBox;
class QFormLayout;
class QHBoxLayout;
class QWidget;

namespace rtscope {

class DurationSpinBox;

/// How the timer slack is chosen: the thread's default, the smallest (1 ns), or a custom value.
enum class SlackChoice { Default, OneNs, Custom };

/// The slack widgets of a timer panel: @p choice holds SlackChoice, @p custom the custom value.
struct SlackWidgets {
    QComboBox* choice = nullptr;
    DurationSpinBox* custom = nullptr;

    /// The three choices, and a custom value of 1 ns … @p maxCustomNs (10 µs to begin with).
    void populate(int64_t maxCustomNs) const;
    /// Shows @p slackNs (0 = the thread's default, 1 = the smallest, else custom), emitting nothing the caller has
    /// not blocked.
    void show(int64_t slackNs) const;
    /// The slack the widgets describe, as show() takes it.
    int64_t slackNs() const;
    /// The custom value is editable only while chosen.
    void updateEnabled() const;
    /// The choice and the custom value side by side, for one form row.
    QHBoxLayout* row() const;
};

/// A "Methods" group of one switch a method, in @p methods' order: labelled @p label(m), named "method_<name(m)>".
template <class Method, class Methods, class Label, class Name>
QGroupBox* methodSwitches(QWidget* parent, const Methods& methods, Label label, Name name,
                          std::map<Method, QCheckBox*>& switches)
{
    auto* group = new QGroupBox(QObject::tr("Methods"), parent);
    auto* layout = new QVBoxLayout(group);
    for (Method m : methods) {
        auto* box = new QCheckBox(QString::fromLatin1(label(m)), group);
        box->setObjectName(QString("method_%1").arg(QString::fromLatin1(name(m))));
        layout->addWidget(box);
        switches[m] = box;
    }
    return group;
}

/// Fills @p panel with @p rows over @p methods, without margins of its own.
void stackFormOverMethods(QWidget* panel, QFormLayout* rows, QGroupBox* methods);

} // namespace rtscope
