// MP table bytes (MultiProcessor Specification 1.4, "MP Floating Pointer Structure",
// "MP Configuration Table Header", "Base MP Configuration Table Entries").
#include "platform/loaders/mp_table.h"

#include "platform/loaders/table_bytes.h"

namespace x86lab {

namespace {
constexpr u8 kEnabled = 1 << 0, kBootProcessor = 1 << 1;  // processor entry CPU flags
constexpr u8 kIsaBus = 0;
constexpr u16 kConformsToBus = 0;  // I/O and local interrupt entry flags: polarity 1:0, trigger 3:2

void interrupt_entry(TableBytes& t, u8 type, u8 interrupt_type, u8 source_irq, u8 destination_id, u8 destination_pin) {
  t.put8(type);
  t.put8(interrupt_type);
  t.put16(kConformsToBus);
  t.put8(kIsaBus);
  t.put8(source_irq);
  t.put8(destination_id);
  t.put8(destination_pin);
}
}  // namespace

std::vector<u8> build_mp_floating_pointer(u32 configuration_table_address) {
  TableBytes t;
  t.text("_MP_", 4);
  t.put32(configuration_table_address);
  t.put8(1);                           // length in 16-byte paragraphs
  t.put8(mp::kSpecificationRevision);
  t.put8(0);                           // checksum
  t.zeros(5);                          // feature bytes 1-5
  t.set_checksum(10, 0, t.size());
  return t.take();
}

std::vector<u8> build_mp_configuration_table(const MpMachine& m) {
  TableBytes t;
  t.text("PCMP", 4);
  t.put16(0);  // base table length, patched below
  t.put8(mp::kSpecificationRevision);
  t.put8(0);   // checksum
  t.text("X86LAB", 8);
  t.text("P6 PC", 12);
  t.put32(0);  // OEM table pointer
  t.put16(0);  // OEM table size
  t.put16(0);  // entry count, patched below
  t.put32(m.local_apic_address);
  t.put16(0);  // extended table length
  t.put8(0);   // extended table checksum
  t.put8(0);
  u16 entries = 0;

  t.put8(mp::kProcessor);
  t.put8(m.local_apic_id);
  t.put8(m.local_apic_version);
  t.put8(kEnabled | kBootProcessor);
  t.put32(m.cpu_signature);
  t.put32(m.cpu_features);
  t.zeros(8);
  ++entries;

  t.put8(mp::kBus);
  t.put8(kIsaBus);
  t.text("ISA", 6);
  ++entries;

  t.put8(mp::kIoApic);
  t.put8(m.io_apic_id);
  t.put8(m.io_apic_version);
  t.put8(kEnabled);
  t.put32(m.io_apic_address);
  ++entries;

  // The wiring of PcDevices::set_irq: the 8259A's INT on INTIN0, IRQ 0 on INTIN2, IRQ n
  // on INTINn; IRQ 2 (the cascade) has no pin.
  interrupt_entry(t, mp::kIoInterrupt, mp::kExtInt, 0, m.io_apic_id, 0);
  ++entries;
  for (u8 irq = 0; irq < 16; ++irq) {
    if (irq == 2) continue;
    interrupt_entry(t, mp::kIoInterrupt, mp::kInt, irq, m.io_apic_id, irq == 0 ? 2 : irq);
    ++entries;
  }
  interrupt_entry(t, mp::kLocalInterrupt, mp::kExtInt, 0, mp::kAllLocalApics, 0);
  interrupt_entry(t, mp::kLocalInterrupt, mp::kNmi, 0, mp::kAllLocalApics, 1);
  entries += 2;

  t.patch(4, static_cast<u32>(t.size()), 2);
  t.patch(34, entries, 2);
  t.set_checksum(7, 0, t.size());
  return t.take();
}

}  // namespace x86lab
