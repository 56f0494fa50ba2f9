/*
 * TI UIA compatibility layer: the seed's EventHdr and UIAPacket names with
 * their documented argument orders, over the native API in tracewire/uia.h,
 * so code written against the TI documentation compiles unchanged.
 *
 *   - UIAPacket_Hdr is tw_pkt_hdr: it holds the big-endian wire image, and
 *     the getters return logical values on any host, as the seed says.
 *   - EventHdr_set* are macros that assign to their first argument (the
 *     seed's "macro Void EventHdr_setLength(UInt32 eventWord1, ...)").
 *   - UIAPacket_* accessors are static inline functions: one evaluation of
 *     each argument and type checking, callable exactly like the macros.
 *   - Where the seed is silent or contradicts itself the choice is in
 *     docs/wire-format.md (Fast setters, MinEventPkt ids, logger instance
 *     id vs the D bit, the footer image, MsgType_EVENT).
 *   - The XDC module built-ins (UIAPacket_Module_*) and the XDC config
 *     object are not provided; UIAPacket_maxPktLengthInBytes is a macro,
 *     configurable with -DTW_CFG_MAX_PKT_BYTES=n (default 128).
 *
 * Freestanding. Every accessor is a pure function of its arguments: any
 * context, ISR included.
 */
#ifndef TRACEWIRE_COMPAT_UIA_H
#define TRACEWIRE_COMPAT_UIA_H

#include "tracewire/cdefs.h"

#include "tracewire/uia.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- XDC base types, unless xdc/std.h already supplied them -------------- */
#if !defined(xdc_std__include) && !defined(TW_COMPAT_HAVE_XDC_TYPES)
#define TW_COMPAT_HAVE_XDC_TYPES 1
typedef int8_t Int8;
typedef int16_t Int16;
typedef int32_t Int32;
typedef int Int;
typedef uint8_t UInt8;
typedef uint16_t UInt16;
typedef uint32_t UInt32;
typedef unsigned UInt;
typedef uint8_t Bits8;
typedef uint16_t Bits16;
typedef uint32_t Bits32;
typedef unsigned short Bool;
typedef size_t SizeT;
#ifndef Void
#define Void void
#endif
#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif
#endif

/* ---- EventHdr ------------------------------------------------------------ */

typedef enum EventHdr_HdrType {
  EventHdr_HdrType_Event,
  EventHdr_HdrType_EventWithTimestamp,
  EventHdr_HdrType_EventWithSnapshotId,
  EventHdr_HdrType_EventWithSnapshotIdAndTimestamp,
  EventHdr_HdrType_Reserved4, EventHdr_HdrType_Reserved5, EventHdr_HdrType_Reserved6,
  EventHdr_HdrType_Reserved7, EventHdr_HdrType_Reserved8, EventHdr_HdrType_Reserved9,
  EventHdr_HdrType_Reserved10, EventHdr_HdrType_Reserved11, EventHdr_HdrType_Reserved12,
  EventHdr_HdrType_Reserved13, EventHdr_HdrType_Reserved14, EventHdr_HdrType_Reserved15,
  EventHdr_HdrType_Reserved16, EventHdr_HdrType_Reserved17, EventHdr_HdrType_Reserved18,
  EventHdr_HdrType_Reserved19, EventHdr_HdrType_Reserved20, EventHdr_HdrType_Reserved21,
  EventHdr_HdrType_Reserved22, EventHdr_HdrType_Reserved23, EventHdr_HdrType_Reserved24,
  EventHdr_HdrType_Reserved25, EventHdr_HdrType_Reserved26, EventHdr_HdrType_Reserved27,
  EventHdr_HdrType_Reserved28, EventHdr_HdrType_Reserved29, EventHdr_HdrType_Reserved30,
  EventHdr_HdrType_Reserved31
} EventHdr_HdrType;
TW_STATIC_ASSERT((int)EventHdr_HdrType_EventWithSnapshotIdAndTimestamp == (int)TW_REC_SNAPSHOT_TS &&
               EventHdr_HdrType_Reserved31 == 31, "EventHdr_HdrType follows the seed");

