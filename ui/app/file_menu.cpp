#include "ui/app/file_menu.h"

#include "engine/export/latency_export.h"
#include "engine/formats/output_file.h"
#include "engine/recording/recording_replay.h"
#include "engine/recording/recording_writer.h"
#include "engine/util/clock.h"
#include "ui/app/page_snapshot.h"
#include "ui/common/background_progress.h"
#include "ui/common/colors.h"
#include "ui/compare/compare_window.h"
#include "ui/experiment_page.h"
#include "ui/latency/latency_import.h"
#include "ui/latency/latency_page.h"
#include "ui/latency/recording_spool.h"
#include "ui/main_window.h"
#include "ui/remote/remote_latency_source.h"
#include "ui/system_panel.h"

#include <QBuffer>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPixmap>
#include <QProgressDialog>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTabBar>
#include <QTemporaryFile>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <cstdio>
namespace rtscope {

namespace {

QString fromStd(const std::string& s)
{
    return QString::fromStdString(s);
}

QString html(const std::string& s)
{
    return fromStd(s).toHtmlEscaped();
}

QString runLength(int64_t ns)
{
    const double s = double(std::max<int64_t>(ns, 0)) / 1e9;
    if (s < 120)
        return QString::number(s, 'f', s < 10 ? 2 : 1) + " s";
    const auto whole = int64_t(s);
    if (whole < 7200)
        return QString("%1 min %2 s").arg(whole / 60).arg(whole % 60);
    return QString("%1 h %2 min").arg(whole / 3600).arg((whole % 3600) / 60);
}

QString recordedWhen(const RecordingHeader& h)
{
    const QDateTime t = QDateTime::fromString(fromStd(h.recordedAt), Qt::ISODate);
    return t.isValid() ? t.toUTC().toString("yyyy-MM-dd HH:mm 'UTC'") : fromStd(h.recordedAt).toHtmlEscaped();
}

// "board (Linux 6.1.0-rt, EEVDF, preempt PREEMPT_RT, VM)": the machine a replayed run was measured on.
QString machine(const RecordingHeader& h)
{
    const SystemProbe& p = h.probe;
    QStringList parts{"Linux " + (p.kernelRelease.empty() ? QString("?") : html(p.kernelRelease))};
    if (!p.scheduler.empty())
        parts << html(p.scheduler);
    if (!p.preemptModel.empty())
        parts << "preempt " + html(p.preemptModel);
    if (p.virtualMachine)
        parts << "VM";
    return QString("<b>%1</b> (%2)").arg(h.host.empty() ? QString("an unnamed host") : html(h.host), parts.join(", "));
}

QString bannerText(const ReplayedRun& r, const QString& name)
{
    const LatencySnapshot& s = *r.snapshot;
    QString text = QString("<b>Replay of %1</b>, recorded %2 on %3: %4 samples in %5.")
                       .arg(name.toHtmlEscaped(), recordedWhen(r.header), machine(r.header),
                            groupedCount(r.read.samples), runLength(s.publishedNs - s.startNs));
    if (s.resetNs != s.startNs)
        text += QString(" Histogram and table: the %1 samples since the last reset.")
                    .arg(groupedCount(r.samplesSinceReset));
    if (r.read.lost)
        text += QString(" <b style='color:%1'>%2 samples were not kept by the recorder.</b>")
                    .arg(colors::css(colors::kAlarmRed), groupedCount(r.read.lost));
    if (!r.read.ok)
        text += QString(" <b style='color:%1'>%2.</b>").arg(colors::css(colors::kAlarmRed), html(r.read.error));
    return text + " The System panel shows the recorded machine; <b>Start</b> returns to the live measurement.";
}

QString exportedLine(const QString& path, const ReplayedRun& r)
{
    QString text = QString("Wrote %1: %2 samples").arg(QFileInfo(path).fileName(), groupedCount(r.samplesSinceReset));
    if (r.snapshot && r.snapshot->resetNs != r.snapshot->startNs)
        text += " (since the last reset)";
    if (r.read.lost)
        text +=
            QString("; %1 samples were not kept by the recorder, and the file says so").arg(groupedCount(r.read.lost));
    return text;
}

} // namespace

FileMenu::FileMenu(MainWindow* window, const SystemProbe& probe, QTabBar* pageTabs, QDockWidget* systemDock)
    : QObject(window)
    , m_window(window)
    , m_systemDock(systemDock)
    , m_probe(probe)
    , m_latency(window->findPage<LatencyPage>())
    , m_lastDir(QDir::homePath())
    , m_recorderWatch(new QTimer(this))
    , m_menu(new QMenu(tr("&File"), window))
{
    setObjectName("fileMenuController");
    m_menu->setObjectName("fileMenu");
    m_menu->setToolTipsVisible(true);
    QMenuBar* bar = window->menuBar();
    const QList<QAction*> existing = bar->actions();
    bar->insertMenu(existing.isEmpty() ? nullptr : existing.first(), m_menu); // File comes first

    m_recorderWatch->setInterval(1000);
    connect(m_recorderWatch, &QTimer::timeout, this, &FileMenu::watchRecorder);
    RecordingSpool::Cleanup stale;
    if (m_latency) {
        m_spool = RecordingSpool::attach(m_latency, probe);
        // Spools of an app that was killed (or crashed) are not removed by it; they are now.
        if (m_spool)
            stale = RecordingSpool::removeStaleSpools(RecordingSpool::spoolTemplate());
        connect(m_latency, &ExperimentPage::runningChanged, this, [this](bool running) {
            m_lostShown = 0;
            if (running && m_spool)
                m_recorderWatch->start();
            else
                m_recorderWatch->stop();
            updateActions();
        });
        connect(m_latency, &LatencyPage::replayChanged, this, [this](bool replaying) {
            if (!replaying) {
                m_replayFile.clear();
                showProbe(m_probe, false);
            }
            updateActions();
        });
    }

    m_openRecording = m_menu->addAction(tr("&Open recording…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(m_window, tr("Open recording"), m_lastDir,
                                                          tr("rtscope recordings (*.rtrec);;All files (*)"));
        if (path.isEmpty())
            return;
        m_lastDir = QFileInfo(path).absolutePath();
        QString error;
        report(openRecordingInBackground(path, &error), error);
    });
    m_openRecording->setObjectName("openRecording");
    m_openRecording->setShortcut(QKeySequence::Open);
    m_openRecording->setToolTip(tr("Show a recorded run (rtscope latency --record, or Save run as recording) in the "
                                   "latency views, with the machine it was measured on"));
    m_openCyclictest = m_menu->addAction(tr("Open &cyclictest results…"), this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(m_window, tr("Open cyclictest results"), m_lastDir,
                                         tr("cyclictest histogram or JSON (*.hist *.json *.txt *.log);;All files (*)"));
        if (path.isEmpty())
            return;
        m_lastDir = QFileInfo(path).absolutePath();
        CyclictestFile file;
        QString error;
        if (!readCyclictestFile(path, file, error))
            return report(false, error);
        int thread = 0;
        const int threads = int(file.data.threads.size());
        if (threads > 1) {
            const QStringList choices = cyclictestThreadChoices(file);
            bool ok = false;
            const QString pick = QInputDialog::getItem(
                m_window, tr("Which thread?"),
                tr("%1 holds %2 measuring threads. Hold as reference:").arg(file.fileName).arg(threads), choices,
                int(choices.size()) - 1, false, &ok);
            if (!ok)
                return;
            const int index = int(choices.indexOf(pick));
            thread = index >= threads ? -1 : index;
        }
        report(importCyclictest(path, thread, &error), error);
    });
    m_openCyclictest->setObjectName("openCyclictest");
    m_openCyclictest->setToolTip(tr("Hold a cyclictest -h histogram or --json file (from a target board, say) as the "
                                    "latency page's reference: a live run is drawn over it"));
    m_compare = m_menu->addAction(tr("Co&mpare results…"), this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(
            m_window, tr("Compare results"), m_lastDir,
            tr("cyclictest or rtscope results (*.hist *.json *.txt *.log *.rtrec);;All files (*)"));
        if (paths.isEmpty())
            return;
        m_lastDir = QFileInfo(paths.first()).absolutePath();
        QString error;
        report(compare(paths, &error) != nullptr, error);
    });
    m_compare->setObjectName("compareResults");
    m_compare->setToolTip(tr("Several cyclictest -h or --json files or recordings (one per board, say) in a window "
                             "of their own: a histogram curve and a table row per file, the worst maximum first"));
    m_menu->addSeparator();

    m_save = addSaveAction(tr("&Save run as recording…"), tr("Save run as recording"),
                           tr("rtscope recordings (*.rtrec)"), kRecordingSuffix, &FileMenu::saveRecording);
    m_save->setObjectName("saveRecording");
    m_save->setShortcut(QKeySequence::Save);
    m_menu->addSeparator();

    m_png = addSaveAction(tr("Export view as &PNG…"), tr("Export view as PNG"), tr("PNG images (*.png)"), ".png",
                          &FileMenu::exportViewPng);
    m_png->setObjectName("exportPng");
    m_svg = addSaveAction(tr("Export view as S&VG…"), tr("Export view as SVG"), tr("SVG drawings (*.svg)"), ".svg",
                          &FileMenu::exportViewSvg);
    m_svg->setObjectName("exportSvg");
    m_menu->addSeparator();

    m_hist = addSaveAction(tr("Export run as cyclictest &histogram…"), tr("Export run as cyclictest histogram"),
                           tr("cyclictest histograms (*.hist *.txt)"), ".hist", &FileMenu::exportHistogram);
    m_hist->setObjectName("exportHistogram");
    m_json = addSaveAction(tr("Export run as cyclictest &JSON…"), tr("Export run as cyclictest JSON"),
                           tr("JSON (*.json)"), ".json", &FileMenu::exportJson);
    m_json->setObjectName("exportJson");
    m_csv = addSaveAction(tr("Export run as CSV of raw &samples…"), tr("Export run as CSV of raw samples"),
                          tr("CSV (*.csv)"), ".csv", &FileMenu::exportCsv);
    m_csv->setObjectName("exportCsv");

    connect(m_menu, &QMenu::aboutToShow, this, &FileMenu::updateActions);
    if (pageTabs)
        connect(pageTabs, &QTabBar::currentChanged, this, &FileMenu::updateActions);
    connect(this, &FileMenu::message, window,
            [window](const QString& text) { window->statusBar()->showMessage(text, 10000); });
    updateActions();
    if (stale.removed > 0) {
        std::fprintf(stderr,
                     "rtscope: removed %d run spool(s) left by an rtscope that did not exit cleanly: %llu bytes\n",
                     stale.removed, (unsigned long long)stale.bytes);
        const QString text =
            tr("Removed %n run spool(s) left by an rtscope that did not exit cleanly: %1 freed", "", stale.removed)
                .arg(QLocale().formattedDataSize(qint64(stale.bytes)));
        // Once the window has said its own first words, which would replace these.
        QTimer::singleShot(0, this, [this, text] { emit message(text); });
    }
}

