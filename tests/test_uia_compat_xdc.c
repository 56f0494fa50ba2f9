/*
 * The compat header after TI's xdc/std.h: the XDC base types must not be
 * redefined (xdc_std__include is std.h's include guard). The types below
 * deliberately differ from the compat header's own (UInt32 as unsigned
 * long, Bool as unsigned char), so a second definition would not compile.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define xdc_std__include
typedef int8_t Int8;
typedef int16_t Int16;
typedef int32_t Int32;
typedef int Int;
typedef uint8_t UInt8;
typedef uint16_t UInt16;
typedef unsigned long UInt32;
typedef unsigned UInt;
typedef uint8_t Bits8;
typedef uint16_t Bits16;
typedef uint32_t Bits32;
typedef unsigned char Bool;
typedef size_t SizeT;
#define Void void

#include "tracewire/compat/uia.h"

static void test_compat_after_xdc_std(void **state)
{
  (void)state;
  UInt32 w = EventHdr_genEventHdrWord1(12, 3, 0);
  assert_int_equal(w, 0x000C0003u);
  EventHdr_setSeqCount(w, 4);
  assert_int_equal(EventHdr_getSeqCount(w), 4);
  UIAPacket_Hdr h;
  UIAPacket_initEventRecHdr(&h, UIAPacket_PayloadEndian_LITTLE, 40, 1, 0, 2, 3, UIAPacket_HOST, 1);
  assert_int_equal(UIAPacket_getEventLength(&h), 40);
  assert_int_equal(sizeof(Bool), 1); /* std.h's, not the compat header's */
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_compat_after_xdc_std) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