/* The seed declares the third argument a Bool (isTimestampEnabled); TI's own
 * code passes a header type there (EventHdr_HdrType_EventWithSnapshotId...,
 * 2 and 3). Both read right: 0..3 is that header type (FALSE = 0 = Event,
 * TRUE = 1 = EventWithTimestamp), any other value is a Bool that is true
 * (EventWithTimestamp), never a reserved type. docs/wire-format.md,
 * "Departures". The argument is evaluated once. */
static inline uint32_t tw__evhdr_type_arg(unsigned long long v)
{
  return v <= (uint32_t)EventHdr_HdrType_EventWithSnapshotIdAndTimestamp
             ? (uint32_t)v : (uint32_t)EventHdr_HdrType_EventWithTimestamp;
}
#define EventHdr_genEventHdrWord1(numBytesInEventMsg, seqCount, hdrTypeOrIsTimestampEnabled) \
  ((UInt32)tw_evhdr_make(tw__evhdr_type_arg((unsigned long long)(hdrTypeOrIsTimestampEnabled)), \
                         (uint32_t)(numBytesInEventMsg), (uint32_t)(seqCount)))
#define EventHdr_getHdrType(eventWord1) ((EventHdr_HdrType)tw_evhdr_type((UInt32)(eventWord1)))
#define EventHdr_getLength(eventWord1)  ((SizeT)tw_evhdr_length((UInt32)(eventWord1)))
#define EventHdr_getSeqCount(eventWord1) ((UInt16)tw_evhdr_seq((UInt32)(eventWord1)))
#define EventHdr_setHdrType(eventWord1, hdrType) \
  ((void)((eventWord1) = tw_evhdr_with_type((eventWord1), (uint32_t)(hdrType))))
#define EventHdr_setLength(eventWord1, eventLength) \
  ((void)((eventWord1) = tw_evhdr_with_length((eventWord1), (uint32_t)(eventLength))))
#define EventHdr_setSeqCount(eventWord1, seqCount) \
  ((void)((eventWord1) = tw_evhdr_with_seq((eventWord1), (uint32_t)(seqCount))))

/* ---- UIAPacket: constants, enums, structs -------------------------------- */

#define UIAPacket_BROADCAST ((UInt16)TW_ADDR_BROADCAST)
#define UIAPacket_HOST      ((UInt16)TW_ADDR_HOST)
#ifndef UIAPacket_maxPktLengthInBytes
#define UIAPacket_maxPktLengthInBytes ((Int)TW_CFG_MAX_PKT_BYTES)
#endif

typedef enum UIAPacket_HdrType {
  UIAPacket_HdrType_InvalidData,
  UIAPacket_HdrType_MsgWithPID,
  UIAPacket_HdrType_EventPktWithCRC,
  UIAPacket_HdrType_MinEventPkt,
  UIAPacket_HdrType_Reserved4,
  UIAPacket_HdrType_Reserved5,
  UIAPacket_HdrType_Reserved6,
  UIAPacket_HdrType_Reserved7,
  UIAPacket_HdrType_ChannelizedData,
  UIAPacket_HdrType_Msg,
  UIAPacket_HdrType_EventPkt,
  UIAPacket_HdrType_CPUTrace,
  UIAPacket_HdrType_STMTrace,
  UIAPacket_HdrType_MemoryBuffer,
  UIAPacket_HdrType_USER2,
  UIAPacket_HdrType_USER3
} UIAPacket_HdrType;
TW_STATIC_ASSERT((int)UIAPacket_HdrType_Msg == (int)TW_PKT_MSG &&
               (int)UIAPacket_HdrType_USER3 == (int)TW_PKT_USER3,
               "UIAPacket_HdrType follows the seed");