bool FileMenu::fail(QString* error, const QString& text)
{
    if (error)
        *error = text;
    return false;
}

void FileMenu::report(bool ok, const QString& error)
{
    if (ok)
        return;
    // Not modal: a nested event loop would outlive a SIGTERM that closed the window.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("rtscope"), error, QMessageBox::Ok, m_window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->show();
    emit message(error);
}

QAction* FileMenu::addSaveAction(const QString& text, const QString& title, const QString& filter,
                                 const QString& suffix, bool (FileMenu::*write)(const QString&, QString*))
{
    return m_menu->addAction(text, this, [this, title, filter, suffix, write] {
        const QString path = askSavePath(title, filter, suffix);
        QString error;
        if (!path.isEmpty())
            report((this->*write)(path, &error), error);
    });
}

QString FileMenu::askSavePath(const QString& title, const QString& filter, const QString& suffix)
{
    QString path = QFileDialog::getSaveFileName(m_window, title, m_lastDir, filter);
    if (path.isEmpty())
        return {};
    if (QFileInfo(path).suffix().isEmpty())
        path += suffix;
    m_lastDir = QFileInfo(path).absolutePath();
    return path;
}

bool FileMenu::open(const QString& path, QString* error, int thread)
{
    QByteArray head;
    QString why;
    if (!readFileHead(path, head, why))
        return fail(error, why);
    if (looksLikeRecording(std::string_view(head.constData(), size_t(head.size()))))
        return openRecording(path, error);
    return importCyclictest(path, thread, error);
}

