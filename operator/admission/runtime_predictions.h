// Runtime prediction in the reconciler (spec.admission.runtimePrediction, model/runtime_book.h): what
// the book's entries carry of it, and what it learns. Pure bookkeeping on the pool model; the decisions
// (backfill on a prediction, ending an overstaying backfill) are the engine's.
#pragma once

#include <string>

#include "operator/gangs/gang_tracker.h"
#include "operator/model/admission_book.h"
#include "operator/model/gang_entries.h"
#include "operator/model/runtime_book.h"

namespace gangplank::op {

// The gang's entries before the book takes them: the waiting one's predicted runtime (none for a gang
// that overstayed a predicted backfill once), the running one's leave_by while it is such a backfill
// (and its predicted end at `now`).
void PredictEntries(RuntimeBook& book, const Gang& gang, GangEntries& entries, double now);

// A gang the book held as running left it at `now` without gangplank evicting it: its run ended, and
// the predictor learns how long it ran. Returns the seconds learnt (0 when it learnt nothing).
double LearnEnded(RuntimeBook& book, const std::string& key, const engine::RunningGang& ran, double now);

// After the predictor learnt: every waiting gang's predicted runtime again, and each running gang's
// predicted end at `now` (as the predictor sees gangs that ran as long).
// Running gangs' ends only in a full round (`full`): an incremental round must not walk them all.
void Repredict(RuntimeBook& book, AdmissionBook& admission, double now, bool full);

}  // namespace gangplank::op
