// The APIC bus of a P6 system: the interrupt messages that I/O APICs (redirection
// entries) and local APICs (the ICR) send, and the EOI broadcast that ends a
// level-triggered interrupt (Intel SDM Vol. 3, "Advanced Programmable Interrupt
// Controller (APIC)": "Issuing Interprocessor Interrupts", "Interrupt Destination and
// APIC ID", "EOI Register"; Intel 82093AA I/O APIC data sheet, "I/O Redirection Table
// Registers"). The bus only routes: each local APIC decides whether a destination
// names it (its ID, LDR and DFR), and the I/O APICs clear their own remote IRR bits.
#pragma once
#include <vector>

#include "trace/types.h"

namespace x86lab {

// The delivery modes of the ICR and of redirection entries (3-bit field, same codes).
enum class DeliveryMode : u8 { Fixed = 0, LowestPriority = 1, Smi = 2, Nmi = 4, Init = 5, StartUp = 6, ExtInt = 7 };

// The ICR's destination shorthand (bits 19:18); I/O APIC messages use None.
enum class DestinationShorthand : u8 { None = 0, Self = 1, AllIncludingSelf = 2, AllExcludingSelf = 3 };

// One interrupt message.
struct ApicMessage {
  u8 vector = 0;                          // 0-255 (start-up: the page number of the code)
  DeliveryMode delivery_mode = DeliveryMode::Fixed;
  bool logical_destination = false;       // destination mode: physical (APIC ID) or logical (MDA)
  u8 destination = 0;                     // APIC ID, or the message destination address
  bool level_triggered = false;           // trigger mode
  bool assert = true;                     // level: assert (1) or de-assert (0; INIT level de-assert)
  DestinationShorthand shorthand = DestinationShorthand::None;
  u8 source_apic_id = 0xFF;               // the sending local APIC's ID (Self, AllExcludingSelf); 0xFF: an I/O APIC
};

// A local APIC as the bus sees it (platform/devices/apic/local_apic.h implements it).
class ApicBusAgent {
 public:
  virtual ~ApicBusAgent() = default;
  // The APIC ID (bits 27:24 of the ID register on the P6: 0-15).
  virtual u8 apic_id() const = 0;
  // Whether a message with shorthand None names this APIC: physical destination
  // equal to its ID or FFh (broadcast), or a logical destination matching its LDR
  // under the DFR's flat or cluster model (SDM "Logical Destination Mode").
  virtual bool is_destination(const ApicMessage& message) const = 0;
  // The arbitration priority (APR) that lowest-priority delivery compares (0-255).
  virtual u8 arbitration_priority() const = 0;
  // Takes a message addressed to it (IRR set, NMI/INIT/start-up acted on).
  virtual void accept(const ApicMessage& message) = 0;
};

// An I/O APIC as the bus sees it (platform/devices/apic/io_apic.h implements it).
class EoiListener {
 public:
  virtual ~EoiListener() = default;
  // A local APIC's EOI of a level-triggered `vector`: clear the remote IRR of the
  // redirection entries with that vector (82093AA data sheet, "Remote IRR").
  virtual void end_of_interrupt(u8 vector) = 0;
};

class ApicBus {
 public:
  // Devices attach once, when the machine is built; the bus does not own them. Local
  // APICs in the order of their CPUs.
  void attach(ApicBusAgent* local_apic) { local_apics_.push_back(local_apic); }
  void attach(EoiListener* io_apic) { io_apics_.push_back(io_apic); }

  // Delivers `message` to every local APIC it names (fixed, NMI, SMI, INIT, start-up,
  // ExtINT), or to the one of them with the lowest arbitration priority (lowest
  // priority; ties to the lowest APIC ID, the P6 bus arbitration order). Returns
  // whether any local APIC took it.
  bool send(const ApicMessage& message);
  // A local APIC's EOI for a level-triggered vector: every I/O APIC clears the
  // remote IRR of the redirection entries with that vector.
  void broadcast_eoi(u8 vector);

  const std::vector<ApicBusAgent*>& local_apics() const { return local_apics_; }

 private:
  std::vector<ApicBusAgent*> local_apics_;
  std::vector<EoiListener*> io_apics_;
};

}  // namespace x86lab
