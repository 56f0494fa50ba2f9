/*
 * The exporter front: picks the format, keeps what every format needs
 * (drop counts per stream) and the first error with its message. Formats
 * only see events in the order given; the timeline formats read names and
 * states from their RTOS state model.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "export_internal.h"
#include "tracewire/io/file.h"

const char *const tw_export_formats[] = {"ctf", "perfetto", "json", "csv", NULL};

static const struct tw__export_ops *const ops_table[] = {
  &tw__export_ctf, &tw__export_perfetto, &tw__export_json, &tw__export_csv};

int tw__export_fail(struct tw_export *x, int err, const char *fmt, ...)
{
  va_list ap;
  if (x->err)
    return err;
  x->err = err;
  va_start(ap, fmt);
  vsnprintf(x->msg, sizeof x->msg, fmt, ap);
  va_end(ap);
  return err;
}

int tw__mkdir(struct tw_export *x, const char *dir)
{
  struct stat st;
  if (mkdir(dir, 0777) == 0 || (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
    return 0;
  return tw__export_fail(x, TW_EIO, "%s: cannot create directory: %s", dir, strerror(errno));
}

int tw__wfile_open(struct tw_export *x, struct tw__wfile *w, const char *path)
{
  snprintf(w->path, sizeof w->path, "%s", path);
  char err[400];
  w->f = tw_file_fopen_w(path, err, sizeof err); /* never over an input (io/file.h) */
  if (!w->f)
    return tw__export_fail(x, TW_EIO, "%s", err);
  if (w->f != stdout)
    setvbuf(w->f, NULL, _IOFBF, 1 << 16);
  return 0;
}

int tw__wfile_close(struct tw_export *x, struct tw__wfile *w)
{
  int bad;
  if (!w->f)
    return 0;
  bad = ferror(w->f) != 0;
  if (w->f == stdout)
    bad |= fflush(stdout) != 0;
  else
    bad |= fclose(w->f) != 0;
  w->f = NULL;
  if (bad)
    return tw__export_fail(x, TW_EIO, "%s: write failed: %s", w->path, strerror(errno));
  return 0;
}

/* ---- drops ------------------------------------------------------------------ */

static struct tw__drops *drops_of(struct tw_export *x, uint16_t ep, uint16_t inst)
{
  for (size_t i = 0; i < x->ndrops; i++)
    if (x->drops[i].endpoint == ep && x->drops[i].instance == inst)
      return &x->drops[i];
  if (x->ndrops == x->capdrops) {
    size_t cap = x->capdrops ? 2 * x->capdrops : 16;
    struct tw__drops *d = realloc(x->drops, cap * sizeof *d);
    if (!d) {
      tw__export_fail(x, TW_ENOMEM, "out of memory");
      return NULL;
    }
    x->drops = d;
    x->capdrops = cap;
  }
  x->drops[x->ndrops] = (struct tw__drops){ep, inst, 0, 0};
  return &x->drops[x->ndrops++];
}

unsigned long long tw__export_lost(const struct tw_export *x, uint16_t ep, uint16_t inst)
{
  for (size_t i = 0; i < x->ndrops; i++)
    if (x->drops[i].endpoint == ep && x->drops[i].instance == inst)
      return x->drops[i].ring + x->drops[i].transport;
  return 0;
}

void tw_export_transport_loss(struct tw_export *x, uint16_t ep, uint16_t inst,
                              unsigned long long lost)
{
  struct tw__drops *d = drops_of(x, ep, inst);
  if (!d)
    return;
  if (lost > d->transport && x->ops->loss)
    x->ops->loss(x, ep, inst, lost - d->transport);
  d->transport = lost;
}

/* ---- the front -------------------------------------------------------------- */

int tw_export_open(struct tw_export **out, const struct tw_export_cfg *cfg, char *err,
                   size_t errcap)
{
  const struct tw__export_ops *ops = NULL;
  struct tw_export *x;
  int rc;
  *out = NULL;
  for (size_t i = 0; cfg->format && i < sizeof ops_table / sizeof ops_table[0]; i++)
    if (!strcmp(cfg->format, ops_table[i]->name))
      ops = ops_table[i];
  if (!ops || !cfg->out || !*cfg->out) {
    if (err && errcap)
      snprintf(err, errcap, ops ? "no output path given"
                                : "unknown export format '%s' (ctf, perfetto, json, csv)",
               cfg->format ? cfg->format : "");
    return ops ? TW_EINVAL : TW_ENOENT;
  }
  if (!(x = calloc(1, sizeof *x)))
    return TW_ENOMEM;
  x->ops = ops;
  x->cfg = *cfg;
  snprintf(x->out, sizeof x->out, "%s", cfg->out);
  x->cfg.out = x->out;
  if (!x->cfg.packet_bytes)
    x->cfg.packet_bytes = 64 * 1024;
  if (!x->cfg.load_window_ns)
    x->cfg.load_window_ns = 1000000;
  if ((rc = ops->open(x)) < 0) {
    if (err && errcap)
      snprintf(err, errcap, "%s", x->msg);
    ops->free(x);
    free(x);
    return rc;
  }
  *out = x;
  return 0;
}

int tw_export_event(struct tw_export *x, const struct tw_event *ev)
{
  int rc;
  if (x->err)
    return x->err;
  if (ev->id == TW_EV_DROPS && ev->nvalues) {
    struct tw__drops *d = drops_of(x, ev->endpoint, ev->instance);
    if (d)
      d->ring += ev->values[0];
  }
  x->events++;
  rc = x->ops->event(x, ev);
  return rc < 0 ? rc : x->err;
}

int tw_export_close(struct tw_export *x, char *err, size_t errcap)
{
  int rc;
  if (!x)
    return 0;
  x->ops->finish(x);
  x->ops->free(x);
  rc = x->err;
  if (rc && err && errcap)
    snprintf(err, errcap, "%s", x->msg);
  free(x->drops);
  free(x);
  return rc;
}

unsigned long long tw_export_count(const struct tw_export *x)
{
  return x->events;
}

int tw_export_error(const struct tw_export *x)
{
  return x->err;
}