typedef enum UIAPacket_MsgType {
  UIAPacket_MsgType_ACK,
  UIAPacket_MsgType_CMD,
  UIAPacket_MsgType_RESULT,
  UIAPacket_MsgType_PARTIALRESULT,
  UIAPacket_MsgType_NOTIFY,
  UIAPacket_MsgType_FLOWCTRL,
  UIAPacket_MsgType_DATA,
  UIAPacket_MsgType_RESERVED7,
  UIAPacket_MsgType_RESERVED8,
  UIAPacket_MsgType_RESERVED9,
  UIAPacket_MsgType_RESERVED10,
  UIAPacket_MsgType_RESERVED11,
  UIAPacket_MsgType_RESERVED12,
  UIAPacket_MsgType_RESERVED13,
  UIAPacket_MsgType_NACK_BAD_DATA,
  UIAPacket_MsgType_NACK_WITH_ERROR_CODE
} UIAPacket_MsgType;
/* The seed's prose says MsgType_EVENT for the enum's MsgType_NOTIFY. */
#define UIAPacket_MsgType_EVENT UIAPacket_MsgType_NOTIFY
TW_STATIC_ASSERT((int)UIAPacket_MsgType_NOTIFY == (int)TW_MSG_NOTIFY &&
               (int)UIAPacket_MsgType_NACK_WITH_ERROR_CODE == (int)TW_MSG_NACK_WITH_ERROR_CODE,
               "UIAPacket_MsgType follows the seed");

typedef enum UIAPacket_NACKErrorCode {
  UIAPacket_NACKErrorCode_NO_REASON_SPECIFIED,
  UIAPacket_NACKErrorCode_SERVICE_NOT_SUPPORTED,
  UIAPacket_NACKErrorCode_CMD_NOT_SUPPORTED,
  UIAPacket_NACKErrorCode_QUEUE_FULL,
  UIAPacket_NACKErrorCode_BAD_ENDPOINT_ADDRESS,
  UIAPacket_NACKErrorCode_BAD_MESSAGE_LENGTH
} UIAPacket_NACKErrorCode;
TW_STATIC_ASSERT((int)UIAPacket_NACKErrorCode_BAD_MESSAGE_LENGTH == (int)TW_NACK_BAD_MESSAGE_LENGTH,
               "UIAPacket_NACKErrorCode follows the seed");

typedef enum UIAPacket_PayloadEndian {
  UIAPacket_PayloadEndian_LITTLE,
  UIAPacket_PayloadEndian_BIG
} UIAPacket_PayloadEndian;

typedef tw_pkt_hdr UIAPacket_Hdr;

/* Network order: word1 holds the big-endian image of (length << 16) | 0x7777. */
typedef struct UIAPacket_Footer {
  Int32 word1;
} UIAPacket_Footer;
TW_STATIC_ASSERT(sizeof(UIAPacket_Footer) == 4, "UIA packet footer is one word");

/* The seed's examples take &obj->hdr of a UIAPacket_Object. */
typedef struct UIAPacket_Object {
  UIAPacket_Hdr hdr;
} UIAPacket_Object;

/* ---- UIAPacket: accessors -------------------------------------------------- */

static inline Bits32 UIAPacket_swizzle(Bits32 value) { return tw_htobe32(value); }
static inline Bits16 UIAPacket_swizzle16(Bits16 value) { return tw_htobe16(value); }

static inline UIAPacket_HdrType UIAPacket_getHdrType(UIAPacket_Hdr *pHdr)
{ return (UIAPacket_HdrType)tw_pkt_get_hdr_type(pHdr); }
static inline void UIAPacket_setHdrType(UIAPacket_Hdr *pHdr, UIAPacket_HdrType hdrType)
{ tw_pkt_set_hdr_type(pHdr, (uint32_t)hdrType); }
static inline Bits32 UIAPacket_getPayloadEndianness(UIAPacket_Hdr *pHdr)
{ return tw_pkt_get_endian(pHdr); }
static inline void UIAPacket_setPayloadEndianness(UIAPacket_Hdr *pHdr, UIAPacket_PayloadEndian endianess)
{ tw_pkt_set_endian(pHdr, (uint32_t)endianess); }

