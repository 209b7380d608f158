// Routing on the APIC bus (Intel SDM Vol. 3, "Issuing Interprocessor Interrupts":
// destination shorthands, "Lowest Priority Delivery Mode").
#include "platform/devices/apic/apic_bus.h"

namespace x86lab {

bool ApicBus::send(const ApicMessage& message) {
  const auto named = [&](const ApicBusAgent* agent) {
    switch (message.shorthand) {
      case DestinationShorthand::None: return agent->is_destination(message);
      case DestinationShorthand::Self: return agent->apic_id() == message.source_apic_id;
      case DestinationShorthand::AllIncludingSelf: return true;
      case DestinationShorthand::AllExcludingSelf: return agent->apic_id() != message.source_apic_id;
    }
    return false;
  };
  if (message.delivery_mode == DeliveryMode::LowestPriority) {
    // The named APIC with the lowest arbitration priority; on a tie the first in bus
    // order (the P6 arbitrates ties by APIC ID: DEVIATION from the rotating
    // arbitration ID, which only matters with several CPUs at equal priority).
    ApicBusAgent* chosen = nullptr;
    for (ApicBusAgent* agent : local_apics_)
      if (named(agent) && (!chosen || agent->arbitration_priority() < chosen->arbitration_priority())) chosen = agent;
    if (!chosen) return false;
    chosen->accept(message);
    return true;
  }
  bool taken = false;
  for (ApicBusAgent* agent : local_apics_) {
    if (!named(agent)) continue;
    agent->accept(message);
    taken = true;
  }
  return taken;
}

void ApicBus::broadcast_eoi(u8 vector) {
  for (EoiListener* io_apic : io_apics_) io_apic->end_of_interrupt(vector);
}

}  // namespace x86lab
