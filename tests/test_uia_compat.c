/*
 * The seed-name layer (tracewire/compat/uia.h): every name the seed lists is
 * used here at least once, as code written against the TI documentation
 * would use it, and checked against the wire bytes the seed's diagrams give.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tracewire/compat/uia.h"

static void test_eventhdr_macros(void **state)
{
  (void)state;
  UInt32 w = EventHdr_genEventHdrWord1(20, 0x1234, TRUE);
  assert_int_equal(w, 0x08141234u);
  assert_int_equal(EventHdr_genEventHdrWord1(8, 7, FALSE), 0x00080007u);
  EventHdr_HdrType t = EventHdr_getHdrType(w);
  assert_int_equal(t, EventHdr_HdrType_EventWithTimestamp);
  SizeT n = EventHdr_getLength(w);
  assert_int_equal(n, 20);
  UInt16 s = EventHdr_getSeqCount(w);
  assert_int_equal(s, 0x1234);
  /* the setters assign to their first argument ("macro Void") */
  EventHdr_setHdrType(w, EventHdr_HdrType_EventWithSnapshotIdAndTimestamp);
  assert_int_equal(w, 0x18141234u);
  EventHdr_setLength(w, 0x7FF);
  assert_int_equal(w, 0x1FFF1234u);
  EventHdr_setSeqCount(w, 0);
  assert_int_equal(w, 0x1FFF0000u);
  EventHdr_setHdrType(w, EventHdr_HdrType_Event);
  assert_int_equal(w, 0x07FF0000u);
}

/* TI's own loggers pass a header type as the third argument where the seed
 * declares a Bool (issue 18): a snapshot logger writes
 * genEventHdrWord1(bytes, serial, EventHdr_HdrType_EventWithSnapshotId...).
 * Expected words from the EventHdr diagram: H b31-27, L b26-16, S b15-0. */
static void test_eventhdr_word1_takes_a_header_type(void **state)
{
  (void)state;
  Bits32 serial = 0x0042;
  SizeT numBits8ToWrite = 48;
  assert_int_equal(EventHdr_genEventHdrWord1(numBits8ToWrite, serial,
                                             EventHdr_HdrType_EventWithSnapshotIdAndTimestamp),
                   (3u << 27) | (48u << 16) | 0x42u);
  assert_int_equal(EventHdr_genEventHdrWord1(numBits8ToWrite, serial,
                                             EventHdr_HdrType_EventWithSnapshotId),
                   (2u << 27) | (48u << 16) | 0x42u);
  assert_int_equal(EventHdr_genEventHdrWord1(12, 1, EventHdr_HdrType_EventWithTimestamp),
                   (1u << 27) | (12u << 16) | 1u);
  assert_int_equal(EventHdr_genEventHdrWord1(8, 1, EventHdr_HdrType_Event), (8u << 16) | 1u);
  /* still a Bool: any true value means "with timestamp", never a reserved type */
  Bool on = 4; /* e.g. flags & TIMESTAMP_BIT */
  assert_int_equal(EventHdr_genEventHdrWord1(16, 0, on), (1u << 27) | (16u << 16));
  assert_int_equal(EventHdr_genEventHdrWord1(16, 0, -1), (1u << 27) | (16u << 16));
  assert_int_equal(EventHdr_genEventHdrWord1(16, 0, 1 == 1), (1u << 27) | (16u << 16));
  assert_int_equal(EventHdr_genEventHdrWord1(16, 0, 1 == 2), 16u << 16);
  /* the argument is evaluated once */
  int calls = 0;
  assert_int_equal(EventHdr_genEventHdrWord1(8, 0, (calls++, 3)), (3u << 27) | (8u << 16));
  assert_int_equal(calls, 1);
}

