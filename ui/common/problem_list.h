#pragma once
// How a page says what is wrong, written once: the problem list under the controls (validate()'s sentences, a
// refused start) and the red banner over the figures that says data was lost.
#include <QString>
#include <QStringList>

class QLabel;

namespace rtscope {

/// Makes @p label a problem list: named "problems", wrapped, selectable, hidden while there is no problem.
void initProblemList(QLabel* label);
/// Shows @p problems in @p label, a "⚠ sentence" paragraph each, as they are; hides it when there are none.
void showProblemList(QLabel* label, const QStringList& problems);
/// The problem list's look: red on pale red, or the dark palette's variant (@p dark).
void styleProblemLabel(QLabel* label, bool dark);

/// Makes @p label the red banner that says data was lost (dropped samples, sequence gaps): named "dataLossWarning",
/// wrapped, hidden while setLossWarning() has no text.
void styleLossWarning(QLabel* label);
/// Shows @p text in the banner; hidden while @p text is empty.
void setLossWarning(QLabel* label, const QString& text);

} // namespace rtscope