bool FileMenu::openRecording(const QString& path, QString* error)
{
    const QString name = QFileInfo(path).fileName();
    if (!m_latency)
        return fail(error, tr("%1: there is no latency page to replay it in").arg(name));
    const ReplayedRun r = replayRecordingFile(path.toStdString());
    if (!r.snapshot || (!r.read.ok && !r.read.truncated))
        return fail(error, QString("%1: %2").arg(name, fromStd(r.read.error)));
    showRecording(path, r, readRecordingTimeline(path));
    return true;
}

void FileMenu::showRecording(const QString& path, const ReplayedRun& r, RecordingTimeline timeline)
{
    const QString name = QFileInfo(path).fileName();
    m_latency->showReplay(r.snapshot, bannerText(r, name), std::move(timeline));
    m_replayFile = path;
    showProbe(r.header.probe, true);
    m_window->setCurrentPage(m_window->pageIndex(m_latency->name()));
    emit message(r.read.ok ? tr("Replaying %1: %2 samples").arg(name, groupedCount(r.read.samples))
                           : tr("Replaying %1: %2").arg(name, fromStd(r.read.error)));
    updateActions();
}

// A recording read off the GUI thread: the replay, then the whole run's timeline (two passes over the file; each is
// half of the progress bar). The thread writes run and timeline, the GUI thread reads them once it has finished.
struct FileMenu::Opening : BackgroundRead {
    QString path;
    ReplayedRun run;
    RecordingTimeline timeline;
};

