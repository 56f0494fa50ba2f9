/*
 * tw-fuzz-mkseeds DIR: writes the seed corpus of the fuzz targets into
 * DIR/<target>/ (what is checked in under fuzz/corpus/ came from here, plus
 * the demo's packets). Seeds are small on purpose: libFuzzer mutates small
 * inputs faster, and each seed shows one feature the target must reach:
 *   decoder  a started stream with names (snapshots), custom declarations
 *            and custom events, drops, and big- and little-endian packets
 *   reader   the same streams behind the reader target's 2 config bytes
 *   cmd      one valid command per logger command, broadcast, another
 *            endpoint, an unknown service, a FLOWCTRL, a bad length
 *   twt      .twt files (with and without END, truncated, with a time index)
 *   params   assignments of every parameter type of the example plugins
 * The streams come from the real streamer and command service, so a seed
 * is exactly what a target sends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracewire/cmd.h"
#include "tracewire/error.h"
#include "tracewire/twt/trace_file.h"
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tracewire/uia.h"
#include "../tests/tw_target_reset.h"

static uint8_t stream[16384];
static size_t slen;
static uint32_t now;

static uint32_t timer(void) { return now += 50; }

static int sink(void *ctx, const void *p, size_t len)
{
  (void)ctx;
  if (slen + len <= sizeof stream) {
    memcpy(stream + slen, p, len);
    slen += len;
  }
  return 0;
}

static void put(const char *dir, const char *name, const void *d, size_t n)
{
  char path[512];
  if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
    fprintf(stderr, "mkseeds: path too long: %s/%s\n", dir, name);
    exit(1);
  }
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(d, 1, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "mkseeds: cannot write %s\n", path);
    exit(1);
  }
}

static void subdir(char *out, size_t cap, const char *dir, const char *sub)
{
  snprintf(out, cap, "%s/%s", dir, sub);
  mkdir(out, 0777);
}

/* A streamer session: names, a custom declaration and events, an
 * overflow (drops), then STOP. max_pkt small so there are several
 * packets. */
static void make_stream(int min_pkt, int drops)
{
  struct tw_streamer s;
  struct tw_streamer_cfg cfg;
  tw_target_reset(timer);
  slen = 0;
  memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.source.freq_hz = 32768;
  cfg.send = sink;
  cfg.endpoint = 5;
  cfg.module_id = 9;
  cfg.instance_id = min_pkt ? 0 : 3;
  cfg.initial_mask = 0xFFFFFFFFu;
  cfg.max_pkt_bytes = 128;
  (void)min_pkt;
  tw_name_register(TW_OBJ_TASK, 1, "producer", 5);
  tw_name_register(TW_OBJ_TASK, 2, "consumer", 4);
  tw_name_register(TW_OBJ_MUTEX, 0, "bus lock", 0);
  tw_name_register(TW_OBJ_SEM, 1, "items", 0);
  tw_custom_declare(28, 1, "Adc chan:U8 value:U16");
  tw_custom_declare(29, 0, "Mark x:U32");
  if (tw_streamer_init(&s, &cfg) < 0 || tw_streamer_start(&s) < 0)
    exit(1);
  for (int i = 0; i < 6; i++)
    (void)tw_streamer_poll(&s, 0);
  tw_task_switch(1);
  tw_mutex(1, 0, 0);
  tw_sem(1, 1);
  uint32_t adc[2] = {3, 4095};
  tw_custom(28, adc, 2);
  tw_custom(29, adc, 1);
  tw_task_switch(2);
  for (int i = 0; i < drops; i++)
    tw_task_switch((uint16_t)(i & 3));
  for (int i = 0; i < 64; i++)
    (void)tw_streamer_poll(&s, 0);
  tw_streamer_stop(&s, 1);
  for (int i = 0; i < 8; i++)
    (void)tw_streamer_poll(&s, 0);
  (void)tw_streamer_flush(&s);
}

static size_t msg(uint8_t *out, enum tw_msg_type type, uint16_t svc, uint16_t cmd, uint16_t dest,
                  const uint32_t *body, size_t nbody)
{
  size_t len = 16 + 4 * nbody + 4;
  tw_pkt_hdr h;
  tw_pkt_init_msg(&h, TW_ENDIAN_BIG, type, (uint32_t)len, svc, 7, cmd, 0xC0DE0007u, dest, 0x100);
  memcpy(out, &h, 16);
  for (size_t i = 0; i < nbody; i++)
    tw_store_be32(out + 16 + 4 * i, body[i]);
  tw_store_be32(out + len - 4, tw_pkt_footer((uint32_t)len));
  return len;
}

/* [flags][len][packet] as fuzz_cmd.c reads it. */
static size_t framed(uint8_t *out, uint8_t flags, const uint8_t *pkt, size_t len)
{
  out[0] = flags;
  out[1] = (uint8_t)len;
  memcpy(out + 2, pkt, len);
  return len + 2;
}

