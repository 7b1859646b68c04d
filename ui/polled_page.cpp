#include "ui/polled_page.h"

#include "engine/util/json_text.h"

#include <QEvent>
#include <QHeaderView>
#include <QSettings>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

namespace rtscope {

PolledPage::PolledPage(const SystemProbe& probe, int refreshMs, QWidget* parent)
    : ExperimentPage(parent)
    , m_probe(probe)
    , m_timer(new QTimer(this))
{
    m_timer->setInterval(refreshMs);
    connect(m_timer, &QTimer::timeout, this, [this] { refreshNow(); });
}

int PolledPage::refreshIntervalMs() const
{
    return m_timer->interval();
}

PolledPage::~PolledPage()
{
    // The subclass stopped the run in its own destructor (stop() redraws, which needs the whole page).
    if (m_panel && !m_panel->parent())
        delete m_panel;
}

void PolledPage::changeEvent(QEvent* event)
{
    ExperimentPage::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        restyle();
}

void PolledPage::setDisplayPaused(bool paused)
{
    m_paused = paused;
    if (!paused)
        displayResumed();
}

void PolledPage::showError(const QString& message)
{
    showProblems(message.split('\n', Qt::SkipEmptyParts));
    emit statusMessage(message.section('\n', 0, 0));
}

void PolledPage::beginPolling(const QString& status, const QString& started)
{
    // The timer first: the run status a page shows may say whether it refreshes.
    m_timer->start();
    showProblems({});
    showRunning(true, status);
    emit runningChanged(true);
    emit busyCpusChanged();
    emit statusMessage(started);
}

void PolledPage::endPolling()
{
    m_timer->stop();
    showRunning(false, QString());
}

void PolledPage::announceStopped(const QString& message)
{
    emit runningChanged(false);
    emit busyCpusChanged();
    emit statusMessage(message);
}

void PolledPage::referenceHeld(const QString& status)
{
    m_referenceHeld = true;
    emit referenceChanged(true);
    emit statusMessage(status);
}

void PolledPage::clearReference()
{
    if (!m_referenceHeld)
        return;
    m_referenceHeld = false;
    releaseReference();
    emit referenceChanged(false);
}

void PolledPage::keepSplitter(const QString& key, QSplitter* splitter)
{
    m_states.push_back({key, [splitter] { return splitter->saveState(); },
                        [splitter](const QByteArray& state) {
                            splitter->restoreState(state);
                        }});
}

QSplitter* PolledPage::keptVerticalSplitter(QWidget* top, QWidget* bottom, int topStretch, int bottomStretch,
                                            QWidget* parent)
{
    auto* splitter = new QSplitter(Qt::Vertical, parent ? parent : this);
    splitter->addWidget(top);
    splitter->addWidget(bottom);
    splitter->setStretchFactor(0, topStretch);
    splitter->setStretchFactor(1, bottomStretch);
    splitter->setChildrenCollapsible(false);
    keepSplitter("splitter", splitter);
    return splitter;
}

void PolledPage::stackRows(std::initializer_list<Row> rows)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    for (const Row& r : rows) {
        if (r.widget)
            layout->addWidget(r.widget, r.stretch);
        else
            layout->addLayout(r.layout, r.stretch);
    }
}

void PolledPage::keepHeader(const QString& key, QHeaderView* header)
{
    m_states.push_back({key, [header] { return header->saveState(); },
                        [header](const QByteArray& state) {
                            header->restoreState(state);
                        }});
}

void PolledPage::saveSettings(QSettings& settings) const
{
    if (savesConfig())
        settings.setValue("config", QString::fromStdString(configJson().dump()));
    for (const KeptState& s : m_states)
        settings.setValue(s.key, s.save());
    saveViewSettings(settings);
}

void PolledPage::restoreSettings(QSettings& settings)
{
    for (const KeptState& s : m_states)
        if (settings.contains(s.key))
            s.restore(settings.value(s.key).toByteArray());
    QStringList problems = restoreViewSettings(settings);
    const QString text = savesConfig() ? settings.value("config").toString() : QString();
    if (!text.isEmpty()) {
        const ParsedJson parsed = parseJsonText(text.toStdString(), "the saved config");
        if (parsed.ok())
            problems << applyConfigJson(parsed.value);
        else
            problems << QString::fromStdString(parsed.error("the saved config is not valid JSON"));
    }
    if (!problems.isEmpty())
        showProblems(QStringList(tr("The saved %1 settings were not applied:").arg(settingsName())) + problems);
}

} // namespace rtscope

#include "moc_polled_page.cpp"