FileMenu::~FileMenu()
{
    // The window is going (a SIGTERM, the last window closed): stop the reading at its next block and wait for it.
    if (m_opening)
        m_opening->abandon();
}

bool FileMenu::openRecordingInBackground(const QString& path, QString* error)
{
    const QString name = QFileInfo(path).fileName();
    if (!m_latency)
        return fail(error, tr("%1: there is no latency page to replay it in").arg(name));
    if (m_opening)
        return fail(error,
                    tr("%1: %2 is being opened; cancel it first").arg(name, QFileInfo(m_opening->path).fileName()));
    m_opening = std::make_unique<Opening>();
    Opening* o = m_opening.get();
    o->path = path;
    const auto pass = [o](int first) {
        return [o, first](uint64_t done, uint64_t total) {
            o->permille = first + (total ? int(done * 500 / total) : 0);
            return !o->cancel.load();
        };
    };
    const auto read = [o, pass] {
        RecordingReplayOptions options;
        options.progress = pass(0);
        o->run = replayRecordingFile(o->path.toStdString(), options);
        if (o->run.snapshot && !o->cancel)
            o->timeline = readRecordingTimeline(o->path, pass(500));
    };
    // Window-modal and shown with show(), not exec(): the window repaints and the event loop runs (no nested one a
    // SIGTERM would have to unwind), while File › Open cannot start a second reading.
    o->start(read, "rtscope-open", m_window, "openingRecording", tr("Open recording"), tr("Reading %1…").arg(name),
             this, &FileMenu::finishOpening);
    updateActions();
    return true;
}

void FileMenu::finishOpening()
{
    const std::unique_ptr<Opening> o = takeEndedRead(m_opening);
    if (!o)
        return;
    const QString name = QFileInfo(o->path).fileName();
    const ReplayedRun& r = o->run;
    if (o->cancel) {
        emit message(tr("Opening %1 was cancelled; the page shows what it showed before").arg(name));
    } else if (!r.snapshot || (!r.read.ok && !r.read.truncated)) {
        report(false, QString("%1: %2").arg(name, fromStd(r.read.error)));
    } else {
        showRecording(o->path, r, std::move(o->timeline));
        emit openingFinished(true);
        return;
    }
    updateActions();
    emit openingFinished(false);
}

bool FileMenu::importCyclictest(const QString& path, int thread, QString* error)
{
    if (!m_latency)
        return fail(error, tr("%1: there is no latency page to hold it").arg(QFileInfo(path).fileName()));
    CyclictestFile file;
    QString why;
    if (!readCyclictestFile(path, file, why))
        return fail(error, why);
    const int threads = int(file.data.threads.size());
    if (thread >= threads)
        return fail(error, QString("%1: thread %2 does not exist; the file holds threads 0 to %3")
                               .arg(file.fileName)
                               .arg(thread)
                               .arg(threads - 1));
    const ImportedReference ref = importedReference(file, thread);
    m_latency->holdReference(ref.summary, ref.curve, ref.max, ref.shortLabel);
    m_window->setCurrentPage(m_window->pageIndex(m_latency->name()));
    emit message(tr("Reference: %1").arg(ref.label) + (ref.note.isEmpty() ? QString() : " — " + ref.note));
    return true;
}

