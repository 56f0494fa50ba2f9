/*
 * The kernel event logger as the streamer's source (struct tw_source):
 * core 0's logger (tw_source_klog), or any core's on SMP
 * (tw_source_klog_core). ctx is the logger.
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
  int n = tw_logger_get(ctx, &r, buf, cap);
  copy_rec(rec, &r);
  return n;
}

static int get_wait(void *ctx, struct tw_src_rec *rec, uint32_t *buf, uint32_t cap,
                    uint32_t timeout)
{
  struct tw_logger_rec r = {0};
  int n = tw_logger_get_wait(ctx, &r, buf, cap, timeout);
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
  return tw_logger_take_drops(ctx);
}

static void set_mask(void *ctx, uint32_t mask)
{
  (void)ctx;
  tw_klog_set_mask(mask); /* ignored unless TW_CFG_KLOG_DYNAMIC */
}

int tw_source_klog_core(struct tw_source *src, uint32_t core)
{
  struct tw_logger *l = tw_klog_logger_of(core);
  if (!l)
    return TW_EINVAL;
  src->get = get;
  src->get_wait = get_wait;
  src->now = now;
  src->set_mask = set_mask;
  src->take_drops = take_drops;
  src->ctx = l;
  src->capacity_words = TW_CFG_KLOG_CAPACITY;
  src->freq_hz = tw_klog_timestamp_hz();
  return 0;
}

void tw_source_klog(struct tw_source *src)
{
  (void)tw_source_klog_core(src, 0);
}
