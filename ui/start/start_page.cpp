#include "ui/start/start_page.h"

#include "engine/experiments/registry.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/sched_policy.h"
#include "ui/common/colors.h"
#include "ui/common/text_label.h"
#include "ui/start/lesson_thumbnail.h"

#include <QAbstractButton>
#include <QAction>
#include <QCheckBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QVBoxLayout>

#include <map>

namespace rtscope {

namespace {

// The question each built-in lesson answers (resources/presets/<id>.json). A preset file has no such field: the
// card says what the lesson is for in the words a newcomer would ask it, which the description does not.
const std::map<std::string, const char*>& startPageQuestions()
{
    static const std::map<std::string, const char*> questions = {
        {"fifo-vs-other", QT_TRANSLATE_NOOP("StartPage", "How late does a thread wake up, and what does SCHED_FIFO "
                                                         "change when the CPU is busy?")},
        {"fifo-starvation",
         QT_TRANSLATE_NOOP("StartPage", "What happens to ordinary threads when a real-time thread never sleeps?")},
        {"drift-vs-absolute",
         QT_TRANSLATE_NOOP("StartPage", "Why does a sleep loop fall behind, and which timers keep time?")},
        {"sleep-floor-slack",
         QT_TRANSLATE_NOOP("StartPage", "How short can a sleep really be, and what sets the floor?")},
        {"priority-inversion",
         QT_TRANSLATE_NOOP("StartPage", "How can a low-priority thread hold up a high-priority one?")},
        {"spin-sleep-adaptive", QT_TRANSLATE_NOOP("StartPage", "Should a thread waiting for a lock spin or sleep?")},
        {"deadline-cannot-starve", QT_TRANSLATE_NOOP("StartPage", "Can a real-time thread run away without starving "
                                                                  "the machine?")},
    };
    return questions;
}

bool startPageKeyEndsWith(const std::string& key, const char* name)
{
    const std::string suffix = std::string("_") + name;
    return key == name ||
           (key.size() > suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0);
}

struct StartPageWants {
    bool realtime = false;
    bool trace = false;
    bool dmaLatency = false;
};

// Every config names its threads' policies "policy"/"…_policy" and their real-time priorities "priority"/
// "…_priority" (0 = none); the inversion lab has priorities only, all SCHED_FIFO. A policy that is not one of the
// normal three needs the privilege, whatever it is called.
void startPageScan(const nlohmann::json& j, StartPageWants& wants)
{
    if (!j.is_object())
        return;
    for (const auto& [key, value] : j.items()) {
        if (value.is_object()) {
            startPageScan(value, wants);
        } else if (startPageKeyEndsWith(key, "policy") && value.is_string()) {
            // A lesson's configs have passed their reader, so a name parsePolicy() does not take is one only some
            // experiments accept (SCHED_DEADLINE): privileged too.
            const std::optional<Policy> p = parsePolicy(value.get<std::string>());
            if (!p || (*p != Policy::Other && *p != Policy::Batch && *p != Policy::Idle))
                wants.realtime = true;
        } else if (startPageKeyEndsWith(key, "priority") && value.is_number() && value.get<double>() > 0) {
            wants.realtime = true;
        } else if (key == "trace" && value.is_boolean() && value.get<bool>()) {
            wants.trace = true;
        } else if (key == "dma_latency" && value.is_boolean() && value.get<bool>()) {
            wants.dmaLatency = true;
        }
    }
}

// A card: a button whose face is its layout (sketch, title, question, details), so its size follows the text as a
// QWidget's does; QPushButton would size itself by its own label and clip wrapped lines.
class StartPageCard final : public QAbstractButton {
public:
    explicit StartPageCard(QWidget* parent)
        : QAbstractButton(parent)
    {
        setAttribute(Qt::WA_Hover);
        setFocusPolicy(Qt::StrongFocus);
        setCursor(Qt::PointingHandCursor);
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        const bool lit = underMouse() || hasFocus();
        const qreal pen = lit ? 2.0 : 1.0;
        p.setPen(QPen(palette().color(lit ? QPalette::Highlight : QPalette::Mid), pen));
        p.setBrush(palette().color(isDown() ? QPalette::AlternateBase : QPalette::Base));
        p.drawRoundedRect(QRectF(rect()).adjusted(pen / 2, pen / 2, -pen / 2, -pen / 2), 6, 6);
    }
};

QLabel* startPageLabel(const QString& text, QWidget* parent, double scale = 1.0, bool bold = false)
{
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    QFont f = label->font();
    if (scale != 1.0)
        f.setPointSizeF(f.pointSizeF() * scale);
    f.setBold(bold);
    label->setFont(f);
    return label;
}

} // namespace

QString LessonNeed::text() const
{
    return available ? StartPage::tr("needs %1: available").arg(what)
                     : StartPage::tr("needs %1: not available here").arg(what);
}

std::vector<LessonNeed> StartPage::lessonNeeds(const Preset& lesson, const SystemProbe& probe, const TraceProbe& trace)
{
    StartPageWants wants;
    for (const nlohmann::json& phase : lesson.phases) {
        // The config as the experiment reads it, defaults filled in: a field a preset leaves out still counts.
        nlohmann::json full = phase;
        withExperimentConfigType(lesson.experiment, [&]<class Config>(std::type_identity<Config>) {
            std::vector<std::string> ignored;
            full = toJson(ExperimentTraits<Config>::fromJson(phase, ignored));
        });
        startPageScan(full, wants);
    }
    std::vector<LessonNeed> needs;
    if (wants.realtime)
        needs.push_back({tr("real-time priority"), probe.rtAvailable,
                         probe.rtAvailable ? QString() : QString::fromStdString(probe.rtUnavailableReason)});
    if (wants.trace)
        needs.push_back({tr("tracefs"), trace.usable, trace.usable ? QString() : QString::fromStdString(trace.reason)});
    if (wants.dmaLatency)
        needs.push_back({tr("/dev/cpu_dma_latency"), probe.dmaLatencyAvailable,
                         probe.dmaLatencyAvailable ? QString() : QString::fromStdString(probe.dmaLatencyReason)});
    return needs;
}

QString StartPage::lessonQuestion(const Preset& lesson)
{
    const auto& questions = startPageQuestions();
    if (const auto it = questions.find(lesson.id); it != questions.end())
        return tr(it->second);
    const QString description = QString::fromStdString(lesson.description);
    const qsizetype end = description.indexOf(". ");
    return end < 0 ? description : description.left(end + 1);
}

QString StartPage::lessonDuration(const Preset& lesson)
{
    // The script's length: a phase that ends sooner (a finite run) moves it on sooner, so this is an upper bound.
    return tr("up to %1 s").arg(lesson.phaseSeconds * double(lesson.phases.size()));
}

QString StartPage::systemVerdict(const SystemProbe& p)
{
    QStringList parts;
    // Which way it is available ("CAP_SYS_NICE", "rtprio limit", "rtkit, priority ≤ 20"): with rtkit the lessons
    // asking for more than its ceiling run lower or not at all, which a newcomer should see before clicking.
    if (p.rtAvailable && !p.rtPath.empty())
        parts << tr("Real-time priority: available (%1)").arg(QString::fromStdString(p.rtPath));
    else
        parts << (p.rtAvailable ? tr("Real-time priority: available") : tr("Real-time priority: not available"));
    // "6.18.0-1-amd64" reads as "6.18": the series is what the lessons' behaviour depends on.
    const QString release = QString::fromStdString(p.kernelRelease);
    const QStringList numbers = release.section('-', 0, 0).split('.');
    const QString series = numbers.size() >= 2 ? numbers[0] + "." + numbers[1] : release;
    parts << tr("kernel %1 %2")
                 .arg(series.isEmpty() ? tr("unknown") : series, QString::fromStdString(p.preemptModel))
                 .trimmed();
    const int cpus = int(p.onlineCpus.size());
    const QString isolated = p.isolatedCpus.empty() ? tr("none isolated")
                             : p.isolatedCpus.size() == 1
                                 ? tr("CPU %1 isolated").arg(p.isolatedCpus.front())
                                 : tr("CPUs %1 isolated").arg(QString::fromStdString(formatCpuList(p.isolatedCpus)));
    parts << (cpus == 0   ? tr("CPUs unknown")
              : cpus == 1 ? tr("1 CPU, %1").arg(isolated)
                          : tr("%1 CPUs, %2").arg(cpus).arg(isolated));
    if (p.virtualMachine)
        parts << (p.hypervisor.empty() ? tr("virtual machine")
                                       : tr("virtual machine (%1)").arg(QString::fromStdString(p.hypervisor)));
    return parts.join(QStringLiteral(" · "));
}

StartPage::StartPage(const std::vector<Preset>& lessons, const SystemProbe& probe, const TraceProbe& trace,
                     QWidget* parent)
    : QWidget(parent)
    , m_verdict(new QLabel(this))
    , m_open(new QPushButton(tr("Open a result…"), this))
    , m_connect(new QPushButton(tr("Connect to a target…"), this))
    , m_showAtStart(new QCheckBox(tr("Show at start"), this))
{
    setObjectName("startPage");
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    outer->addWidget(scroll);
    // On a wide screen the cards keep a readable width, centred, rather than stretching text across 1920 pixels.
    const int em = fontMetrics().height();
    auto* frame = new QWidget(scroll);
    scroll->setWidget(frame);
    auto* centring = new QHBoxLayout(frame);
    centring->setContentsMargins(0, 0, 0, 0);
    auto* content = new QWidget(frame);
    content->setMaximumWidth(em * 80);
    centring->addWidget(content);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(em, em / 2, em, em / 2);
    layout->setSpacing(em / 2);

    auto* heading = startPageLabel(tr("What would you like to see?"), content, 1.6, true);
    heading->setObjectName("startHeading");
    layout->addWidget(heading);
    layout->addWidget(startPageLabel(tr("Each lesson sets up an experiment, runs it and, where it compares two "
                                        "settings, holds the first as reference. One click starts it."),
                                     content));
    initTextLabel(m_verdict, "systemVerdict");
    m_verdict->setText(systemVerdict(probe));
    if (!probe.rtAvailable)
        m_verdict->setToolTip(QString::fromStdString(probe.rtUnavailableReason));
    QFont vf = m_verdict->font();
    vf.setBold(true);
    m_verdict->setFont(vf);
    layout->addWidget(m_verdict);

    // Two columns: a card is wide enough for its sketch beside two lines of question at 1366 pixels.
    auto* grid = new QGridLayout;
    grid->setSpacing(em / 2);
    for (const Preset& lesson : lessons) {
        const std::vector<LessonNeed> needs = lessonNeeds(lesson, probe, trace);
        QAbstractButton* card = makeCard(lesson, needs);
        const int i = int(m_cards.size());
        grid->addWidget(card, i / 2, i % 2);
        m_cards << card;
    }
    m_noise = makeNoiseCard(probe, trace);
    grid->addWidget(m_noise, int(m_cards.size()) / 2, int(m_cards.size()) % 2);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    layout->addLayout(grid);
    m_doctor = makeDoctorCard(probe);
    layout->addWidget(m_doctor);

    auto* bottom = new QHBoxLayout;
    m_open->setObjectName("startOpenResult");
    m_open->setToolTip(tr("Show a recording or cyclictest results in the latency views (File menu)"));
    m_open->setEnabled(false); // until the window gives it its verbs
    bottom->addWidget(m_open);
    m_connect->setObjectName("startConnectTarget");
    m_connect->setToolTip(tr("Measure another machine (a board, a server) running 'rtscope agent' and watch it "
                             "here (File menu)"));
    m_connect->setEnabled(false); // until the window gives it its verb
    bottom->addWidget(m_connect);
    bottom->addSpacing(em);
    m_showAtStart->setObjectName("showAtStart");
    m_showAtStart->setChecked(true);
    m_showAtStart->setToolTip(tr("Unticked, the app opens on the page it showed last"));
    connect(m_showAtStart, &QCheckBox::toggled, this, &StartPage::showAtStartToggled);
    bottom->addWidget(m_showAtStart);
    bottom->addStretch(1);
    QLabel* leave = startPageLabel(tr("Esc or a page tab: the scope"), content);
    leave->setWordWrap(false);
    bottom->addWidget(leave);
    layout->addLayout(bottom);
    layout->addStretch(1);

    // Escape wherever the focus is in the window (the tab bar, a card), but only while this page is shown: a
    // shortcut of a hidden widget does not fire.
    auto* escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    escape->setContext(Qt::WindowShortcut);
    connect(escape, &QShortcut::activated, this, &StartPage::leaveRequested);
}

void StartPage::setDoctorAvailable(bool available)
{
    m_doctor->setVisible(available);
}

void StartPage::setNoiseAvailable(bool available)
{
    m_noise->setVisible(available);
}

namespace {

// A card's face: the sketch, the title, the question and the details line (rich text). The labels are the card's
// face: a click on them is a click on the card.
void fillCard(QAbstractButton* card, const QString& sketch, const QString& titleText, const QString& questionText,
              const QString& detailsHtml)
{
    const int em = card->fontMetrics().height();
    card->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    auto* row = new QHBoxLayout(card);
    row->setContentsMargins(em / 2, em / 2, em / 2, em / 2);
    row->setSpacing(em / 2);
    auto* thumb = new QLabel(card);
    thumb->setObjectName("thumbnail");
    thumb->setPixmap(lessonThumbnail(sketch, QSize(em * 8, em * 5), card->palette(), card->devicePixelRatioF()));
    row->addWidget(thumb, 0, Qt::AlignTop);
    auto* text = new QVBoxLayout;
    text->setSpacing(em / 4);
    auto* title = startPageLabel(titleText, card, 1.15, true);
    title->setObjectName("title");
    text->addWidget(title);
    auto* question = startPageLabel(questionText, card);
    question->setObjectName("question");
    text->addWidget(question);
    auto* meta = startPageLabel(detailsHtml, card, 0.9);
    meta->setObjectName("details");
    meta->setTextFormat(Qt::RichText);
    text->addWidget(meta);
    text->addStretch(1);
    row->addLayout(text, 1);
    for (QLabel* label : card->findChildren<QLabel*>())
        label->setAttribute(Qt::WA_TransparentForMouseEvents);
}

} // namespace

QAbstractButton* StartPage::makeCard(const Preset& lesson, const std::vector<LessonNeed>& needs)
{
    const QString id = QString::fromStdString(lesson.id);
    auto* card = new StartPageCard(this);
    card->setObjectName("lesson-" + id);
    card->setAccessibleName(QString::fromStdString(lesson.title));
    card->setToolTip(QString::fromStdString(lesson.description));

    // How long, and what it needs: a missing need in the warning red, with the probe's reason and fix as tooltip.
    QStringList details{lessonDuration(lesson)};
    QStringList html{lessonDuration(lesson).toHtmlEscaped()};
    QStringList why;
    if (needs.empty()) {
        details << tr("needs no privilege");
        html << details.back().toHtmlEscaped();
    }
    for (const LessonNeed& need : needs) {
        details << need.text();
        html << (need.available ? need.text().toHtmlEscaped()
                                : QString("<span style=\"color:%1\"><b>%2</b></span>")
                                      .arg(colors::css(colors::kWarningRed), need.text().toHtmlEscaped()));
        if (!need.why.isEmpty())
            why << need.why;
    }
    m_details << details.join(QStringLiteral(" · "));
    fillCard(card, QString::fromStdString(lesson.experiment), QString::fromStdString(lesson.title),
             lessonQuestion(lesson), html.join(QStringLiteral(" · ")));
    if (!why.isEmpty())
        card->setToolTip(card->toolTip() + "\n\n" + why.join("\n"));
    connect(card, &QAbstractButton::clicked, this, [this, id] { emit lessonChosen(id); });
    return card;
}

QAbstractButton* StartPage::makeDoctorCard(const SystemProbe& probe)
{
    auto* card = new StartPageCard(this);
    card->setObjectName("startDoctor");
    card->setAccessibleName(tr("Tune this machine"));
    card->setToolTip(tr("The Doctor page: measure one CPU with the anatomy on, name what makes its wake-ups late, try "
                        "each run-time fix alternated with the machine as it was, and put everything back"));
    const bool root = probe.isRoot;
    const QString need = root ? tr("needs root to try the fixes: available")
                              : tr("needs root to try the fixes: not available here (it still diagnoses)");
    fillCard(card, QStringLiteral("doctor"), tr("Tune this machine"),
             tr("What makes this CPU's wake-ups late, and which fix really helps?"),
             tr("about 30 s to 2 min") + QStringLiteral(" · ") +
                 (root ? need.toHtmlEscaped()
                       : QString("<span style=\"color:%1\"><b>%2</b></span>")
                             .arg(colors::css(colors::kWarningRed), need.toHtmlEscaped())));
    connect(card, &QAbstractButton::clicked, this, &StartPage::doctorRequested);
    card->hide(); // until the window has a Doctor page
    return card;
}

QAbstractButton* StartPage::makeNoiseCard(const SystemProbe& probe, const TraceProbe& trace)
{
    auto* card = new StartPageCard(this);
    card->setObjectName("startNoise");
    card->setAccessibleName(tr("Where does my CPU go?"));
    card->setToolTip(tr("The Noise page: a thread polls the clock on a CPU, and every moment taken from it is "
                        "charged to an interrupt, a softirq, another thread, an NMI, or left unexplained (the "
                        "hardware, the firmware, the hypervisor). A demo load makes each kind appear."));
    const QString need = trace.usable ? tr("needs tracefs to name the culprits: available")
                                      : tr("needs tracefs to name the culprits: not available here (it still "
                                           "measures)");
    fillCard(card, QStringLiteral("noise"), tr("Where does my CPU go?"),
             probe.virtualMachine
                 ? tr("How much of a CPU does a busy thread really get, who takes the rest, and what does the "
                      "hypervisor take?")
                 : tr("How much of a CPU does a busy thread really get, and who takes the rest?"),
             tr("until you stop it") + QStringLiteral(" · ") +
                 (trace.usable ? need.toHtmlEscaped()
                               : QString("<span style=\"color:%1\"><b>%2</b></span>")
                                     .arg(colors::css(colors::kWarningRed), need.toHtmlEscaped())));
    if (!trace.usable)
        card->setToolTip(card->toolTip() + "\n\n" + QString::fromStdString(trace.reason));
    connect(card, &QAbstractButton::clicked, this, &StartPage::noiseRequested);
    card->hide(); // until the window has a Noise page
    return card;
}

QString StartPage::cardDetails(int index) const
{
    return m_details.value(index);
}

void StartPage::setConnectAction(QAction* action)
{
    m_connect->setEnabled(action != nullptr);
    if (action)
        connect(m_connect, &QPushButton::clicked, action, &QAction::trigger);
}

void StartPage::setOpenActions(const QList<QAction*>& actions)
{
    m_open->setEnabled(!actions.isEmpty());
    if (actions.size() == 1) {
        connect(m_open, &QPushButton::clicked, actions.front(), &QAction::trigger);
        return;
    }
    auto* menu = new QMenu(m_open);
    menu->setObjectName("startOpenMenu");
    menu->addActions(actions);
    m_open->setMenu(menu);
}

} // namespace rtscope

#include "moc_start_page.cpp"
