#pragma once
// The progress dialog of a file read off the GUI thread (File › Open recording, File › Compare results…): one way to
// show it, so both behave alike; and BackgroundRead, the life of such a read (thread, dialog, cancel) written once.
#include <QProgressDialog>
#include <QString>
#include <QThread>
#include <QTimer>
#include <QWidget>

#include <atomic>
#include <memory>
#include <utility>

namespace rtscope {

/// The dialog and its poll timer (a child of the dialog; stop it when the read ends, before the last setValue()).
struct BackgroundReadProgress {
    QProgressDialog* dialog = nullptr;
    QTimer* poll = nullptr;
};

/// A window-modal progress dialog (0…1000) for a background read, shown with show() and not exec(): the window
/// repaints and the event loop runs (no nested loop a SIGTERM would have to unwind), while the parent cannot start a
/// second read. It appears only after 300 ms, so a small file opens without a dialog flashing up. Every 50 ms it shows
/// @p permille, which the reading thread writes; Cancel sets @p cancel, which the thread polls, and says
/// "Cancelling…". @p cancel and @p permille must outlive the dialog (the caller's job state owns both).
inline BackgroundReadProgress backgroundReadProgress(QWidget* parent, const QString& objectName, const QString& title,
                                                     const QString& label, std::atomic<bool>& cancel,
                                                     const std::atomic<int>& permille)
{
    auto* dialog = new QProgressDialog(label, QProgressDialog::tr("Cancel"), 0, 1000, parent);
    dialog->setObjectName(objectName);
    dialog->setWindowTitle(title);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->setAutoClose(false);
    dialog->setAutoReset(false);
    dialog->setMinimumDuration(300);
    QObject::connect(dialog, &QProgressDialog::canceled, dialog, [dialog, &cancel] {
        cancel = true;
        dialog->setLabelText(QProgressDialog::tr("Cancelling…"));
    });
    auto* poll = new QTimer(dialog);
    poll->setInterval(50);
    QObject::connect(poll, &QTimer::timeout, dialog, [dialog, &cancel, &permille] {
        if (!cancel)
            dialog->setValue(permille.load());
    });
    poll->start();
    return {dialog, poll};
}

/// A read off the GUI thread with its progress dialog: what the reading thread and the GUI thread share (cancel, which
/// the thread polls, and permille, which it writes), the thread and the dialog. A job derives from it for its input
/// and its results, which the thread writes and the GUI thread reads once the thread has finished.
struct BackgroundRead {
    std::atomic<bool> cancel{false};
    std::atomic<int> permille{0};
    std::unique_ptr<QThread> thread;
    BackgroundReadProgress progress;

    /// Runs @p read on a thread named @p threadName with the dialog backgroundReadProgress(@p parent, @p objectName,
    /// @p title, @p label) shows; @p receiver's @p finished is called on its own thread once the read has ended.
    template <class Read, class Receiver>
    void start(Read read, const char* threadName, QWidget* parent, const QString& objectName, const QString& title,
               const QString& label, Receiver* receiver, void (Receiver::*finished)())
    {
        thread.reset(QThread::create(std::move(read)));
        thread->setObjectName(threadName);
        progress = backgroundReadProgress(parent, objectName, title, label, cancel, permille);
        QObject::connect(thread.get(), &QThread::finished, receiver, finished, Qt::QueuedConnection);
        thread->start();
    }
    /// In the finished slot: the thread is joined and the dialog goes.
    void end()
    {
        thread->wait();
        progress.poll->stop();
        progress.dialog->hide();
        progress.dialog->deleteLater();
    }
    /// Its owner is going (the window closed, a SIGTERM): the read stops at its next block and is joined.
    void abandon()
    {
        cancel = true;
        thread->wait();
    }
};

/// In the finished slot: the read in @p job, ended (BackgroundRead::end()) and taken out of it; null when there is
/// none (a second call for the same read).
template <class Read> std::unique_ptr<Read> takeEndedRead(std::unique_ptr<Read>& job)
{
    std::unique_ptr<Read> read = std::move(job);
    if (read)
        read->end();
    return read;
}

} // namespace rtscope
