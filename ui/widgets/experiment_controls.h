#pragma once
// The frame the experiment control panels share: a form, the problem panel (validate()'s sentences, shown as
// they are), a run-status line and a hint. While a run is on the form is read-only: a run's config is fixed.
#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;

namespace rtscope {

class ExperimentControls : public QWidget {
    Q_OBJECT
public:
    ~ExperimentControls() override;

    void showProblems(const QStringList& problems);
    void clearProblems() { showProblems({}); }
    QStringList problems() const { return m_problems; }
    void setStatus(const QString& text);
    QString status() const;
    void setRunning(bool running);

signals:
    /// The user changed a control (never emitted while a config is being shown).
    void edited();

protected:
    /// @p idleHint and @p runningHint are shown greyed out under the form.
    ExperimentControls(const QString& idleHint, const QString& runningHint, QWidget* parent = nullptr);
    /// The same hint whether or not a run is on.
    ExperimentControls(const QString& hint, QWidget* parent)
        : ExperimentControls(hint, hint, parent)
    {}
    /// The subclass fills this widget with its controls.
    QWidget* form() const { return m_form; }
    void changeEvent(QEvent* event) override;

private:
    QWidget* m_form;
    QLabel* m_problemLabel;
    QLabel* m_statusLabel;
    QLabel* m_hint;
    QString m_idleHint;
    QString m_runningHint;
    QStringList m_problems;
};

/// The current item's data as an int, or @p fallback when the box has no current item.
int comboData(const QComboBox* box, int fallback);
/// Selects the item whose data is @p value; false (and nothing selected) when there is none.
bool selectComboData(QComboBox* box, int value);

} // namespace rtscope
