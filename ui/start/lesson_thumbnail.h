#pragma once
// The small picture on a start-page card: a drawn sketch of the chart the lesson's page shows (the latency
// overlay, the starved counter, the drifting loop, the sleep floor, the three threads of an inversion, the lock
// kinds' bars), in the chart colours of the current palette. Drawn, not a screenshot: it needs no run, no
// privilege and no file, so a card looks the same on a machine where the lesson cannot start.
#include <QPalette>
#include <QPixmap>
#include <QSize>
#include <QString>

namespace rtscope {

/// The sketch for a lesson of @p experiment ("latency", "starvation", "drift", "sleep-floor", "inversion",
/// "contention", "deadline", "doctor", "noise"), @p size device-independent pixels at @p dpr; an experiment without a
/// sketch gets a plain frame with its name, so a new lesson still has a card.
QPixmap lessonThumbnail(const QString& experiment, QSize size, const QPalette& palette, qreal dpr = 1.0);

} // namespace rtscope