static void test_eventhdr_enum_in_seed_order(void **state)
{
  (void)state;
  const EventHdr_HdrType all[] = {
    EventHdr_HdrType_Event, EventHdr_HdrType_EventWithTimestamp,
    EventHdr_HdrType_EventWithSnapshotId, EventHdr_HdrType_EventWithSnapshotIdAndTimestamp,
    EventHdr_HdrType_Reserved4, EventHdr_HdrType_Reserved5, EventHdr_HdrType_Reserved6,
    EventHdr_HdrType_Reserved7, EventHdr_HdrType_Reserved8, EventHdr_HdrType_Reserved9,
    EventHdr_HdrType_Reserved10, EventHdr_HdrType_Reserved11, EventHdr_HdrType_Reserved12,
    EventHdr_HdrType_Reserved13, EventHdr_HdrType_Reserved14, EventHdr_HdrType_Reserved15,
    EventHdr_HdrType_Reserved16, EventHdr_HdrType_Reserved17, EventHdr_HdrType_Reserved18,
    EventHdr_HdrType_Reserved19, EventHdr_HdrType_Reserved20, EventHdr_HdrType_Reserved21,
    EventHdr_HdrType_Reserved22, EventHdr_HdrType_Reserved23, EventHdr_HdrType_Reserved24,
    EventHdr_HdrType_Reserved25, EventHdr_HdrType_Reserved26, EventHdr_HdrType_Reserved27,
    EventHdr_HdrType_Reserved28, EventHdr_HdrType_Reserved29, EventHdr_HdrType_Reserved30,
    EventHdr_HdrType_Reserved31,
  };
  for (int i = 0; i < 32; i++)
    assert_int_equal(all[i], i);
}

static void test_uiapacket_enums_in_seed_order(void **state)
{
  (void)state;
  const UIAPacket_HdrType ht[] = {
    UIAPacket_HdrType_InvalidData, UIAPacket_HdrType_MsgWithPID, UIAPacket_HdrType_EventPktWithCRC,
    UIAPacket_HdrType_MinEventPkt, UIAPacket_HdrType_Reserved4, UIAPacket_HdrType_Reserved5,
    UIAPacket_HdrType_Reserved6, UIAPacket_HdrType_Reserved7, UIAPacket_HdrType_ChannelizedData,
    UIAPacket_HdrType_Msg, UIAPacket_HdrType_EventPkt, UIAPacket_HdrType_CPUTrace,
    UIAPacket_HdrType_STMTrace, UIAPacket_HdrType_MemoryBuffer, UIAPacket_HdrType_USER2,
    UIAPacket_HdrType_USER3,
  };
  for (int i = 0; i < 16; i++)
    assert_int_equal(ht[i], i);
  const UIAPacket_MsgType mt[] = {
    UIAPacket_MsgType_ACK, UIAPacket_MsgType_CMD, UIAPacket_MsgType_RESULT,
    UIAPacket_MsgType_PARTIALRESULT, UIAPacket_MsgType_NOTIFY, UIAPacket_MsgType_FLOWCTRL,
    UIAPacket_MsgType_DATA, UIAPacket_MsgType_RESERVED7, UIAPacket_MsgType_RESERVED8,
    UIAPacket_MsgType_RESERVED9, UIAPacket_MsgType_RESERVED10, UIAPacket_MsgType_RESERVED11,
    UIAPacket_MsgType_RESERVED12, UIAPacket_MsgType_RESERVED13, UIAPacket_MsgType_NACK_BAD_DATA,
    UIAPacket_MsgType_NACK_WITH_ERROR_CODE,
  };
  for (int i = 0; i < 16; i++)
    assert_int_equal(mt[i], i);
  /* docs/wire-format.md "MsgType_EVENT": the prose's name for NOTIFY */
  assert_int_equal(UIAPacket_MsgType_EVENT, UIAPacket_MsgType_NOTIFY);
  const UIAPacket_NACKErrorCode nc[] = {
    UIAPacket_NACKErrorCode_NO_REASON_SPECIFIED, UIAPacket_NACKErrorCode_SERVICE_NOT_SUPPORTED,
    UIAPacket_NACKErrorCode_CMD_NOT_SUPPORTED, UIAPacket_NACKErrorCode_QUEUE_FULL,
    UIAPacket_NACKErrorCode_BAD_ENDPOINT_ADDRESS, UIAPacket_NACKErrorCode_BAD_MESSAGE_LENGTH,
  };
  for (int i = 0; i < 6; i++)
    assert_int_equal(nc[i], i);
  const UIAPacket_PayloadEndian pe[] = { UIAPacket_PayloadEndian_LITTLE, UIAPacket_PayloadEndian_BIG };
  assert_int_equal(pe[0], 0);
  assert_int_equal(pe[1], 1);
}

