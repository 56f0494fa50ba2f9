/*
 * Adding a time index to an existing .twt (twt_index.h, tw_twt_reindex()):
 * copy through the indexing writer, then verify the copy by reading it
 * back, and only then let it replace anything.
 *
 * The verification does not decode: the events of a .twt are a function
 * of its chunks (each source's DATA in file order, INFO, SOURCE), so the
 * copy decodes exactly as the original when it holds the same chunks in
 * the same order. Both sides hash every chunk but INDEX, TOC and END
 * (type, source, arrival, length, payload) in order; the counts and the
 * hashes must agree, END must be there exactly when the original had one,
 * and the new index must load. In place, a damaged original is not
 * replaced at all: its damaged bytes would be gone for good.
 */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tracewire/twt/twt_index.h"
#include "tracewire/twt/trace_file.h"
#include "tracewire/io/file.h"
#include "tracewire/uia.h"
#include "tracewire/error.h"

struct digest {
  uint64_t h;
  unsigned long long chunks;
};

static void mix(struct digest *d, const void *p, size_t n)
{
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++)
    d->h = (d->h ^ b[i]) * 0x100000001B3ull; /* FNV-1a 64 */
}

static int copied_kind(uint16_t type)
{
  return type != TW_TWT_INDEX && type != TW_TWT_TOC && type != TW_TWT_END;
}

static void digest_chunk(struct digest *d, const struct tw_twt_chunk *c)
{
  uint8_t h[16];
  tw_store_le32(h, c->type);
  tw_store_le32(h + 4, c->source);
  tw_store_le32(h + 8, (uint32_t)c->arrival_ns);
  tw_store_le32(h + 12, c->len);
  mix(d, h, sizeof h);
  mix(d, &c->arrival_ns, sizeof c->arrival_ns);
  if (c->len)
    mix(d, c->data, c->len);
  d->chunks++;
}

static uint64_t end_time(const struct tw_twt_chunk *c)
{
  return c->len >= 24 ? tw_load_le32(c->data + 16) | (uint64_t)tw_load_le32(c->data + 20) << 32 : 0;
}

/* in -> w: every chunk but an old index and END. 0, or TW_E* (err). */
static int copy(struct tw_twt_reader *r, struct tw_twt_writer *w, struct tw_twt_reindex *rw,
                struct digest *d, uint64_t *end_ns, unsigned long long total, char *err,
                size_t errcap)
{
  struct tw_twt_chunk c;
  unsigned long long next_report = 64ull << 20;
  int rc;
  while ((rc = tw_twt_next(r, &c)) != 0) {
    if (rc < 0) {
      if (rc != TW_EBADMSG && rc != TW_ETRUNC) {
        snprintf(err, errcap, "%s", tw_twt_reader_error(r));
        return rc;
      }
      if (!rw->damaged++)
        snprintf(rw->damage, sizeof rw->damage, "%s", tw_twt_reader_error(r));
      if (rc == TW_ETRUNC)
        break;
      continue;
    }
    if (c.type == TW_TWT_END) {
      rw->clean = 1;
      *end_ns = end_time(&c);
      continue;
    }
    if (!copied_kind(c.type))
      continue;
    if (tw_twt_write(w, c.type, c.source, c.arrival_ns, c.data, c.len) < 0) {
      snprintf(err, errcap, "%s", tw_twt_writer_error(w));
      return TW_EIO;
    }
    digest_chunk(d, &c);
    rw->chunks++;
    if (rw->on_progress && c.file_offset >= next_report) {
      rw->on_progress(rw->progress_ctx, c.file_offset, total);
      next_report = c.file_offset + (64ull << 20);
    }
  }
  return 0;
}

