// perfx::raw carries its own copy of the kernel ABI (include/perfx/raw.hpp); these tests
// check it against the build machine's <linux/perf_event.h> wherever that header has the
// field or constant, so a typo in perfx's copy cannot go unnoticed.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cstddef>
#include <cstring>

#include "perfx/raw.hpp"

namespace perfx {
namespace {

#define PERFX_SAME_OFFSET(field) \
  EXPECT_EQ(offsetof(raw::EventAttr, field), offsetof(::perf_event_attr, field)) << #field

TEST(RawAbi, EventAttrFieldsSitWhereTheUapiHeaderPutsThem) {
  PERFX_SAME_OFFSET(type);
  PERFX_SAME_OFFSET(size);
  PERFX_SAME_OFFSET(config);
  PERFX_SAME_OFFSET(sample_period);
  PERFX_SAME_OFFSET(sample_freq);
  PERFX_SAME_OFFSET(sample_type);
  PERFX_SAME_OFFSET(read_format);
  PERFX_SAME_OFFSET(wakeup_events);
  PERFX_SAME_OFFSET(bp_type);
  PERFX_SAME_OFFSET(config1);
  PERFX_SAME_OFFSET(kprobe_func);
  PERFX_SAME_OFFSET(config2);
  PERFX_SAME_OFFSET(probe_offset);
  PERFX_SAME_OFFSET(branch_sample_type);
  PERFX_SAME_OFFSET(sample_regs_user);
  PERFX_SAME_OFFSET(sample_stack_user);
  PERFX_SAME_OFFSET(clockid);
  PERFX_SAME_OFFSET(sample_regs_intr);
  PERFX_SAME_OFFSET(aux_watermark);
  PERFX_SAME_OFFSET(sample_max_stack);
  PERFX_SAME_OFFSET(aux_sample_size);
  PERFX_SAME_OFFSET(sig_data);
  EXPECT_GE(sizeof(raw::EventAttr), sizeof(::perf_event_attr));
}

// Sets one flag bit in both structs and compares the bytes: the bit positions match.
#define PERFX_SAME_BIT(field)                                            \
  do {                                                                   \
    raw::EventAttr ours;                                                 \
    ::perf_event_attr theirs{};                                          \
    ours.field = 1;                                                      \
    theirs.field = 1;                                                    \
    EXPECT_EQ(std::memcmp(&ours, &theirs, sizeof(theirs)), 0) << #field; \
  } while (0)

TEST(RawAbi, FlagBitsMatchTheUapiHeader) {
  PERFX_SAME_BIT(disabled);
  PERFX_SAME_BIT(exclude_kernel);
  PERFX_SAME_BIT(precise_ip);
  PERFX_SAME_BIT(sample_id_all);
  PERFX_SAME_BIT(mmap2);
  PERFX_SAME_BIT(use_clockid);
  PERFX_SAME_BIT(write_backward);
  PERFX_SAME_BIT(aux_output);
  PERFX_SAME_BIT(build_id);
  PERFX_SAME_BIT(inherit_thread);
  PERFX_SAME_BIT(remove_on_exec);
  PERFX_SAME_BIT(sigtrap);
}

TEST(RawAbi, NewerFieldsLiveBeyondTheOlderStructs) {
  raw::EventAttr a;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&a);
  for (std::size_t i = 0; i < sizeof(a); ++i) ASSERT_EQ(bytes[i], 0U) << "byte " << i;
  a.aux_pause = 1;
  EXPECT_EQ(a.aux_action, 2U);  // aux_start_paused is bit 0, aux_pause bit 1 (6.13)
  EXPECT_EQ(offsetof(raw::EventAttr, aux_action), 116U);
  EXPECT_EQ(offsetof(raw::EventAttr, config3), 128U);
}

TEST(RawAbi, ConstantsMatchTheUapiHeader) {
  EXPECT_EQ(raw::PERF_RECORD_SAMPLE, static_cast<std::uint32_t>(::PERF_RECORD_SAMPLE));
  EXPECT_EQ(raw::PERF_RECORD_TEXT_POKE, static_cast<std::uint32_t>(::PERF_RECORD_TEXT_POKE));
  EXPECT_EQ(raw::PERF_SAMPLE_WEIGHT_STRUCT,
            static_cast<std::uint64_t>(::PERF_SAMPLE_WEIGHT_STRUCT));
  EXPECT_EQ(raw::kSampleKnownMask + 1, static_cast<std::uint64_t>(::PERF_SAMPLE_MAX));
  EXPECT_EQ(raw::PERF_FORMAT_GROUP, static_cast<std::uint64_t>(::PERF_FORMAT_GROUP));
  EXPECT_EQ(raw::PERF_SAMPLE_BRANCH_HW_INDEX,
            static_cast<std::uint64_t>(::PERF_SAMPLE_BRANCH_HW_INDEX));
  EXPECT_EQ(raw::kAttrSizeVer7, static_cast<std::uint32_t>(PERF_ATTR_SIZE_VER7));
}

}  // namespace
}  // namespace perfx
