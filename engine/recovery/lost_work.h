// What a restart costs, for metrics and the failure replay: the GPU time a gang spent since the progress
// it last saved, thrown away when it is restarted. Work done since its last checkpoint is redone, and
// the time its GPUs sat held by a hung gang between the fault and the restart did nothing, so both are
// the same span: from the saved progress to the restart.
#pragma once

#include <optional>

namespace gangplank::engine {

// `gpus` whole-GPU equivalents held; the gang started (or last restarted) at `started_at`; its last
// checkpoint (one acknowledged after the fault included) at `last_checkpoint_at`, if any. Never negative.
double RestartLostGpuSeconds(double gpus, double started_at, std::optional<double> last_checkpoint_at,
                             double restart_at);

}  // namespace gangplank::engine
