#pragma once
// Turns priority-inversion snapshots into what the page shows: one summary per run (the high thread's wait
// p50/p99/max, missed periods, how long the medium thread ran while high waited) and the lanes of the timeline
// for the last complete periods. The live run and the held reference go through the same two functions.
#include "engine/experiments/locks/inversion_experiment.h"
#include "ui/plot/inversion_timeline.h"

#include <QString>

namespace rtscope {

struct InversionRunSummary {
    LockKind lock = LockKind::Mutex;
    QString state; ///< "running", "finished", "stopped", "ready"
    uint64_t periods = 0;
    uint64_t contended = 0; ///< periods in which high found the lock held
    uint64_t missed = 0;    ///< periods in which it got the lock only after its next release
    uint64_t skipped = 0;
    int64_t waitP50Ns = 0;
    int64_t waitP99Ns = 0;
    int64_t waitMaxNs = 0;
    int64_t waitTotalNs = 0;
    int64_t mediumRanWhileHighWaitedNs = 0;
    int64_t lowRanWhileHighWaitedNs = 0;
    uint64_t drops = 0;
    int watchdogTrips = 0;
    QString error;

    /// The inversion per period of high: total medium-while-waiting time / periods.
    double mediumPerPeriodNs() const { return periods ? double(mediumRanWhileHighWaitedNs) / double(periods) : 0; }
};

InversionRunSummary summarizeInversion(const InversionSnapshot& snapshot);

/// "mutex — plain pthread mutex (no inheritance)".
QString inversionLockText(LockKind lock);
/// "FIFO 10/20/30 · CPU 1" (low/medium/high).
QString inversionPriorityText(const InversionConfig& config);

/// The index of the last period whose whole length the snapshot has seen (or the run's last period once it has
/// passed); -1 while period 0 is still in progress.
int64_t lastCompletePeriod(const InversionSnapshot& snapshot);

/// The timeline of the last @p periods complete periods (while period 0 runs: the first @p periods periods
/// as far as they went). The axis starts at the first period shown.
InversionTimelineData inversionTimelineData(const InversionSnapshot& snapshot, int periods, const QString& title);

} // namespace rtscope
