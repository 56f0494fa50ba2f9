/*
 * The kernel event logger as the streamer's source (struct tw_source).
 */
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/streamer.h"

static void copy_rec(struct tw_src_rec *out, const struct tw_logger_rec *r)
{
  out->id = r->id;
  out->size = r->size;
  out->dropped = r->dropped;
  out->wraps = r->wraps;
}

static int get(void *ctx, struct tw_src_rec *rec, uint32_t *buf, uint32_t cap)
{
  struct tw_logger_rec r = {0};
  (void)ctx;
  int n = tw_klog_get(&r, buf, cap);
  copy_rec(rec, &r);
  return n;
}

static int get_wait(void *ctx, struct tw_src_rec *rec, uint32_t *buf, uint32_t cap,
                    uint32_t timeout)
{
  struct tw_logger_rec r = {0};
  (void)ctx;
  int n = tw_klog_get_wait(&r, buf, cap, timeout);
  copy_rec(rec, &r);
  return n;
}

static uint32_t now(void *ctx)
{
  (void)ctx;
  return tw_klog_timestamp();
}

static uint32_t take_drops(void *ctx)
{
  (void)ctx;
  return tw_klog_take_drops();
}

static void set_mask(void *ctx, uint32_t mask)
{
  (void)ctx;
  tw_klog_set_mask(mask); /* ignored unless TW_CFG_KLOG_DYNAMIC */
}

void tw_source_klog(struct tw_source *src)
{
  src->get = get;
  src->get_wait = get_wait;
  src->now = now;
  src->set_mask = set_mask;
  src->take_drops = take_drops;
  src->ctx = NULL;
  src->capacity_words = TW_CFG_KLOG_CAPACITY;
  src->freq_hz = tw_klog_timestamp_hz();
}