static void test_constants_and_types(void **state)
{
  (void)state;
  assert_int_equal(UIAPacket_BROADCAST, 0xFFFE);
  assert_int_equal(UIAPacket_HOST, 0xFFFF);
  Int max = UIAPacket_maxPktLengthInBytes;
  assert_int_equal(max, 128);
  assert_int_equal(sizeof(UIAPacket_Hdr), 16);
  UIAPacket_Footer f = { (Int32)UIAPacket_swizzle(0x00147777u) };
  assert_memory_equal(&f, "\x00\x14\x77\x77", 4);
  Bits16 s16 = UIAPacket_swizzle16(0x0102);
  assert_memory_equal(&s16, "\x01\x02", 2);
  Bool b = TRUE;
  Bits32 b32 = 1;
  Int16 i16 = -1;
  Bits8 b8 = 0xFF;
  UInt8 u8 = 1;
  Int8 i8 = -1;
  UInt u = 1;
  assert_true(b && b32 && i16 < 0 && b8 == 0xFF && u8 && i8 < 0 && u);
}

/* initMsgHdr then every Msg accessor; bytes from the Msg diagrams. */
static void test_msg_accessors(void **state)
{
  (void)state;
  UIAPacket_Hdr h;
  UIAPacket_initMsgHdr(&h, UIAPacket_PayloadEndian_BIG, UIAPacket_MsgType_CMD, 24, 0x123, 0xBEEF,
                       0x0042, 0xDEADBEEF, UIAPacket_HOST, 1);
  assert_memory_equal(&h, "\x98\x18\x11\x23\xBE\xEF\x00\x42\xDE\xAD\xBE\xEF\xFF\xFF\x00\x01", 16);
  assert_int_equal(UIAPacket_getHdrType(&h), UIAPacket_HdrType_Msg);
  assert_int_equal(UIAPacket_getPayloadEndianness(&h), UIAPacket_PayloadEndian_BIG);
  assert_int_equal(UIAPacket_getMsgLength(&h), 24);
  assert_int_equal(UIAPacket_getLength(&h), 24);
  assert_int_equal(UIAPacket_getMsgType(&h), UIAPacket_MsgType_CMD);
  assert_int_equal(UIAPacket_getServiceId(&h), 0x123);
  assert_int_equal(UIAPacket_getSequenceCount(&h), 0xBEEF);
  assert_int_equal(UIAPacket_getCmdId(&h), 0x42);
  assert_int_equal(UIAPacket_getTag(&h), 0xDEADBEEF);
  assert_int_equal(UIAPacket_getDestAdrs(&h), UIAPacket_HOST);
  assert_int_equal(UIAPacket_getSenderAdrs(&h), 1);

  UIAPacket_setHdrType(&h, UIAPacket_HdrType_Msg);
  UIAPacket_setPayloadEndianness(&h, UIAPacket_PayloadEndian_LITTLE);
  UIAPacket_setMsgLength(&h, 0x7FC);
  UIAPacket_setMsgType(&h, UIAPacket_MsgType_NACK_WITH_ERROR_CODE);
  UIAPacket_setServiceId(&h, 0xFFF);
  UIAPacket_setSequenceCount(&h, 1);
  UIAPacket_setCmdId(&h, 0xFFFF);
  UIAPacket_setTag(&h, 0x01020304);
  UIAPacket_setDestAdrs(&h, UIAPacket_BROADCAST);
  UIAPacket_setSenderAdrs(&h, 0x0002);
  assert_memory_equal(&h, "\x97\xFC\xFF\xFF\x00\x01\xFF\xFF\x01\x02\x03\x04\xFF\xFE\x00\x02", 16);
  assert_int_equal(UIAPacket_getFooter(&h), UIAPacket_swizzle(0x07FC7777u));
}

