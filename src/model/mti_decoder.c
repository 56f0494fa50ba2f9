/*
 * Glue between the decoder and the trace model: after a first pass over a
 * trace, the model gets one component per decoder stream (same indexes,
 * so events' `stream` fields match) and a source per declared custom
 * event, before any plugin looks at it.
 */
#include "model/mti_internal.h"
#include "tracewire/error.h"
#include "tracewire/wire/decoder.h"

int tw_mti_system_sync_decoder(struct tw_mti_system *sys, const struct tw_decoder *d)
{
  const struct tw_event_desc *desc;
  uint16_t ep;
  int clashes = 0;
  for (size_t i = 0; i < tw_decoder_nstreams(d); i++) {
    const struct tw_stream_stats *st = tw_decoder_stream(d, i);
    int rc = tw_mti_system_add_component(sys, (uint16_t)i, st->endpoint, st->instance, NULL);
    if (rc < 0 && rc != TW_EEXIST)
      return rc;
  }
  for (size_t i = 0; (desc = tw_decoder_custom_at(d, i, &ep)) != NULL; i++) {
    int rc = tw_mti_system_declare_event(sys, desc);
    if (rc == TW_EEXIST)
      clashes++; /* two endpoints, one id, two names: the first one wins */
    else if (rc < 0)
      return rc;
  }
  return clashes;
}
