// Saves, checks or loads every counter (a machine snapshot, trace/state_archive.h),
// in Counters' declaration order. A field added to Counters fails the build until it
// is added here (a size check in counters_state.cpp).
#pragma once
#include "trace/counters.h"
#include "trace/state_archive.h"

namespace x86lab {

void transfer_counters(StateArchive& archive, Counters& counters);

}  // namespace x86lab