CompareWindow* FileMenu::compareWindow() const
{
    return m_compareWindow.data();
}

CompareWindow* FileMenu::compare(const QStringList& paths, QString* error)
{
    if (!m_compareWindow)
        m_compareWindow = new CompareWindow(m_window); // a window of its own, closed with the main one
    if (!m_compareWindow->load(paths)) {
        fail(error, paths.isEmpty() ? tr("There is no file to compare")
                                    : tr("The compare window is still reading files; cancel it first"));
        return nullptr;
    }
    m_compareWindow->show();
    m_compareWindow->raise();
    return m_compareWindow;
}

bool FileMenu::exportViewPng(const QString& path, QString* error)
{
    ExperimentPage* page = m_window->currentPage();
    if (!page)
        return fail(error, tr("There is no page to export"));
    const QPixmap shot = page->snapshotWidget()->grab();
    const QByteArray png = pngBytes(shot);
    if (png.isEmpty())
        return fail(error, tr("Cannot write %1").arg(path));
    if (!writeBytes(path, std::string_view(png.constData(), size_t(png.size())), error))
        return false;
    emit message(tr("Wrote %1 (%2×%3 pixels)").arg(QFileInfo(path).fileName()).arg(shot.width()).arg(shot.height()));
    return true;
}

bool FileMenu::exportViewSvg(const QString& path, QString* error)
{
    ExperimentPage* page = m_window->currentPage();
    if (!page)
        return fail(error, tr("There is no page to export"));
    QWidget* view = page->snapshotWidget();
    QByteArray drawing;
    QBuffer buffer(&drawing);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(view->size());
    svg.setViewBox(QRect(QPoint(0, 0), view->size()));
    svg.setResolution(view->logicalDpiX());
    svg.setTitle(tr("rtscope: %1").arg(page->shortTitle()));
    svg.setDescription(tr("The %1 view of rtscope %2, exported %3")
                           .arg(page->shortTitle(), RTSCOPE_VERSION,
                                QDateTime::currentDateTimeUtc().toString("yyyy-MM-dd HH:mm 'UTC'")));
    QPainter painter;
    if (!painter.begin(&svg))
        return fail(error, tr("Cannot write %1").arg(path));
    // Rendering the widgets onto the SVG device makes every chart line and label a vector element.
    view->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.end();
    if (drawing.isEmpty())
        return fail(error, tr("Cannot write %1").arg(path));
    if (!writeBytes(path, std::string_view(drawing.constData(), size_t(drawing.size())), error))
        return false;
    emit message(tr("Wrote %1").arg(QFileInfo(path).fileName()));
    return true;
}

RemoteLatencySource* FileMenu::remoteSource() const
{
    return m_latency ? dynamic_cast<RemoteLatencySource*>(&m_latency->source()) : nullptr;
}

QString FileMenu::runRecording() const
{
    if (!runExportBlocker().isEmpty())
        return {};
    if (m_latency->isReplay())
        return m_replayFile;
    if (const RemoteLatencySource* remote = remoteSource()) {
        // The received bytes as they are now (more may have come since the last copy, after a short stop wait).
        if (!m_remoteCopy) {
            m_remoteCopy = std::make_unique<QTemporaryFile>(QDir::temp().filePath("rtscope-remote-XXXXXX.rtrec"));
            if (!m_remoteCopy->open())
                return {};
        }
        if (!m_remoteCopy->resize(0) || !m_remoteCopy->seek(0))
            return {};
        // Piece by piece from the link's spool file: a long run's recording is never whole in memory.
        const Error copied = remote->copyRecording([&](std::string_view piece) {
            if (m_remoteCopy->write(piece.data(), qint64(piece.size())) != qint64(piece.size()))
                return Error{ErrorKind::System, m_remoteCopy->errorString().toStdString()};
            return Error{};
        });
        if (copied || !m_remoteCopy->flush())
            return {};
        return m_remoteCopy->fileName();
    }
    return m_spool->path();
}

