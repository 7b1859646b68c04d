#include "ui/timers/timer_controls.h"

#include "ui/widgets/duration_spin_box.h"
#include "ui/widgets/experiment_controls.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>

namespace rtscope {

void SlackWidgets::populate(int64_t maxCustomNs) const
{
    choice->clear();
    choice->addItem(QObject::tr("default (thread's own)"), int(SlackChoice::Default));
    choice->addItem(QObject::tr("1 ns (smallest)"), int(SlackChoice::OneNs));
    choice->addItem(QObject::tr("custom"), int(SlackChoice::Custom));
    custom->setRangeNs(1, maxCustomNs);
    custom->setValueNs(10'000);
}

void SlackWidgets::show(int64_t slackNs) const
{
    if (slackNs == 0) {
        choice->setCurrentIndex(choice->findData(int(SlackChoice::Default)));
    } else if (slackNs == 1) {
        choice->setCurrentIndex(choice->findData(int(SlackChoice::OneNs)));
    } else {
        choice->setCurrentIndex(choice->findData(int(SlackChoice::Custom)));
        custom->setValueNs(slackNs);
    }
}

int64_t SlackWidgets::slackNs() const
{
    switch (SlackChoice(comboData(choice, int(SlackChoice::Default)))) {
    case SlackChoice::Default:
        return 0;
    case SlackChoice::OneNs:
        return 1;
    case SlackChoice::Custom:
        return custom->valueNs();
    }
    return 0;
}

void SlackWidgets::updateEnabled() const
{
    custom->setEnabled(comboData(choice, 0) == int(SlackChoice::Custom));
}

QHBoxLayout* SlackWidgets::row() const
{
    auto* slack = new QHBoxLayout;
    slack->addWidget(choice, 1);
    slack->addWidget(custom, 1);
    return slack;
}

void stackFormOverMethods(QWidget* panel, QFormLayout* rows, QGroupBox* methods)
{
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(rows);
    layout->addWidget(methods);
}

} // namespace rtscope
