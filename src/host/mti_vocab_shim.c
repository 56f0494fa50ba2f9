/* TEMPORARY until branch streamer (src/common/events_desc.c) is merged. */
#include "tracewire/vocab.h"
const char *tw_marker_name(enum tw_marker m)
{
  static const char *const n[] = {"None", "Up", "Down", "Push", "UpBlock", "DownBlock", "UpUp",
                                  "UpPush", "UpUpPush", "Inc", "Dec", "Wait", "Pass"};
  return (unsigned)m < sizeof n / sizeof n[0] ? n[m] : "?";
}
const char *tw_obj_kind_name(enum tw_obj_kind k)
{
  static const char *const n[] = {"none", "task", "mutex", "sem", "event", "msem", "mevent",
                                  "asem", "rsem", "irq", "thread", "objkind"};
  return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "?";
}