/* Total packet length of whatever type the header is. */
static inline Bits32 UIAPacket_getLength(UIAPacket_Hdr *pHdr)
{ return tw_pkt_get_length(pHdr); }
static inline UInt16 UIAPacket_getMsgLength(UIAPacket_Hdr *pHdr)
{ return (UInt16)tw_pkt_get_msg_length(pHdr); }
static inline void UIAPacket_setMsgLength(UIAPacket_Hdr *pHdr, UInt16 pktLength)
{ tw_pkt_set_msg_length(pHdr, pktLength); }
static inline Bits32 UIAPacket_getEventLength(UIAPacket_Hdr *pHdr)
{ return tw_pkt_get_event_length(pHdr); }
static inline void UIAPacket_setEventLength(UIAPacket_Hdr *pHdr, Bits32 pktLength)
{ tw_pkt_set_event_length(pHdr, pktLength); }
/* Writes the whole word 1: type EventPkt, this host's payload order, length. */
static inline void UIAPacket_setEventLengthFast(UIAPacket_Hdr *pHdr, Bits32 pktLength)
{
  pHdr->word1 = tw_htobe32((uint32_t)TW_PKT_EVENT << 28 | (uint32_t)TW_ENDIAN_NATIVE << 27 |
                           (pktLength & 0x07FFFFFFu));
}
static inline void UIAPacket_setInvalidHdr(UIAPacket_Hdr *pHdr, UInt32 eventLength)
{ tw_pkt_set_invalid(pHdr, eventLength); }

/* The integer to store as the footer word: already in network order. */
static inline Bits32 UIAPacket_getFooter(UIAPacket_Hdr *pHdr)
{ return tw_htobe32(tw_pkt_footer(tw_pkt_get_length(pHdr))); }

static inline UIAPacket_MsgType UIAPacket_getMsgType(UIAPacket_Hdr *pHdr)
{ return (UIAPacket_MsgType)tw_pkt_get_msg_type(pHdr); }
static inline void UIAPacket_setMsgType(UIAPacket_Hdr *pHdr, UIAPacket_MsgType msgType)
{ tw_pkt_set_msg_type(pHdr, (uint32_t)msgType); }
static inline UInt16 UIAPacket_getServiceId(UIAPacket_Hdr *pHdr)
{ return (UInt16)tw_pkt_get_service_id(pHdr); }
static inline void UIAPacket_setServiceId(UIAPacket_Hdr *pHdr, UInt16 serviceId)
{ tw_pkt_set_service_id(pHdr, serviceId); }

static inline Bits16 UIAPacket_getSequenceCount(UIAPacket_Hdr *pHdr)
{ return (Bits16)tw_pkt_get_seq(pHdr); }
static inline void UIAPacket_setSequenceCount(UIAPacket_Hdr *pHdr, Bits16 seqCount)
{ tw_pkt_set_seq(pHdr, seqCount); }
/* Writes the whole word 2: the low half (command id, or event sequence
 * and priority) becomes 0. */
static inline void UIAPacket_setSequenceCountFast(UIAPacket_Hdr *pHdr, Bits16 seqCount)
{ pHdr->word2 = tw_htobe32((uint32_t)seqCount << 16); }
/* Priority is kept. */
static inline void UIAPacket_setSequenceCounts(UIAPacket_Hdr *pHdr, Bits16 pktSeqCount,
                                               Bits16 eventSeqCount)
{
  tw_pkt_set_seq(pHdr, pktSeqCount);
  tw_pkt_set_event_seq(pHdr, eventSeqCount);
}
/* Word 2 of MinEventPkt has the EventPkt layout; no timestamp bits (the
 * diagram wins over the prose, docs/wire-format.md). Priority is kept. */
static inline void UIAPacket_setMinEventPacketSequenceCount(UIAPacket_Hdr *pHdr, Bits16 pktSeqCount,
                                                            Bits16 eventSeqCount)
{
  tw_pkt_set_seq(pHdr, pktSeqCount);
  tw_pkt_set_event_seq(pHdr, eventSeqCount);
}
/* The 5-bit device field takes senderAdrs; the instance id has no place in
 * the 2-word header and is not sent. Type and endian bit are kept. */
static inline void UIAPacket_setMinEventPacketLength(UIAPacket_Hdr *pHdr, Bits32 pktLength,
                                                     UInt16 loggerInstanceId, UInt16 senderAdrs)
{
  (void)loggerInstanceId;
  tw_pkt_set_min_device(pHdr, senderAdrs);
  tw_pkt_set_min_reserved(pHdr, 0);
  tw_pkt_set_min_length(pHdr, pktLength);
}

