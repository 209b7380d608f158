// Placement of the MP and ACPI tables for direct kernel boot (see boot_tables.h).
#include "platform/loaders/boot_tables.h"

#include "platform/loaders/acpi_tables.h"
#include "platform/loaders/mp_table.h"

namespace x86lab {

void write_boot_tables(PhysicalBus& bus, const CpuProfile& profile) {
  using namespace boot_tables;
  for (u32 a = kBase; a < kEnd; ++a) bus.poke(a, 0);
  MpMachine mp;
  mp.cpu_signature = profile.signature;
  mp.cpu_features = profile.features_edx;
  bus.load(kMpFloatingPointer, build_mp_floating_pointer(kMpConfigurationTable));
  bus.load(kMpConfigurationTable, build_mp_configuration_table(mp));
  const AcpiMachine acpi;
  bus.load(kRsdp, build_rsdp(kRsdt));
  bus.load(kRsdt, build_rsdt({kFadt, kMadt}));
  bus.load(kFadt, build_fadt(acpi, kFacs, kDsdt));
  bus.load(kFacs, build_facs());
  bus.load(kDsdt, build_dsdt());
  bus.load(kMadt, build_madt(acpi));
}

}  // namespace x86lab
