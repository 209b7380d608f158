// Descriptor parsing and the cache's scaled limits (SDM "Segment Descriptors").
#include "segmentation/descriptor.h"

#include <gtest/gtest.h>

namespace x86lab {
namespace {

TEST(Descriptor, ParsesTheWorkedTlsDescriptorOfScenariosMd) {
  // glibc's TLS descriptor for thread pointer B7E00000h (docs/scenarios.md section 1).
  const Descriptor d = Descriptor::parse((u64{0xB7DFF2E0u} << 32) | 0x0000FFFFu);
  EXPECT_EQ(d.base, 0xB7E00000u);
  EXPECT_EQ(d.limit_raw, 0xFFFFFu);
  EXPECT_TRUE(d.g);
  EXPECT_TRUE(d.db);
  EXPECT_EQ(d.dpl, 3);
  EXPECT_TRUE(d.present);
  EXPECT_TRUE(d.is_data());
  EXPECT_TRUE(d.writable());
  EXPECT_FALSE(d.accessed());
  EXPECT_EQ(d.limit(), 0xFFFFFFFFu);
}

TEST(Descriptor, EncodeIsTheInverseOfParse) {
  const u64 raw = (u64{0xB7D4F6E0u} << 32) | 0x000081FFu;
  EXPECT_EQ(Descriptor::parse(raw).encode(), raw);
}

TEST(DescriptorCache, ExpandDownValidRangeStartsAboveTheLimit) {
  // The flipped expand-down form of scenarios.md: valid offsets 48200000h..FFFFFFFFh.
  DescriptorCache cache;
  cache.load(Descriptor::parse((u64{0xB7D4F6E0u} << 32) | 0x000081FFu));
  EXPECT_TRUE(cache.expand_down());
  EXPECT_EQ(cache.valid_min, 0x48200000u);
  EXPECT_EQ(cache.valid_max, 0xFFFFFFFFu);
}

TEST(DescriptorCache, TruncatedTlsSegmentCoversOffsetsUpTo445FFFFF) {
  DescriptorCache cache;
  cache.load(Descriptor::parse((u64{0xB7D4F2E0u} << 32) | 0x000045FFu));
  EXPECT_EQ(cache.valid_min, 0u);
  EXPECT_EQ(cache.valid_max, 0x445FFFFFu);
}

TEST(DescriptorCache, ExpandDownSixteenBitUpperBoundIsFFFF) {
  Descriptor d;
  d.s = d.present = true;
  d.type = 0x6;  // read/write, expand-down
  d.limit_raw = 0x0FFF;
  DescriptorCache cache;
  cache.load(d);
  EXPECT_EQ(cache.valid_min, 0x1000u);
  EXPECT_EQ(cache.valid_max, 0xFFFFu);
}

TEST(Selector, FieldsAndErrorCode) {
  const Selector s{0x002F};  // index 5, LDT, RPL 3
  EXPECT_EQ(s.index(), 5);
  EXPECT_TRUE(s.ti());
  EXPECT_EQ(s.rpl(), 3);
  EXPECT_EQ(s.error_code(), 0x2Cu);
  EXPECT_FALSE(Selector{0x002B}.ti());
  EXPECT_TRUE(Selector{3}.null());
}

}  // namespace
}  // namespace x86lab