QString FileMenu::runExportBlocker() const
{
    if (!m_latency)
        return tr("There is no latency page, so there is no run to export");
    if (m_window->currentPage() != m_latency)
        return tr("Only the latency page has a run to export; this is the %1 page")
            .arg(m_window->currentPage() ? m_window->currentPage()->shortTitle() : QString());
    if (m_latency->isReplay())
        return {};
    if (m_latency->isRunning())
        return tr("Stop the run first: an export holds a whole run");
    if (const RemoteLatencySource* remote = remoteSource())
        return remote->bytesReceived() ? QString()
                                       : tr("Nothing received from the target yet: start a run there, or open a "
                                            "recording");
    if (!m_spool)
        return tr("This latency page does not measure live, so it has no recorded run");
    const RecordingWriter::Status st = m_spool->status();
    if (!st.error.empty())
        return tr("The run could not be recorded: %1").arg(fromStd(st.error));
    if (!st.complete)
        return tr("Nothing measured yet: start and stop a run, or open a recording");
    return {};
}

QString FileMenu::saveBlocker() const
{
    if (m_latency && m_latency->isReplay() && m_window->currentPage() == m_latency)
        return tr("The run shown is already the recording %1").arg(QFileInfo(m_replayFile).fileName());
    return runExportBlocker();
}

bool FileMenu::writeOutput(const QString& path, const std::function<Error(AtomicOutputFile&)>& fill, QString* error)
{
    // The run's recording is read to make the file: writing over it would lose the run.
    std::vector<NamedPath> inputs;
    if (!m_replayFile.isEmpty())
        inputs.push_back({"the recording shown", m_replayFile.toStdString()});
    if (m_spool)
        inputs.push_back({"the run's spool", m_spool->path().toStdString()});
    if (m_remoteCopy)
        inputs.push_back({"the received run's copy", m_remoteCopy->fileName().toStdString()});
    const std::vector<std::string> problems = checkOutput(tr("Not written").toStdString(), path.toStdString(), inputs);
    if (!problems.empty())
        return fail(error, fromStd(problems.front()));
    AtomicOutputFile out;
    Error e = out.open(path.toStdString());
    if (!e)
        e = fill(out);
    if (!e)
        e = out.commit();
    if (e)
        return fail(error, fromStd(e.message));
    return true;
}

bool FileMenu::writeBytes(const QString& path, std::string_view bytes, QString* error)
{
    return writeOutput(
        path, [bytes](AtomicOutputFile& out) { return out.write(bytes); }, error);
}

bool FileMenu::exportReplayedRun(const QString& path, const std::function<std::string(const ReplayedRun&)>& text,
                                 QString* error)
{
    const QString recording = runRecording();
    if (recording.isEmpty())
        return fail(error, runExportBlocker());
    const ReplayedRun r = replayRecordingFile(recording.toStdString());
    if (!r.snapshot)
        return fail(error, fromStd(r.read.error));
    if (!writeBytes(path, text(r), error))
        return false;
    emit message(exportedLine(path, r));
    return true;
}

bool FileMenu::exportHistogram(const QString& path, QString* error)
{
    return exportReplayedRun(
        path, [](const ReplayedRun& r) { return replayedHistogramText(r); }, error);
}

bool FileMenu::exportJson(const QString& path, QString* error)
{
    return exportReplayedRun(
        path,
        [this](const ReplayedRun& r) {
            const QString name = m_latency->isReplay() ? QFileInfo(m_replayFile).fileName() : QString("(live run)");
            return replayedRunJson(r, name.toStdString()).dump(2) + "\n";
        },
        error);
}

bool FileMenu::exportCsv(const QString& path, QString* error)
{
    const QString recording = runRecording();
    if (recording.isEmpty())
        return fail(error, runExportBlocker());
    RecordingReadResult r;
    const bool written = writeOutput(
        path,
        [&](AtomicOutputFile& out) {
            r = writeRecordingCsv(recording.toStdString(), out.stream());
            return r.headerRead ? Error::none() : Error{ErrorKind::System, r.error};
        },
        error);
    if (!written)
        return false;
    QString text =
        tr("Wrote %1: %2 samples, every one of the run").arg(QFileInfo(path).fileName(), groupedCount(r.samples));
    if (r.lost || !r.ok)
        text = tr("Wrote %1: %2 samples; the run is incomplete and the file's first line says why")
                   .arg(QFileInfo(path).fileName(), groupedCount(r.samples));
    emit message(text);
    return true;
}

