#pragma once
// The File menu: open a recording (replayed in the latency views) or cyclictest results made elsewhere (held as
// the latency page's reference), save the run as a recording, export the view as PNG or SVG, and export the run
// as cyclictest histogram text, cyclictest JSON or a CSV of every raw sample. Every verb is also a method, for
// `--open` and the tests; the actions only add the file dialogs.
#include "engine/recording/recording_replay.h"
#include "engine/rt/system_probe.h"
#include "engine/util/error.h"
#include "ui/latency/recording_timeline.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

class QAction;
class QDockWidget;
class QMenu;
class QTabBar;
class QTemporaryFile;
class QTimer;

namespace rtscope {

class AtomicOutputFile;
class CompareWindow;
class LatencyPage;
class MainWindow;
class RecordingSpool;
class RemoteLatencySource;

class FileMenu : public QObject {
    Q_OBJECT
public:
    /// Puts the File menu first in @p window's menu bar and records the latency page's live runs to a spool.
    /// @p pageTabs is the window's page selector (the run exports follow the current page) and @p systemDock the
    /// dock whose System panel shows a replayed recording's machine; either may be null.
    FileMenu(MainWindow* window, const SystemProbe& probe, QTabBar* pageTabs, QDockWidget* systemDock);
    ~FileMenu() override;

    QMenu* menu() const { return m_menu; }

    /// A recording (by its signature) or a cyclictest file; @p thread as for importCyclictest().
    bool open(const QString& path, QString* error = nullptr, int thread = -1);
    /// Replays @p path in the latency page, with the recorded system shown in the System dock.
    bool openRecording(const QString& path, QString* error = nullptr);
    /// openRecording() off the GUI thread, for File › Open recording…: returns at once; a progress dialog
    /// ("openingRecording") with a Cancel button shows while the file is read. The page changes only when the whole
    /// file was read; Cancel, or a file that cannot be replayed, leaves it as it was. False (with @p error) when a
    /// recording is being opened already or there is no latency page.
    bool openRecordingInBackground(const QString& path, QString* error = nullptr);
    /// A recording is being read by openRecordingInBackground().
    bool isOpening() const { return m_opening != nullptr; }
    /// Holds thread @p thread of a cyclictest -h or --json file (-1: all threads summed) as the reference.
    bool importCyclictest(const QString& path, int thread, QString* error = nullptr);
    /// File › Compare results…: @p paths (cyclictest -h or --json files, recordings) read off the GUI thread into
    /// the compare window (ui/compare/compare_window.h), created on first use and shown. Null (with @p error) when
    /// it is still reading the previous ones.
    CompareWindow* compare(const QStringList& paths, QString* error = nullptr);
    CompareWindow* compareWindow() const; ///< null until compare() made it

    /// The current page's snapshotWidget(): a bitmap, or vectors (charts and text stay sharp when scaled).
    bool exportViewPng(const QString& path, QString* error = nullptr);
    bool exportViewSvg(const QString& path, QString* error = nullptr);

    /// The latency run the views show (live and stopped, or replayed), from its recording: every sample.
    bool exportHistogram(const QString& path, QString* error = nullptr);
    bool exportJson(const QString& path, QString* error = nullptr);
    bool exportCsv(const QString& path, QString* error = nullptr);
    bool saveRecording(const QString& path, QString* error = nullptr);

    /// Why the run exports are unavailable now, in a sentence (their tooltip); empty when they are available.
    QString runExportBlocker() const;
    /// Why "Save run as recording" is unavailable now; empty when it is available.
    QString saveBlocker() const;
    RecordingSpool* spool() const { return m_spool; }

signals:
    /// A sentence for the status bar after each verb (what was written, how many samples, what is missing).
    void message(const QString& text);
    /// openRecordingInBackground() ended: shown, refused or cancelled.
    void openingFinished(bool shown);

private:
    struct Opening;
    void finishOpening(); ///< on the GUI thread, when the reading thread is done
    /// Shows a replayed recording in the latency page, the recorded system in the System dock.
    void showRecording(const QString& path, const ReplayedRun& run, RecordingTimeline timeline);
    QString runRecording() const; ///< the recording that holds the shown run; empty if none
    /// The latency page's source while it measures a remote target (docs/remote.md), else null.
    RemoteLatencySource* remoteSource() const;
    /// Writes @p path as every output of rtscope is written: checked first (no link, no directory, a folder that
    /// exists, not the recording the run is read from), then @p fill writes into a temporary that is renamed onto
    /// @p path, so a failure leaves the file there as it was. @p fill returns why it could not write.
    bool writeOutput(const QString& path, const std::function<Error(AtomicOutputFile&)>& fill, QString* error);
    bool writeBytes(const QString& path, std::string_view bytes, QString* error);
    /// Replays the run's recording and writes @p text of it to @p path (the histogram and JSON exports).
    bool exportReplayedRun(const QString& path, const std::function<std::string(const ReplayedRun&)>& text,
                           QString* error);
    bool fail(QString* error, const QString& text);
    void updateActions();
    void showProbe(const SystemProbe& probe, bool recorded);
    QString askSavePath(const QString& title, const QString& filter, const QString& suffix);
    /// A menu action that asks where to save (askSavePath()), has @p write write there and reports the outcome.
    QAction* addSaveAction(const QString& text, const QString& title, const QString& filter, const QString& suffix,
                           bool (FileMenu::*write)(const QString&, QString*));
    void report(bool ok, const QString& error);
    void watchRecorder(); ///< while a run goes on: say at once when the recorder stops keeping samples

    MainWindow* m_window;
    QPointer<QDockWidget> m_systemDock;
    SystemProbe m_probe;
    QPointer<LatencyPage> m_latency;
    QPointer<CompareWindow> m_compareWindow;
    RecordingSpool* m_spool = nullptr;
    QString m_replayFile;
    QString m_lastDir;
    QTimer* m_recorderWatch;
    uint64_t m_lostShown = 0;
    QMenu* m_menu;
    QAction* m_openRecording;
    QAction* m_openCyclictest;
    QAction* m_compare;
    QAction* m_save;
    QAction* m_png;
    QAction* m_svg;
    QAction* m_hist;
    QAction* m_json;
    QAction* m_csv;
    std::unique_ptr<Opening> m_opening; ///< a recording being read off the GUI thread
    /// A remote run's received recording, copied to a file for the exports (which read a file); made on demand.
    mutable std::unique_ptr<QTemporaryFile> m_remoteCopy;
};

} // namespace rtscope