static inline UInt16 UIAPacket_getCmdId(UIAPacket_Hdr *pHdr)
{ return (UInt16)tw_pkt_get_cmd_id(pHdr); }
static inline void UIAPacket_setCmdId(UIAPacket_Hdr *pHdr, UInt16 cmdId)
{ tw_pkt_set_cmd_id(pHdr, cmdId); }
static inline Bits32 UIAPacket_getTag(UIAPacket_Hdr *pHdr)
{ return tw_pkt_get_tag(pHdr); }
static inline void UIAPacket_setTag(UIAPacket_Hdr *pHdr, Bits32 tagValue)
{ tw_pkt_set_tag(pHdr, tagValue); }

/* The 15-bit I field; the D bit (dynamic logger) is left alone. */
static inline Bits16 UIAPacket_getLoggerInstanceId(UIAPacket_Hdr *pHdr)
{ return (Bits16)tw_pkt_get_logger_instance(pHdr); }
static inline void UIAPacket_setLoggerInstanceId(UIAPacket_Hdr *pHdr, Bits16 loggerInstanceId)
{ tw_pkt_set_logger_instance(pHdr, loggerInstanceId); }
static inline Bits16 UIAPacket_getLoggerModuleId(UIAPacket_Hdr *pHdr)
{ return (Bits16)tw_pkt_get_logger_module(pHdr); }
static inline void UIAPacket_setLoggerModuleId(UIAPacket_Hdr *pHdr, Bits16 loggerModuleId)
{ tw_pkt_set_logger_module(pHdr, loggerModuleId); }

static inline UInt16 UIAPacket_getDestAdrs(UIAPacket_Hdr *pHdr)
{ return (UInt16)tw_pkt_get_dest(pHdr); }
static inline void UIAPacket_setDestAdrs(UIAPacket_Hdr *pHdr, UInt16 destAdrs)
{ tw_pkt_set_dest(pHdr, destAdrs); }
static inline UInt16 UIAPacket_getSenderAdrs(UIAPacket_Hdr *pHdr)
{ return (UInt16)tw_pkt_get_src(pHdr); }
static inline void UIAPacket_setSenderAdrs(UIAPacket_Hdr *pHdr, UInt16 senderAdrs)
{ tw_pkt_set_src(pHdr, senderAdrs); }

static inline void UIAPacket_initMsgHdr(UIAPacket_Hdr *pHdr, UIAPacket_PayloadEndian endianness,
                                        UIAPacket_MsgType msgType, UInt16 msgLength,
                                        UInt16 serviceId, UInt16 seqCount, UInt16 cmdId,
                                        UInt32 tag, UInt16 destAdrs, UInt16 senderAdrs)
{
  tw_pkt_init_msg(pHdr, (enum tw_endian)endianness, (enum tw_msg_type)msgType, msgLength,
                  serviceId, seqCount, cmdId, tag, destAdrs, senderAdrs);
}
static inline void UIAPacket_initEventRecHdr(UIAPacket_Hdr *pHdr, UIAPacket_PayloadEndian endianness,
                                             UInt32 eventLength, UInt16 seqCount, UInt16 priority,
                                             UInt16 moduleId, UInt16 instanceId, UInt16 destAdrs,
                                             UInt16 senderAdrs)
{
  tw_pkt_init_event(pHdr, (enum tw_endian)endianness, eventLength, seqCount, priority, moduleId,
                    instanceId, destAdrs, senderAdrs);
}
/* Only words 1 and 2 are written (length, sequence counts 0). */
static inline void UIAPacket_initMinEventRecHdr(UIAPacket_Hdr *pPktHdr, UIAPacket_PayloadEndian endianness,
                                                UInt16 loggerInstanceId, UInt16 senderAdrs)
{
  (void)loggerInstanceId;
  tw_pkt_init_min_event(pPktHdr, (enum tw_endian)endianness, senderAdrs);
}

#ifdef __cplusplus
}
#endif

#endif
