/*
 * libFuzzer target: the target's command service (src/target/cmd_service.c)
 * with the built-in logger service driving a real streamer.
 *
 * Input: a sequence of messages, each [flags][len][len bytes]: the bytes go
 * to tw_cmd_receive() as one received packet (any length, any content);
 * flags bit 0 makes the transport refuse the next reply (busy), bit 1 runs
 * the streamer (poll) afterwards, bit 2 retries queued replies. The target
 * is freestanding code that parses what a host (or anything on the link)
 * sends, so it must neither crash nor answer with a malformed packet:
 * every reply and every event packet it emits is parsed back with
 * tw_pkt_parse(), and one that does not parse aborts. A message addressed
 * to another endpoint must be ignored: no reply, no change of mask or
 * recording state.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracewire/cmd.h"
#include "tracewire/error.h"
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tracewire/uia.h"
#include "../tests/tw_target_reset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define EP 0x0005u

static struct tw_streamer S;
static struct tw_cmd K;
static int refuse_next;
static unsigned sends; /* replies offered to the transport */
static uint32_t fake_now;

static uint32_t fake_timer(void) { return fake_now += 7; }

static void must_parse(const void *pkt, size_t len, uint32_t want_type)
{
  struct tw_pkt p;
  int n = tw_pkt_parse(pkt, len, 0, &p);
  /* a footer-less command is answered footer-less, as TI's hosts and
   * senders write them (docs/commands.md): a reply may be either */
  if (n != (int)len && want_type == TW_PKT_MSG)
    n = tw_pkt_parse_ex(pkt, len, 0, TW_PKT_NO_FOOTER, &p);
  if (n != (int)len || (want_type != 0xFFu && p.hdr_type != want_type))
    abort(); /* the target sent a packet its own format rejects */
}

static int reply_send(void *ctx, const void *pkt, size_t len)
{
  (void)ctx;
  sends++;
  if (refuse_next) {
    refuse_next = 0;
    return TW_EBUSY;
  }
  must_parse(pkt, len, TW_PKT_MSG);
  tw_pkt_hdr h;
  memcpy(&h, pkt, sizeof h);
  if (tw_pkt_get_src(&h) != EP)
    abort(); /* a reply always names this endpoint as its source */
  return 0;
}

static int event_send(void *ctx, const void *pkt, size_t len)
{
  (void)ctx;
  must_parse(pkt, len, 0xFFu);
  return 0;
}

static void setup(void)
{
  struct tw_streamer_cfg cfg;
  tw_target_reset(fake_timer);
  fake_now = 100;
  refuse_next = 0;
  memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 32768;
  cfg.send = event_send;
  cfg.endpoint = EP;
  cfg.module_id = 9;
  cfg.instance_id = 3;
  cfg.initial_mask = 0x3u;
  if (tw_streamer_init(&S, &cfg) < 0 || tw_cmd_init(&K, EP, reply_send, NULL, &S) < 0)
    abort();
  (void)tw_name_register(TW_OBJ_TASK, 1, "fuzz-task", 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  setup();
  size_t off = 0;
  while (size - off >= 2) {
    uint8_t flags = data[off], len = data[off + 1];
    off += 2;
    if (len > size - off)
      len = (uint8_t)(size - off);
    /* an exact-size copy: reading past the packet is a finding */
    uint8_t *msg = malloc(len ? len : 1);
    if (!msg)
      abort();
    memcpy(msg, data + off, len);
    off += len;
    refuse_next = flags & 1;
    /* a message for another endpoint must change nothing and get no answer */
    int foreign = 0;
    if (len >= TW_MSG_HDR_BYTES) {
      tw_pkt_hdr h;
      memcpy(&h, msg, sizeof h);
      uint32_t dest = tw_pkt_get_dest(&h);
      foreign = tw_pkt_get_hdr_type(&h) == TW_PKT_MSG && dest != EP && dest != TW_ADDR_BROADCAST;
    }
    unsigned sends0 = sends, mask0 = tw_streamer_get_mask(&S);
    int running0 = tw_streamer_running(&S);
    int rc = tw_cmd_receive(&K, msg, len);
    if (rc < 0 && rc != TW_EBADMSG)
      abort(); /* documented: handled/ignored, or not a message */
    if (foreign && (sends != sends0 || tw_streamer_get_mask(&S) != mask0 ||
                    tw_streamer_running(&S) != running0))
      abort(); /* acted on a message not addressed to this endpoint */
    free(msg);
    if (flags & 2) {
      tw_task_switch(1);
      (void)tw_streamer_poll(&S, 0);
    }
    if (flags & 4)
      (void)tw_cmd_poll(&K);
  }
  (void)tw_cmd_poll(&K);
  (void)tw_streamer_flush(&S);
  return 0;
}
