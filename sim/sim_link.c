/*
 * The modelled target's tracing stack over a byte link (see tw_sim_link.h).
 */
#include "tw_sim_link.h"
#include "tracewire/error.h"

static int send_pkt(void *ctx, const void *pkt, size_t len)
{
  struct tw_sim_link *l = ctx;
  if (l->write_failed)
    return 0; /* swallow: the run is ending anyway */
  if (l->write(l->io, pkt, len) < 0)
    l->write_failed = 1;
  return 0;
}

int tw_sim_link_init(struct tw_sim_link *l, tw_link_write_fn write, tw_link_read_fn read,
                     void *io, uint32_t freq_hz, uint32_t mask)
{
  return tw_sim_link_init_opts(l, write, read, io, freq_hz, mask, 0);
}

int tw_sim_link_init_opts(struct tw_sim_link *l, tw_link_write_fn write, tw_link_read_fn read,
                          void *io, uint32_t freq_hz, uint32_t mask, unsigned opts)
{
  if (!l || !write)
    return TW_EINVAL;
  l->write = write;
  l->read = read;
  l->io = io;
  l->rx_fill = 0;
  l->resync_bytes = 0;
  l->write_failed = 0;
  struct tw_streamer_cfg cfg = { 0 };
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = freq_hz; /* the model's virtual clock */
  cfg.send = send_pkt;
  cfg.send_ctx = l;
  cfg.endpoint = TW_ADDR_DEFAULT;
  cfg.module_id = 1;
  cfg.instance_id = 0;
  cfg.initial_mask = mask;
  cfg.check = (opts & TW_SIM_LINK_CHECK) != 0;
  int r = tw_streamer_init(&l->streamer, &cfg);
  if (r < 0)
    return r;
  r = tw_cmd_init(&l->cmd, TW_ADDR_DEFAULT, send_pkt, l, &l->streamer);
  if (r < 0)
    return r;
  r = tw_streamer_start(&l->streamer);
  l->started = r == 0;
  if (r < 0)
    return r;
  /* Put the mask in force (and the names on the wire) before the model
   * emits its first event, instead of at the collector's first run. */
  for (int i = 0; i < 64 && l->streamer.nwork; i++)
    (void)tw_streamer_poll(&l->streamer, 0);
  return 0;
}

/* Read what arrived and hand every complete message to the command
 * service. Returns bytes read. */
static size_t take_commands(struct tw_sim_link *l)
{
  size_t got = 0;
  for (;;) {
    if (l->rx_fill < sizeof l->rx && l->read) {
      int n = l->read(l->io, l->rx + l->rx_fill, sizeof l->rx - l->rx_fill);
      if (n < 0) {
        l->read = 0; /* host closed its side; keep streaming */
        return got;
      }
      l->rx_fill += (size_t)n;
      got += (size_t)n;
    }
    if (l->rx_fill < 4)
      return got;
    size_t len = tw_cmd_frame(l->rx, l->rx_fill); /* footer or none (TI's hosts) */
    if (len == 0) {
      for (size_t i = 1; i < l->rx_fill; i++)
        l->rx[i - 1] = l->rx[i];
      l->rx_fill--;
      l->resync_bytes++;
      continue;
    }
    if (l->rx_fill < len)
      return got;
    (void)tw_cmd_receive(&l->cmd, l->rx, len);
    for (size_t i = len; i < l->rx_fill; i++)
      l->rx[i - len] = l->rx[i];
    l->rx_fill -= len;
  }
}

int tw_sim_link_drain(void *link)
{
  struct tw_sim_link *l = link;
  if (l->read)
    take_commands(l);
  (void)tw_cmd_poll(&l->cmd);
  int total = 0;
  /* Bounded: a poll takes at most a batch; the collector comes back next
   * tick for the rest, as a real one would. */
  for (int i = 0; i < 64; i++) {
    int n = tw_streamer_poll(&l->streamer, 0);
    if (n > 0)
      total += n;
    else if (l->streamer.nwork == 0)
      break;
  }
  if (l->write_failed || !tw_streamer_running(&l->streamer))
    return -1;
  return total;
}

int tw_sim_link_finish(struct tw_sim_link *l)
{
  if (tw_streamer_running(&l->streamer))
    (void)tw_streamer_stop(&l->streamer, 1);
  /* Polls until the stop work (drain, TRACE_STOP, flush) is done. */
  for (int i = 0; i < 1000; i++)
    if (tw_streamer_poll(&l->streamer, 0) <= 0 && l->streamer.nwork == 0 && !l->streamer.pend)
      break;
  int r = tw_streamer_flush(&l->streamer);
  return l->write_failed ? TW_EIO : r;
}

unsigned long tw_sim_link_linger(struct tw_sim_link *l, const struct tw_link_clock *clk,
                                 uint32_t quiet_ms, uint32_t max_ms)
{
  unsigned long total = 0;
  uint32_t start = clk->now_ms(clk->ctx), last = start;
  while (l->read && !l->write_failed) {
    size_t got = take_commands(l);
    (void)tw_cmd_poll(&l->cmd);
    /* a START or GET_NAMES from the host still produces records */
    for (int i = 0; i < 256 && (tw_streamer_poll(&l->streamer, 0) > 0 || l->streamer.nwork); i++)
      ;
    (void)tw_streamer_flush(&l->streamer);
    uint32_t now = clk->now_ms(clk->ctx);
    if (got) {
      total += got;
      last = now;
    }
    if (now - last >= quiet_ms || now - start >= max_ms)
      break;
    if (!got && clk->pause)
      clk->pause(clk->ctx);
  }
  return total;
}
