#pragma once
// The File menu: open a recording (replayed in the latency views) or cyclictest results made elsewhere (held as
// the latency page's reference), save the run as a recording, export the view as PNG or SVG, and export the run
// as cyclictest histogram text, cyclictest JSON or a CSV of every raw sample. Every verb is also a method, for
// `--open` and the tests; the actions only add the file dialogs.
#include "engine/rt/system_probe.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <cstdint>

class QAction;
class QMenu;
class QTimer;

namespace rtscope {

class LatencyPage;
class MainWindow;
class RecordingSpool;

class FileMenu : public QObject {
    Q_OBJECT
public:
    /// Puts the File menu first in @p window's menu bar and records the latency page's live runs to a spool.
    FileMenu(MainWindow* window, const SystemProbe& probe);

    QMenu* menu() const { return m_menu; }

    /// A recording (by its signature) or a cyclictest file; @p thread as for importCyclictest().
    bool open(const QString& path, QString* error = nullptr, int thread = -1);
    /// Replays @p path in the latency page, with the recorded system shown in the System dock.
    bool openRecording(const QString& path, QString* error = nullptr);
    /// Holds thread @p thread of a cyclictest -h or --json file (-1: all threads summed) as the reference.
    bool importCyclictest(const QString& path, int thread, QString* error = nullptr);

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

private:
    QString runRecording() const; ///< the recording that holds the shown run; empty if none
    bool writeText(const QString& path, const std::string& text, QString* error);
    bool fail(QString* error, const QString& text);
    void updateActions();
    void showProbe(const SystemProbe& probe, bool recorded);
    QString askSavePath(const QString& title, const QString& filter, const QString& suffix);
    void report(bool ok, const QString& error);
    void watchRecorder(); ///< while a run goes on: say at once when the recorder stops keeping samples

    MainWindow* m_window;
    SystemProbe m_probe;
    QPointer<LatencyPage> m_latency;
    RecordingSpool* m_spool = nullptr;
    QString m_replayFile;
    QString m_lastDir;
    QTimer* m_recorderWatch;
    uint64_t m_lostShown = 0;
    QMenu* m_menu;
    QAction* m_openRecording;
    QAction* m_openCyclictest;
    QAction* m_save;
    QAction* m_png;
    QAction* m_svg;
    QAction* m_hist;
    QAction* m_json;
    QAction* m_csv;
};

} // namespace rtscope