static void cmd_seeds(const char *dir)
{
  uint8_t pkt[128], seed[512];
  uint32_t mask = 0x3Fu, bad = 0x80000000u;
  size_t n, k;
  char name[64];
  for (uint16_t c = TW_LCMD_START; c <= TW_LCMD_GET_STATS; c++) {
    n = msg(pkt, TW_MSG_CMD, TW_SVC_LOGGER, c, 5, c == TW_LCMD_SET_MASK ? &mask : NULL,
            c == TW_LCMD_SET_MASK);
    k = framed(seed, 2, pkt, n);
    snprintf(name, sizeof name, "logger-cmd-%u", (unsigned)c);
    put(dir, name, seed, k);
  }
  /* START, then work, GET_NAMES, a refused reply retried, STOP */
  k = 0;
  n = msg(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_START, 5, NULL, 0);
  k += framed(seed + k, 2, pkt, n);
  n = msg(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_GET_NAMES, 5, NULL, 0);
  k += framed(seed + k, 3, pkt, n);
  n = msg(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_SET_MASK, 5, &bad, 1);
  k += framed(seed + k, 6, pkt, n);
  n = msg(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_STOP, 5, NULL, 0);
  k += framed(seed + k, 2, pkt, n);
  put(dir, "session", seed, k);
  n = msg(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_GET_INFO, TW_ADDR_BROADCAST, NULL, 0);
  put(dir, "broadcast", seed, framed(seed, 0, pkt, n));
  n = msg(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_GET_INFO, 6, NULL, 0);
  put(dir, "other-endpoint", seed, framed(seed, 0, pkt, n));
  n = msg(pkt, TW_MSG_CMD, 0x123, 1, 5, NULL, 0);
  put(dir, "unknown-service", seed, framed(seed, 0, pkt, n));
  uint32_t level = (uint32_t)-40;
  n = msg(pkt, TW_MSG_FLOWCTRL, TW_SVC_LOGGER, 0, 5, &level, 1);
  put(dir, "flowctrl", seed, framed(seed, 2, pkt, n));
  n = msg(pkt, TW_MSG_CMD, TW_SVC_LOGGER, TW_LCMD_GET_MASK, 5, &mask, 1);
  put(dir, "bad-length", seed, framed(seed, 0, pkt, n));
}

static void twt_seed(const char *dir, const char *name, int clean, size_t cut)
{
  char path[512], err[256];
  struct tw_twt_writer *w;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (tw_twt_create(path, &w, err, sizeof err) < 0) {
    fprintf(stderr, "mkseeds: %s\n", err);
    exit(1);
  }
  tw_twt_write(w, TW_TWT_SOURCE, 1, 1, "tcp-listen://127.0.0.1:0", 24);
  tw_twt_write(w, TW_TWT_DATA, 1, 2, stream, slen / 2);
  tw_twt_write(w, TW_TWT_NOTE, 0, 3, "note", 4);
  tw_twt_write(w, TW_TWT_DATA, 1, 4, stream + slen / 2, slen - slen / 2);
  tw_twt_close(w, clean);
  if (cut) {
    struct stat st;
    if (stat(path, &st) == 0 && truncate(path, st.st_size - (off_t)cut) != 0)
      exit(1);
  }
}

/* An indexed trace: INDEX chunks every 64 bytes of DATA (the stream cut
 * into pieces that split packets), a TOC, a 32-byte END pointing at it. */
static void twt_indexed_seed(const char *dir, const char *name)
{
  char path[600], err[256];
  struct tw_twt_writer *w;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (tw_twt_create(path, &w, err, sizeof err) < 0 || tw_twt_writer_index(w, 64) < 0) {
    fprintf(stderr, "mkseeds: %s\n", err);
    exit(1);
  }
  tw_twt_write(w, TW_TWT_SOURCE, 1, 1, "tcp-listen://127.0.0.1:0", 24);
  for (size_t at = 0, k = 0; at < slen; at += k) {
    k = slen - at < 97 ? slen - at : 97;
    tw_twt_write(w, TW_TWT_DATA, 1, 2 + at, stream + at, k);
  }
  tw_twt_close(w, 1);
}

int main(int argc, char **argv)
{
  char d[512];
  uint8_t tmp[sizeof stream + 2];
  if (argc != 2) {
    fprintf(stderr, "usage: tw-fuzz-mkseeds DIR\n");
    return 2;
  }
  mkdir(argv[1], 0777);
  make_stream(0, 0);
  subdir(d, sizeof d, argv[1], "decoder");
  put(d, "names-custom", stream, slen);
  subdir(d, sizeof d, argv[1], "reader");
  tmp[0] = 0x2D; /* max 256, reads of 38 bytes */
  tmp[1] = 17;
  memcpy(tmp + 2, stream, slen);
  put(d, "names-custom", tmp, slen + 2);
  subdir(d, sizeof d, argv[1], "twt");
  twt_seed(d, "clean.twt", 1, 0);
  twt_seed(d, "cut.twt", 0, 10);
  twt_indexed_seed(d, "indexed.twt");
  make_stream(0, 3000);
  subdir(d, sizeof d, argv[1], "decoder");
  put(d, "drops", stream, slen);
  subdir(d, sizeof d, argv[1], "reader");
  tmp[0] = 0x06;
  tmp[1] = 200;
  memcpy(tmp + 2, stream, slen);
  put(d, "drops", tmp, slen + 2);
  subdir(d, sizeof d, argv[1], "cmd");
  cmd_seeds(d);
  subdir(d, sizeof d, argv[1], "params");
  static const char params[] =
      "TRACE.switches.min=0x10\nTRACE.switches.file=/dev/null\nTRACE.fp.mask=4294967295\n"
      "TRACE.fp.enabled=false\nTRACE.fp.sources=TASK_SWITCH,MUTEX\nTRACE.switches.min=-5\n"
      "TRACE.fieldprint.enabled=1\nTRACE.nobody.x=1";
  put(d, "all-types", params, sizeof params - 1);
  return 0;
}