/* Read the copy back: the same chunks, END as the original, a sound index. */
static int verify(const char *path, const struct tw_twt_reindex *rw, const struct digest *want,
                  char *err, size_t errcap)
{
  struct tw_twt_reader *r;
  struct tw_twt_chunk c;
  struct digest got = {.h = 0xCBF29CE484222325ull};
  int rc, end = 0;
  if ((rc = tw_twt_open(path, &r, err, errcap)) < 0)
    return rc;
  while ((rc = tw_twt_next(r, &c)) == 1) {
    end |= c.type == TW_TWT_END;
    if (copied_kind(c.type))
      digest_chunk(&got, &c);
  }
  if (rc < 0)
    snprintf(err, errcap, "verifying the copy: %s", tw_twt_reader_error(r));
  tw_twt_close_reader(r);
  if (rc < 0)
    return TW_EIO;
  if (got.chunks != want->chunks || got.h != want->h || end != rw->clean) {
    snprintf(err, errcap, "%s: verifying the copy: it reads back with %llu chunks%s, %llu were "
             "written%s", path, got.chunks, got.h == want->h ? "" : " of other content",
             want->chunks, end != rw->clean ? "; its END is wrong" : "");
    return TW_EIO;
  }
  struct tw_twt_index *ix;
  char why[400];
  if ((rc = tw_twt_index_load(path, &ix, why, sizeof why)) < 0) {
    snprintf(err, errcap, "verifying the copy: %s", why);
    return TW_EIO;
  }
  if (rc > 0)
    tw_twt_index_free(ix);
  return 0;
}

static int write_copy(const char *in, const char *out, struct tw_twt_reindex *rw, int *created,
                      char *err, size_t errcap)
{
  struct tw_twt_reader *r;
  struct tw_twt_writer *w;
  struct digest d = {.h = 0xCBF29CE484222325ull};
  uint64_t end_ns = 0;
  int rc;
  long long size = tw_file_size(in);
  unsigned long long total = size > 0 ? (unsigned long long)size : 0;
  if ((rc = tw_twt_open(in, &r, err, errcap)) < 0)
    return rc;
  if ((rc = tw_twt_create(out, &w, err, errcap)) < 0) {
    tw_twt_close_reader(r);
    return rc;
  }
  *created = strcmp(out, "-") != 0;
  if ((rc = tw_twt_writer_index(w, rw->every)) < 0)
    snprintf(err, errcap, "%s: out of memory for the index", out);
  tw_twt_writer_times(w, tw_twt_created_ns(r), 0);
  if (rc == 0)
    rc = copy(r, w, rw, &d, &end_ns, total, err, errcap);
  tw_twt_close_reader(r);
  if (rc == 0 && rw->clean)
    tw_twt_writer_times(w, 0, end_ns);
  int wrc = tw_twt_close(w, rc == 0 && rw->clean);
  if (rc == 0 && wrc < 0) {
    snprintf(err, errcap, "%s", tw_twt_writer_error(w));
    rc = wrc;
  }
  if (rc == 0 && strcmp(out, "-")) /* standard output cannot be read back; nothing is replaced */
    rc = verify(out, rw, &d, err, errcap);
  if (rw->on_progress && rc == 0)
    rw->on_progress(rw->progress_ctx, total, total);
  return rc;
}

int tw_twt_reindex(const char *in, const char *out, struct tw_twt_reindex *rw, char *err,
                   size_t errcap)
{
  char tmp[4200];
  struct tw_file_id id;
  rw->clean = 0;
  rw->damaged = rw->chunks = 0;
  rw->damage[0] = 0;
  tw_file_guard(in, &id); /* out may not be in, through any link */
  if (!out) {
    snprintf(tmp, sizeof tmp, "%s.index-tmp.%ld", in, (long)getpid());
    out = tmp;
  }
  int created = 0;
  int rc = write_copy(in, out, rw, &created, err, errcap);
  if (rc == 0 && out == tmp && rw->damaged) {
    snprintf(err, errcap, "%s has damage (%s): not replaced, so nothing of it is lost; "
             "-o OUT writes an indexed copy without the damaged parts", in, rw->damage);
    rc = TW_EBADMSG;
  }
  if (rc == 0 && out == tmp)
    rc = tw_file_rename(tmp, in, err, errcap);
  if (rc < 0 && created)
    tw_file_unlink(out); /* only what this call created */
  tw_file_unguard(&id);
  return rc;
}
