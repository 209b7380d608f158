// The APIC trace events (trace/events.h: lapic-accept, lapic-dispatch, lapic-eoi,
// lapic-ipi, lapic-timer, ioapic-delivery) of a machine whose APICs are programmed
// directly, with field values from the Intel SDM Vol. 3, "Advanced Programmable
// Interrupt Controller (APIC)", and the 82093AA data sheet's redirection entry layout.
#include <gtest/gtest.h>

#include <algorithm>

#include "platform/machine.h"
#include "trace/tracer.h"

namespace x86lab {
namespace {

using namespace lapic;

struct CollectingSink : TraceSink {
  std::vector<Event>* events;
  explicit CollectingSink(std::vector<Event>* e) : events(e) {}
  void write(const Event& e) override { events->push_back(e); }
  void finish() override {}
};

MachineConfig small_config() {
  MachineConfig config;
  config.memory_mib = 4;
  return config;
}

struct ApicEvents : ::testing::Test {
  Machine machine{small_config()};
  LocalApic& apic = *machine.local_apic;
  std::vector<Event> events;
  Tracer tracer{{}, {}};
  ApicEvents() {
    tracer.add_sink(std::make_unique<CollectingSink>(&events));
    machine.cpu.set_tracer(&tracer);
  }
  void set(u32 offset, u32 value) { machine.bus.write<u32>(kDefaultBase + offset, value, AccessKind::Data); }
  int take() { return apic.interrupt_pending() ? apic.acknowledge() : -1; }
  std::vector<Event> of(EventKind kind) const {
    std::vector<Event> out;
    std::copy_if(events.begin(), events.end(), std::back_inserter(out), [&](const Event& e) { return e.kind == kind; });
    return out;
  }
  std::vector<EventKind> kinds() const {
    std::vector<EventKind> out;
    for (const Event& e : events)
      if (e.kind >= kFirstApicEventKind) out.push_back(e.kind);
    return out;
  }
};

// One-shot timer, divide by 1 (DCR 1011b), initial count 100: it expires 100 bus-clock
// ticks after the write, 500 cycles at the p3 profile's 100 MHz bus and the machine's
// 500 MHz clock; the vector goes to IRR (accept), then to ISR at the INTA (dispatch,
// PPR 0 before it), and the EOI write ends it (edge: no broadcast).
TEST_F(ApicEvents, TimerExpiryIsFollowedByAcceptDispatchAndEoi) {
  set(kSvr, 0x1FF);
  set(kLvtTimer, 0x40);
  set(kDivideConfiguration, 0xB);
  set(kInitialCount, 100);
  machine.clock.advance_to(499);
  machine.clock.run_due();
  EXPECT_TRUE(of(EventKind::LapicTimer).empty());
  machine.clock.advance_to(500);
  machine.clock.run_due();
  ASSERT_EQ(take(), 0x40);
  set(kEoi, 0);
  ASSERT_EQ(kinds(), (std::vector<EventKind>{EventKind::LapicTimer, EventKind::LapicAccept, EventKind::LapicDispatch,
                                             EventKind::LapicEoi}));
  const auto timer = events::from_event<events::LapicTimer>(of(EventKind::LapicTimer)[0]);
  EXPECT_EQ(timer.vector, 0x40);
  EXPECT_FALSE(timer.periodic);
  EXPECT_EQ(timer.initial_count, 100u);
  EXPECT_EQ(timer.cycle, 500u);
  const auto accept = events::from_event<events::LapicAccept>(of(EventKind::LapicAccept)[0]);
  EXPECT_EQ(accept.vector, 0x40);
  EXPECT_EQ(accept.source, events::ApicSource::Timer);
  EXPECT_FALSE(accept.level);
  const auto dispatch = events::from_event<events::LapicDispatch>(of(EventKind::LapicDispatch)[0]);
  EXPECT_EQ(dispatch.vector, 0x40);
  EXPECT_EQ(dispatch.ppr, 0);
  EXPECT_FALSE(dispatch.spurious);
  const auto eoi = events::from_event<events::LapicEoi>(of(EventKind::LapicEoi)[0]);
  EXPECT_EQ(eoi.vector, 0x40);
  EXPECT_FALSE(eoi.level);
  EXPECT_EQ(machine.counters.apic_timer_interrupts, 1u);
  EXPECT_EQ(machine.counters.apic_dispatches_by_vector[0x40], 1u);
  EXPECT_EQ(format_event(of(EventKind::LapicTimer)[0]).substr(format_event(of(EventKind::LapicTimer)[0]).find(" lapic")),
            " lapic-timer vector=40 one-shot initial=00000064 at=500 apic=00");
}

// A level-triggered fixed message dispatched above TPR 20h: PPR 20h before it; its EOI
// is broadcast because TMR is set.
TEST_F(ApicEvents, LevelMessageIsAcceptedWithItsTriggerAndItsEoiIsBroadcast) {
  set(kSvr, 0x1FF);
  set(kTpr, 0x20);
  machine.devices->apic_bus.send(ApicMessage{.vector = 0x61, .destination = 0, .level_triggered = true});
  ASSERT_EQ(take(), 0x61);
  set(kEoi, 0);
  const auto accept = events::from_event<events::LapicAccept>(of(EventKind::LapicAccept).at(0));
  EXPECT_EQ(accept.source, events::ApicSource::IoApic);
  EXPECT_TRUE(accept.level);
  EXPECT_EQ(accept.delivery_mode, 0);
  EXPECT_EQ(events::from_event<events::LapicDispatch>(of(EventKind::LapicDispatch).at(0)).ppr, 0x20);
  const auto eoi = events::from_event<events::LapicEoi>(of(EventKind::LapicEoi).at(0));
  EXPECT_EQ(eoi.vector, 0x61);
  EXPECT_TRUE(eoi.level);
}

// A self IPI (ICR shorthand 01b) of vector 55h, fixed, edge, de-assert: the ICR decoded,
// then the local APIC's own acceptance with source IPI from APIC 0.
TEST_F(ApicEvents, SelfIpiRecordsTheIcrAndItsAcceptance) {
  set(kSvr, 0x1FF);
  set(kIcrHigh, 0);
  set(kIcrLow, (1u << 18) | 0x55);
  ASSERT_EQ(kinds(), (std::vector<EventKind>{EventKind::LapicIpi, EventKind::LapicAccept}));
  const auto ipi = events::from_event<events::LapicIpi>(of(EventKind::LapicIpi)[0]);
  EXPECT_EQ(ipi.vector, 0x55);
  EXPECT_EQ(ipi.shorthand, 1);
  EXPECT_EQ(ipi.delivery_mode, 0);
  EXPECT_FALSE(ipi.logical);
  EXPECT_FALSE(ipi.assert);
  const auto accept = events::from_event<events::LapicAccept>(of(EventKind::LapicAccept)[0]);
  EXPECT_EQ(accept.source, events::ApicSource::Ipi);
  EXPECT_EQ(accept.source_apic_id, 0);
  const std::string line = format_event(of(EventKind::LapicIpi)[0]);
  EXPECT_EQ(line.substr(line.find(" lapic")),
            " lapic-ipi vector=55 mode=fixed dest=physical:00 shorthand=self edge deassert apic=00");
}

// SDM "Spurious Interrupt": TPR raised to F0h between the request and the INTA gives
// the SVR's spurious vector (here 3Fh) with no ISR bit.
TEST_F(ApicEvents, DispatchOfTheSpuriousVectorIsMarked) {
  set(kSvr, 0x13F);
  machine.devices->apic_bus.send(ApicMessage{.vector = 0x70, .destination = 0});
  ASSERT_TRUE(apic.interrupt_pending());
  set(kTpr, 0xF0);
  EXPECT_EQ(apic.acknowledge(), 0x3F);
  const auto dispatch = events::from_event<events::LapicDispatch>(of(EventKind::LapicDispatch).at(0));
  EXPECT_EQ(dispatch.vector, 0x3F);
  EXPECT_TRUE(dispatch.spurious);
  EXPECT_EQ(dispatch.ppr, 0xF0);
  EXPECT_EQ(machine.counters.apic_dispatches_by_vector[0x3F], 0u);  // no IRR vector was dispatched
}

// Redirection entry 3: vector 33h, fixed, physical destination 0, edge, active high,
// unmasked (low dword 00000033h). A rising edge on INTIN3 sends it; the APIC at ID 0
// takes it. One event per ioapic-deliveries count, after the acceptance it caused.
TEST_F(ApicEvents, IoApicDeliveryNamesPinVectorDestinationAndWhetherItWasTaken) {
  set(kSvr, 0x1FF);
  IoApic& io_apic = machine.devices->io_apic;
  io_apic.write_register(IoApic::kIoRedTbl0 + 2 * 3 + 1, 0);
  io_apic.write_register(IoApic::kIoRedTbl0 + 2 * 3, 0x33);
  io_apic.set_input(3, true);
  ASSERT_EQ(kinds(), (std::vector<EventKind>{EventKind::LapicAccept, EventKind::IoApicDelivery}));
  const auto delivery = events::from_event<events::IoApicDelivery>(of(EventKind::IoApicDelivery)[0]);
  EXPECT_EQ(delivery.pin, 3);
  EXPECT_EQ(delivery.vector, 0x33);
  EXPECT_EQ(delivery.destination, 0);
  EXPECT_FALSE(delivery.logical);
  EXPECT_FALSE(delivery.level);
  EXPECT_TRUE(delivery.taken);
  EXPECT_EQ(machine.counters.ioapic_deliveries, 1u);
  // Destination 5 names no APIC: sent, not taken.
  io_apic.set_input(3, false);
  io_apic.write_register(IoApic::kIoRedTbl0 + 2 * 3 + 1, 0x05000000);
  io_apic.set_input(3, true);
  const auto missed = events::from_event<events::IoApicDelivery>(of(EventKind::IoApicDelivery).at(1));
  EXPECT_EQ(missed.destination, 5);
  EXPECT_FALSE(missed.taken);
}

TEST(ApicTraceFilter, ApicSelectsTheSixApicKindsOnly) {
  const TraceFilter filter = parse_trace_filter("apic");
  for (std::size_t k = 0; k < kEventKindCount; ++k)
    EXPECT_EQ(filter.kinds.test(k), k >= static_cast<std::size_t>(EventKind::LapicAccept)) << kEventKindNames[k];
  EXPECT_EQ(filter.kinds.count(), 6u);
  EXPECT_EQ(parse_trace_filter("exc,apic").kinds.count(), 7u);
}

}  // namespace
}  // namespace x86lab
