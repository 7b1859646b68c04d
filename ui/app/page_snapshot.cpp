#include "ui/app/page_snapshot.h"

#include "engine/formats/output_file.h"
#include "ui/experiment_page.h"

#include <QBuffer>
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

QByteArray pngBytes(const QPixmap& image)
{
    QByteArray png;
    QBuffer buffer(&png);
    if (!buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG"))
        return {};
    return png;
}

Error writePng(const QPixmap& image, const QString& path)
{
    const QByteArray png = pngBytes(image);
    if (png.isEmpty())
        return {ErrorKind::System, "cannot encode the image of " + path.toStdString() + " as PNG"};
    return writeFileAtomically(path.toStdString(), std::string_view(png.constData(), size_t(png.size())));
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
    if (const Error e = writePng(widget->grab(), path))
        return fail(QString::fromStdString(e.message));
    return path;
}

} // namespace rtscope
