#include "ui/common/problem_list.h"

#include "ui/common/colors.h"
#include "ui/common/text_label.h"

#include <QLabel>

namespace rtscope {

void initProblemList(QLabel* label)
{
    initTextLabel(label, "problems");
    label->hide();
}

void showProblemList(QLabel* label, const QStringList& problems)
{
    if (problems.isEmpty()) {
        label->clear();
        label->hide();
        return;
    }
    QString html;
    for (const QString& p : problems)
        html += "<p style='margin:0 0 4px 0'>⚠ " + p.toHtmlEscaped() + "</p>";
    label->setText(html);
    label->show();
}

void styleProblemLabel(QLabel* label, bool dark)
{
    using namespace colors;
    label->setStyleSheet(QString("QLabel { color: %1; background: %2; border: 1px solid %1; "
                                 "border-radius: 4px; padding: 6px; font-weight: bold; }")
                             .arg(css(dark ? kRedA100 : kAlarmRed), css(dark ? kRedNight : kRed50)));
}

void styleLossWarning(QLabel* label)
{
    label->setObjectName("dataLossWarning");
    label->setWordWrap(true);
    label->setStyleSheet(QString("QLabel { color: white; background: %1; padding: 8px; font-weight: bold; "
                                 "border-radius: 4px; }")
                             .arg(colors::css(colors::kWarningRed)));
    label->hide();
}

void setLossWarning(QLabel* label, const QString& text)
{
    if (label->text() != text)
        label->setText(text);
    label->setVisible(!text.isEmpty());
}

} // namespace rtscope
