#include "ui/polled_page.h"

#include <QSettings>
#include <QSplitter>
#include <QTimer>

namespace rtscope {

PolledPage::PolledPage(const SystemProbe& probe, int refreshMs, QWidget* parent)
    : ExperimentPage(parent)
    , m_probe(probe)
    , m_timer(new QTimer(this))
{
    m_timer->setInterval(refreshMs);
    connect(m_timer, &QTimer::timeout, this, [this] { refreshNow(); });
}

PolledPage::~PolledPage()
{
    // The subclass stopped the run in its own destructor (stop() redraws, which needs the whole page).
    if (m_panel && !m_panel->parent())
        delete m_panel;
}

void PolledPage::setDisplayPaused(bool paused)
{
    m_paused = paused;
    if (!paused)
        refreshNow();
}

void PolledPage::showError(const QString& message)
{
    showProblems(message.split('\n', Qt::SkipEmptyParts));
    emit statusMessage(message.section('\n', 0, 0));
}

void PolledPage::beginPolling(const QString& status, const QString& started)
{
    showProblems({});
    showRunning(true, status);
    m_timer->start();
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

void PolledPage::keepSplitter(const QString& key, QSplitter* splitter)
{
    m_splitters.emplace_back(key, splitter);
}

void PolledPage::saveSettings(QSettings& settings) const
{
    settings.setValue("config", QString::fromStdString(configJson().dump()));
    for (const auto& [key, splitter] : m_splitters)
        settings.setValue(key, splitter->saveState());
    saveViewSettings(settings);
}

void PolledPage::restoreSettings(QSettings& settings)
{
    for (const auto& [key, splitter] : m_splitters)
        if (settings.contains(key))
            splitter->restoreState(settings.value(key).toByteArray());
    QStringList problems = restoreViewSettings(settings);
    const QString text = settings.value("config").toString();
    if (!text.isEmpty())
        problems << applyConfigJson(nlohmann::json::parse(text.toStdString(), nullptr, false));
    if (!problems.isEmpty())
        showProblems(QStringList(tr("The saved %1 settings were not applied:").arg(name())) + problems);
}

} // namespace rtscope
