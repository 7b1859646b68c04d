#pragma once
// The progress dialog of a file read off the GUI thread (File › Open recording, File › Compare results…): one way to
// show it, so both behave alike.
#include <QProgressDialog>
#include <QString>
#include <QTimer>
#include <QWidget>

#include <atomic>

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

} // namespace rtscope