bool FileMenu::saveRecording(const QString& path, QString* error)
{
    if (const QString why = saveBlocker(); !why.isEmpty())
        return fail(error, why);
    const QString recording = runRecording();
    if (recording.isEmpty())
        return fail(error, tr("Not written: the run's recording cannot be read"));
    const bool written = writeOutput(
        path,
        [&recording](AtomicOutputFile& out) {
            QFile spool(recording);
            if (!spool.open(QIODevice::ReadOnly))
                return Error{ErrorKind::System, "cannot read the run's spool: " + spool.errorString().toStdString()};
            QByteArray chunk(1 << 20, Qt::Uninitialized);
            for (qint64 n; (n = spool.read(chunk.data(), chunk.size())) > 0;)
                if (const Error e = out.write(std::string_view(chunk.constData(), size_t(n))))
                    return e;
            return spool.atEnd()
                       ? Error::none()
                       : Error{ErrorKind::System, "cannot read the run's spool: " + spool.errorString().toStdString()};
        },
        error);
    if (!written)
        return false;
    if (RemoteLatencySource* remote = remoteSource()) {
        // A run whose link was lost has no end block: the file ends where the link did, and replays as such.
        emit message(tr("Saved the run received from %1 to %2: %3 samples")
                         .arg(remote->machine(), QFileInfo(path).fileName(), groupedCount(remote->samplesReceived())));
        return true;
    }
    const RecordingWriter::Status st = m_spool->status();
    emit message(tr("Saved the run to %1: %2 samples%3")
                     .arg(QFileInfo(path).fileName(), groupedCount(st.samples),
                          st.lost ? tr(", %1 not kept by the recorder").arg(groupedCount(st.lost)) : QString()));
    return true;
}

void FileMenu::updateActions()
{
    const QString run = runExportBlocker();
    for (QAction* a : {m_hist, m_json, m_csv}) {
        a->setEnabled(run.isEmpty());
        a->setToolTip(run.isEmpty() ? tr("Every sample of the run the latency views show") : run);
    }
    const QString save = saveBlocker();
    m_save->setEnabled(save.isEmpty());
    m_save->setToolTip(save.isEmpty() ? tr("Every raw sample, change and reset of the last run, with this machine's "
                                           "probe, to open later or convert with rtscope replay")
                                      : save);
    const bool page = m_window->currentPage() != nullptr;
    m_png->setEnabled(page);
    m_svg->setEnabled(page);
    m_openRecording->setEnabled(m_latency != nullptr);
    m_openCyclictest->setEnabled(m_latency != nullptr);
}

void FileMenu::watchRecorder()
{
    const RecordingWriter::Status st = m_spool->status();
    if (!st.error.empty() && m_lostShown != UINT64_MAX) {
        m_lostShown = UINT64_MAX;
        m_window->statusBar()->showMessage(
            tr("⚠ This run is not being recorded (%1): it cannot be saved or exported").arg(fromStd(st.error)));
    } else if (st.lost > m_lostShown && m_lostShown != UINT64_MAX) {
        m_lostShown = st.lost;
        // No timeout: the warning stays until the next message, like the page's data-loss banner.
        m_window->statusBar()->showMessage(tr("⚠ The recorder could not keep %1 samples (the disk is too slow or the "
                                              "spool is full): exports of this run will say so")
                                               .arg(groupedCount(st.lost)));
    }
}

void FileMenu::showProbe(const SystemProbe& probe, bool recorded)
{
    QDockWidget* dock = m_systemDock;
    if (!dock)
        return;
    QWidget* old = dock->widget();
    dock->setWidget(new SystemPanel(probe, dock));
    if (old)
        old->deleteLater();
    dock->setWindowTitle(recorded ? tr("System (recorded run)") : tr("System"));
}

} // namespace rtscope

#include "moc_file_menu.cpp"
