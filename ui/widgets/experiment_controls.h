#pragma once
// The frame the experiment control panels share: a form, the problem panel (validate()'s sentences, shown as
// they are), a run-status line and a hint. While a run is on the form is read-only: a run's config is fixed.
// A panel whose changes apply to the running experiment at once (LatencyControls) simply never calls setRunning().
#include "ui/widgets/field_edits.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;

namespace rtscope {

class ExperimentControls : public QWidget {
    Q_OBJECT
public:
    ~ExperimentControls() override;

    void showProblems(const QStringList& problems);
    void clearProblems() { showProblems({}); }
    QStringList problems() const { return m_problems; }
    /// One line under the form saying what is running ("Running: FIFO 80 · 1.00 ms · …"); hidden while empty.
    void setStatus(const QString& text);
    QString status() const;
    void setRunning(bool running);
    /// Replaces both hints with @p text, shown whether or not a run is on; an empty text hides the hint (for pages
    /// that reuse a panel and have their own hint, or none).
    void setHint(const QString& text);

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
    /// The subclass fills this widget with its controls: either through formLayout(), or a layout of its own.
    QWidget* form() const { return m_form; }
    /// A new @p Field in form(), named @p name (tests and presets find it by that name), with @p toolTip if any.
    template <class Field> Field* newField(const char* name, const QString& toolTip = QString()) const
    {
        auto* field = new Field(m_form);
        field->setObjectName(QString::fromLatin1(name));
        if (!toolTip.isEmpty())
            field->setToolTip(toolTip);
        return field;
    }
    /// newField() for a spin box that changes the config only once the typing is done (no keyboard tracking).
    template <class SpinBox> SpinBox* newSpinField(const char* name, const QString& toolTip = QString()) const
    {
        auto* field = newField<SpinBox>(name, toolTip);
        field->setKeyboardTracking(false);
        return field;
    }
    /// The form's label–field layout, made on first use: no margins of its own and fields that take the panel's
    /// width. A subclass that gives form() another layout never calls this.
    QFormLayout* formLayout();
    void changeEvent(QEvent* event) override;

private:
    QWidget* m_form;
    QFormLayout* m_formLayout = nullptr;
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

/// "auto (CPU n)" with n the highest of @p cpus (where auto lands), or "auto" when there are none.
QString autoCpuText(const std::vector<int>& cpus);
/// The CPU choices of @p box made @p cpus: "CPU n" (data n) after the box's leading choices of negative data (auto,
/// "same as measuring"), the first of which is renamed @p autoText unless that is null. The chosen CPU stays chosen
/// while it is among @p cpus, else the first choice (auto) is. Emits nothing (the controls' setCpus() does, once).
/// Returns whether the choice fell back, i.e. the config the controls show changed.
bool refillCpuCombo(QComboBox* box, const std::vector<int>& cpus, const QString& autoText = QString());

/// Controls whose widgets and config meet in a @p Mapper: a class with populate(cpus), unrepresentable(config),
/// setConfig(config), config(base), updateEnabled() and widgets() (a struct of the fields, a `cpu` box among them).
/// The subclass makes the fields, then setUpMapper() and watchMapped().
template <class Mapper> class MappedControls : public ExperimentControls {
public:
    Mapper& mapper() { return *m_mapper; }
    const auto& widgets() const { return m_mapper->widgets(); }
    /// The CPU choices become @p cpus (the measured machine's: a remote target's, docs/remote.md); when the chosen CPU
    /// is not among them the box falls back to its first choice (auto) and edited() is emitted once, so the page takes
    /// the config now shown.
    void setCpus(const std::vector<int>& cpus)
    {
        if (refillCpuCombo(m_mapper->widgets().cpu, cpus, m_autoNamesCpu ? autoCpuText(cpus) : QString()))
            emit edited();
    }

protected:
    using ExperimentControls::ExperimentControls;

    /// The mapper of @p widgets, its choices filled for @p cpus.
    template <class Widgets> void setUpMapper(const Widgets& widgets, const std::vector<int>& cpus)
    {
        m_mapper = std::make_unique<Mapper>(widgets);
        m_mapper->populate(cpus);
    }
    /// An edit of any of @p fields updates which fields are enabled, then emits edited().
    template <class... Fields> void watchMapped(const Fields&... fields)
    {
        watchFields(
            this,
            [this] {
                m_mapper->updateEnabled();
                emit edited();
            },
            fields...);
    }

    std::unique_ptr<Mapper> m_mapper;
    /// Whether "auto" names the CPU it lands on (autoCpuText()); false where auto is not one CPU.
    bool m_autoNamesCpu = true;
};

} // namespace rtscope
