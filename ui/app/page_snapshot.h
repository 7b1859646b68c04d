#pragma once
// "S": the current page's plots and tables (ExperimentPage::snapshotWidget()) as a PNG, in one folder, with the
// page and the time in the name, so a lecture's snapshots sort in the order they were taken.
#include "engine/util/error.h"

#include <QByteArray>
#include <QString>

class QPixmap;

namespace rtscope {

class ExperimentPage;

/// @p image encoded as PNG; empty when it cannot be encoded.
QByteArray pngBytes(const QPixmap& image);
/// Encodes @p image as PNG and writes it to @p path as every output of rtscope is written (writeFileAtomically():
/// never through a link, never half a file).
[[nodiscard]] Error writePng(const QPixmap& image, const QString& path);

/// QStandardPaths' pictures folder + "/rtscope".
QString defaultSnapshotFolder();
/// Writes "<folder>/<page name>-<yyyyMMdd-HHmmss>.png" (with "-2", "-3", … when taken within one second);
/// returns the path, or an empty string with @p error saying why.
QString savePageSnapshot(ExperimentPage* page, const QString& folder, QString* error = nullptr);

} // namespace rtscope
