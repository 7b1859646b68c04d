#include "ui/app/page_snapshot.h"

#include "ui/experiment_page.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QPixmap>
#include <QStandardPaths>

namespace rtscope {

QString defaultSnapshotFolder()
{
    QString pictures = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    if (pictures.isEmpty())
        pictures = QDir::homePath();
    return QDir(pictures).filePath("rtscope");
}

QString savePageSnapshot(ExperimentPage* page, const QString& folder, QString* error)
{
    const auto fail = [error](const QString& why) {
        if (error)
            *error = why;
        return QString();
    };
    if (!page)
        return fail(QObject::tr("there is no page to take a snapshot of"));
    QWidget* widget = page->snapshotWidget();
    if (!widget)
        return fail(QObject::tr("the %1 page has nothing to snapshot").arg(page->shortTitle()));
    if (!QDir().mkpath(folder))
        return fail(QObject::tr("cannot create the folder %1").arg(folder));
    const QString stem =
        QDir(folder).filePath(page->name() + "-" + QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss"));
    QString path = stem + ".png";
    for (int n = 2; QFileInfo::exists(path); ++n)
        path = QString("%1-%2.png").arg(stem).arg(n);
    if (!widget->grab().save(path, "PNG"))
        return fail(QObject::tr("cannot write %1").arg(path));
    return path;
}

} // namespace rtscope