/* initEventRecHdr then every EventPkt accessor. */
static void test_event_accessors(void **state)
{
  (void)state;
  UIAPacket_Object obj;
  UIAPacket_Hdr *h = &obj.hdr;
  UIAPacket_initEventRecHdr(h, UIAPacket_PayloadEndian_LITTLE, 0x40, 0x1234, 2, 0x8001, 0x7ABC,
                            UIAPacket_HOST, 1);
  assert_memory_equal(h, "\xA0\x00\x00\x40\x12\x34\x00\x02\x7A\xBC\x80\x01\xFF\xFF\x00\x01", 16);
  assert_int_equal(UIAPacket_getEventLength(h), 0x40);
  assert_int_equal(UIAPacket_getLength(h), 0x40);
  assert_int_equal(UIAPacket_getLoggerInstanceId(h), 0x7ABC);
  assert_int_equal(UIAPacket_getLoggerModuleId(h), 0x8001);
  /* the footer integer is stored as is: network order on any host */
  Bits32 foot = UIAPacket_getFooter(h);
  assert_memory_equal(&foot, "\x00\x40\x77\x77", 4);

  UIAPacket_setEventLength(h, 0x07FFFFFF);
  assert_memory_equal(h, "\xA7\xFF\xFF\xFF", 4);
  UIAPacket_setSequenceCounts(h, 0xFFFF, 0x3FFF);
  assert_memory_equal((uint8_t *)h + 4, "\xFF\xFF\xFF\xFE", 4); /* priority 2 kept */
  /* logger instance id: the 15-bit I field; D is left alone */
  tw_pkt_set_logger_dynamic(h, 1);
  UIAPacket_setLoggerInstanceId(h, 0xFFFF);
  UIAPacket_setLoggerModuleId(h, 0);
  assert_memory_equal((uint8_t *)h + 8, "\xFF\xFF\x00\x00", 4);
  UIAPacket_setLoggerInstanceId(h, 0);
  assert_memory_equal((uint8_t *)h + 8, "\x80\x00\x00\x00", 4);

  /* Fast setters write whole words (docs/wire-format.md "Fast setters") */
  UIAPacket_setEventLengthFast(h, 0x24);
  assert_int_equal(UIAPacket_getHdrType(h), UIAPacket_HdrType_EventPkt);
  assert_int_equal(UIAPacket_getPayloadEndianness(h), TW_ENDIAN_NATIVE);
  assert_int_equal(UIAPacket_getEventLength(h), 0x24);
  UIAPacket_setSequenceCountFast(h, 0xABCD);
  assert_memory_equal((uint8_t *)h + 4, "\xAB\xCD\x00\x00", 4);

  UIAPacket_setInvalidHdr(h, 0x10);
  assert_memory_equal(h, "\x00\x00\x00\x10", 4);
  assert_int_equal(UIAPacket_getHdrType(h), UIAPacket_HdrType_InvalidData);
}

/* MinEventPkt: senderAdrs is the device id; the instance id is not sent. */
static void test_min_event_accessors(void **state)
{
  (void)state;
  UIAPacket_Hdr a, b;
  memset(&a, 0xFF, sizeof a);
  memset(&b, 0xFF, sizeof b);
  UIAPacket_initMinEventRecHdr(&a, UIAPacket_PayloadEndian_BIG, 7, 0x1F);
  UIAPacket_initMinEventRecHdr(&b, UIAPacket_PayloadEndian_BIG, 1234, 0x1F);
  assert_memory_equal(&a, &b, 8);
  assert_memory_equal(&a, "\x3F\xC0\x00\x00\x00\x00\x00\x00", 8);
  UIAPacket_setMinEventPacketLength(&a, 0xFFFC, 99, 0x21); /* device 0x21 -> 5 bits: 1 */
  assert_memory_equal(&a, "\x38\x40\xFF\xFC", 4);
  assert_int_equal(UIAPacket_getLength(&a), 0xFFFC);
  UIAPacket_setMinEventPacketSequenceCount(&a, 0x0102, 0x3FFF);
  assert_memory_equal((uint8_t *)&a + 4, "\x01\x02\xFF\xFC", 4);
  assert_int_equal(UIAPacket_getSequenceCount(&a), 0x0102);
  assert_int_equal(UIAPacket_getFooter(&a), UIAPacket_swizzle(0xFFFC7777u));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_eventhdr_macros),
    cmocka_unit_test(test_eventhdr_word1_takes_a_header_type),
    cmocka_unit_test(test_eventhdr_enum_in_seed_order),
    cmocka_unit_test(test_uiapacket_enums_in_seed_order),
    cmocka_unit_test(test_constants_and_types),
    cmocka_unit_test(test_msg_accessors),
    cmocka_unit_test(test_event_accessors),
    cmocka_unit_test(test_min_event_accessors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
