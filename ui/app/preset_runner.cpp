#include "ui/app/preset_runner.h"
#include "ui/common/unpinned_topology.h"

#include "ui/experiment_page.h"
#include "ui/main_window.h"

#include <QTimer>

namespace rtscope {

namespace {
QStringList prefixed(const QString& prefix, const QStringList& problems)
{
    QStringList out;
    for (const QString& p : problems)
        out << prefix + p;
    return out;
}
} // namespace

PresetRunner::PresetRunner(MainWindow* window)
    : QObject(window)
    , m_window(window)
    , m_timer(new QTimer(this))
{
    setObjectName("presetRunner");
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &PresetRunner::advance);
}

QStringList PresetRunner::start(const QString& nameOrFile)
{
    // Validate against the CPUs the process may use, not the ones the GUI thread is parked on right now.
    const CpuTopology cpus = unpinnedTopology();
    const PresetParseResult r = loadPreset(nameOrFile.toStdString(), &cpus);
    if (!r.preset) {
        QStringList problems;
        for (const std::string& e : r.errors)
            problems << QString::fromStdString(e);
        return problems;
    }
    return start(*r.preset);
}

QStringList PresetRunner::start(const Preset& preset)
{
    const QString source = QString::fromStdString(preset.source);
    const int index = m_window->pageIndex(QString::fromStdString(preset.experiment));
    if (index < 0)
        return {QString("%1: experiment '%2' has no page in this window (the pages are %3)")
                    .arg(source, QString::fromStdString(preset.experiment), m_window->pageNames().join(", "))};
    if (preset.phases.empty())
        return {QString("%1: phases must be a list of 1 or 2 configurations (got 0 entries)").arg(source)};
    cancel();
    ExperimentPage* page = m_window->page(index);

    // Nothing changes on error: remember the page's configuration and whether it ran, to put both back.
    const nlohmann::json before = page->configJson();
    const bool wasRunning = page->isRunning();
    m_switching = true;
    page->stop();
    const QStringList problems = page->applyConfigJson(preset.phases.front());
    if (!problems.isEmpty()) {
        if (!before.is_null())
            page->applyConfigJson(before);
        if (wasRunning)
            page->start();
        m_switching = false;
        return prefixed(source + ": phases[0]: ", problems);
    }
    page->clearReference();
    m_window->setCurrentPage(index);

    m_preset = preset;
    m_page = page;
    m_phase = 0;
    m_ok = true;
    m_active = true;
    const bool started = page->start();
    m_switching = false;
    if (!started) {
        // The controls show the preset and the page says why it could not start (e.g. SCHED_FIFO refused).
        m_active = false;
        m_ok = false;
        emit progress(tr("Preset \"%1\": the %2 experiment could not start; the page says why")
                          .arg(QString::fromStdString(preset.title), page->shortTitle()));
        emit finished(false);
        return {};
    }
    connect(page, &ExperimentPage::runningChanged, this, &PresetRunner::pageRunningChanged, Qt::UniqueConnection);
    emit progress(phaseText(0));
    m_timer->start(int(preset.phaseSeconds * 1000));
    return {};
}

void PresetRunner::cancel()
{
    m_timer->stop();
    m_active = false;
}

QString PresetRunner::phaseText(int index) const
{
    const Preset& p = *m_preset;
    const QString title = QString::fromStdString(p.title);
    const QString label = QString::fromStdString(p.labels[size_t(index)]);
    if (!p.isComparison())
        return tr("Preset \"%1\": %2").arg(title, label);
    if (index == 0)
        return tr("Preset \"%1\", phase 1 of 2: %2, for %3 s, then held as reference")
            .arg(title, label)
            .arg(p.phaseSeconds);
    return tr("Preset \"%1\", phase 2 of 2: %2, over the reference (%3)")
        .arg(title, label, QString::fromStdString(p.referenceLabel()));
}

void PresetRunner::pageRunningChanged(bool running)
{
    // A finite run (a sweep, a set of bursts) that ends before its time moves the script on at once; stops
    // made by this runner, by the user (the window cancels first) or by closing are not that.
    if (running || !m_active || m_switching || sender() != m_page.data())
        return;
    m_timer->stop();
    advance();
}

void PresetRunner::advance()
{
    if (!m_active || !m_page || !m_preset)
        return;
    if (m_phase + 1 >= int(m_preset->phases.size())) {
        m_active = false;
        emit finished(m_ok);
        return;
    }
    ExperimentPage* page = m_page;
    // Only a page that can overlay what follows on a held result gets the second phase live; any other page
    // starts the second phase as a new run.
    const bool live = page->supportsReference() && page->isRunning();
    if (page->supportsReference() && !page->holdAsReference())
        m_ok = false;
    const QStringList problems = applyPhase(m_phase + 1, live);
    m_phase += 1;
    if (!problems.isEmpty()) {
        m_ok = false;
        emit progress(
            prefixed(QString::fromStdString(m_preset->source) + QString(": phases[%1]: ").arg(m_phase), problems)
                .join("; "));
    } else {
        emit progress(phaseText(m_phase));
    }
    if (!page->isRunning()) {
        m_active = false;
        emit finished(false);
        return;
    }
    m_timer->start(int(m_preset->phaseSeconds * 1000));
}

QStringList PresetRunner::applyPhase(int index, bool live)
{
    ExperimentPage* page = m_page;
    const nlohmann::json& config = m_preset->phases[size_t(index)];
    m_switching = true;
    QStringList problems;
    if (live)
        problems = page->applyConfigJson(config);
    if (!live || !problems.isEmpty()) {
        // Not while running on this page: stop, set the controls, start the second run.
        page->stop();
        problems = page->applyConfigJson(config);
        if (problems.isEmpty() && !page->start())
            problems << tr("the experiment could not start; the page says why");
    }
    m_switching = false;
    return problems;
}

} // namespace rtscope

#include "moc_preset_runner.cpp"
