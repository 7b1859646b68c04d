#pragma once
// The start page (docs/gui.md, "Start page"): what the window shows when the app opens without a page or a file.
// One large card per built-in lesson (resources/presets: its title, the question it answers, a drawn sketch of
// its view, how long its script runs, and what it needs from this machine, from the real system probe), "Open a
// result…", the "Where does my CPU go?" card (the Noise page), a "Tune this machine" card (the Doctor page), the
// machine's verdict in one line, and "Show at start". A click on a card asks for its lesson; Escape asks to leave for
// the scope. The window decides what those do (MainWindow).
#include "engine/presets/preset.h"
#include "engine/rt/system_probe.h"
#include "engine/trace/trace_session.h"

#include <QList>
#include <QString>
#include <QWidget>

#include <vector>

class QAbstractButton;
class QAction;
class QCheckBox;
class QLabel;
class QPushButton;

namespace rtscope {

/// One thing a lesson needs from the machine, and whether this machine has it.
struct LessonNeed {
    QString what;         ///< "real-time priority", "tracefs", "/dev/cpu_dma_latency"
    bool available;       ///< as the probe found it
    QString why;          ///< the probe's sentence when it is missing (the reason and the fix); empty otherwise
    QString text() const; ///< "needs real-time priority: available" / "…: not available here"
};

class StartPage : public QWidget {
    Q_OBJECT
public:
    /// @p lessons in card order (builtinPresets()); @p probe and @p trace are this machine's (tests pass their own).
    StartPage(const std::vector<Preset>& lessons, const SystemProbe& probe, const TraceProbe& trace,
              QWidget* parent = nullptr);

    int cardCount() const { return int(m_cards.size()); }
    /// The card of lesson @p index (objectName "lesson-<id>"); clicking it emits lessonChosen(id).
    QAbstractButton* card(int index) const { return m_cards.value(index); }
    /// The line under a card's question: how long, and what it needs ("up to 16 s · needs real-time priority: …").
    QString cardDetails(int index) const;
    QCheckBox* showAtStartBox() const { return m_showAtStart; }
    QPushButton* openButton() const { return m_open; }
    QPushButton* connectButton() const { return m_connect; }
    /// The "Tune this machine" card under the lessons: emits doctorRequested(); hidden until setDoctorAvailable(true).
    QAbstractButton* doctorCard() const { return m_doctor; }
    void setDoctorAvailable(bool available);
    /// The "Where does my CPU go?" lesson card after the preset lessons (the noise lab is a page of its own, not a
    /// preset): emits noiseRequested(); hidden until setNoiseAvailable(true).
    QAbstractButton* noiseCard() const { return m_noise; }
    void setNoiseAvailable(bool available);
    QLabel* verdictLabel() const { return m_verdict; }
    /// The verbs behind "Open a result…" (File › Open recording…, Open cyclictest results…): a menu when several.
    void setOpenActions(const QList<QAction*>& actions);
    /// The verb behind "Connect to a target…" (File › Connect to target…); the button stays disabled without one.
    void setConnectAction(QAction* action);

    /// "Real-time priority: available · kernel 6.18 PREEMPT_DYNAMIC (full) · 2 CPUs, none isolated".
    static QString systemVerdict(const SystemProbe& probe);
    /// What @p lesson needs, read from its configurations as the experiment fills them in (its defaults too): a
    /// real-time policy or a priority above 0 needs real-time priority, "trace" needs tracefs, "dma_latency" needs
    /// /dev/cpu_dma_latency. Empty when it needs nothing special.
    static std::vector<LessonNeed> lessonNeeds(const Preset& lesson, const SystemProbe& probe, const TraceProbe& trace);
    /// The question a built-in lesson answers, by preset id; the description's first sentence for any other.
    static QString lessonQuestion(const Preset& lesson);
    /// How long the lesson's script runs at most: one phase length per configuration ("up to 16 s").
    static QString lessonDuration(const Preset& lesson);

signals:
    void lessonChosen(const QString& presetId);
    /// Escape on the page: go to the scope.
    void leaveRequested();
    void showAtStartToggled(bool show);
    /// "Tune this machine…": go to the Doctor page.
    void doctorRequested();
    /// "Where does my CPU go?": go to the Noise page.
    void noiseRequested();

private:
    QAbstractButton* makeCard(const Preset& lesson, const std::vector<LessonNeed>& needs);
    QAbstractButton* makeDoctorCard(const SystemProbe& probe);
    QAbstractButton* makeNoiseCard(const SystemProbe& probe, const TraceProbe& trace);

    QList<QAbstractButton*> m_cards;
    QStringList m_details;
    QLabel* m_verdict;
    QPushButton* m_open;
    QPushButton* m_connect;
    QAbstractButton* m_doctor = nullptr;
    QAbstractButton* m_noise = nullptr;
    QCheckBox* m_showAtStart;
};

} // namespace rtscope
