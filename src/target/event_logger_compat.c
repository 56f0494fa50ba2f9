/*
 * The seed's sys_event_logger_* and sys_k_event_logger_* calls over the
 * native API. What the seed leaves open is decided in docs/logger.md
 * ("Seed compatibility"): 8-bit dropped counts saturate at 255, bad
 * arguments make void calls no-ops and gets return 0, -EMSGSIZE is
 * -TW_CFG_EMSGSIZE. As the seed's original: any init size is used whole,
 * and an event larger than the ring is a drop told with the next event.
 */
#include "tracewire/compat/event_logger.h"

/* A logger whose init was refused: capacity 1 rejects every put and
 * always reads empty, so later calls on it are harmless. */
static uint32_t dead_ring[1];

void sys_event_logger_init(struct event_logger *logger,
                           uint32_t *logger_buffer, uint32_t buffer_size)
{
  if (!logger)
    return;
  if (tw_logger_init(&logger->tw, logger_buffer, buffer_size))
    logger->tw = (struct tw_logger)TW_LOGGER_INITIALIZER(dead_ring, 1u);
}

void sys_event_logger_put(struct event_logger *logger, uint16_t event_id,
                          uint32_t *event_data, uint8_t data_size)
{
  if (!logger)
    return;
  if (!event_data || !data_size || logger->tw.buf == dead_ring) {
    (void)tw_logger_put(&logger->tw, event_id, event_data, data_size); /* a reject */
    return;
  }
  if (1u + data_size > logger->tw.cap)
    tw__logger_drop(&logger->tw); /* never fits: a drop, as in the original */
  else
    (void)tw_logger_put(&logger->tw, event_id, event_data, data_size);
}

/* wait: 0 no, 1 with timeout; timeout TW_WAIT_FOREVER for get_wait. */
static int seed_get(struct tw_logger *l, uint16_t *event_id, uint8_t *dropped,
                    uint32_t *buffer, uint8_t *buffer_size, int wait,
                    uint32_t timeout)
{
  struct tw_logger_rec rec;
  int r;
  if (!l || !event_id || !dropped || !buffer || !buffer_size || !*buffer_size)
    return 0;
  r = wait ? tw_logger_get_wait(l, &rec, buffer, *buffer_size, timeout)
           : tw_logger_get(l, &rec, buffer, *buffer_size);
  *dropped = 0;
  if (r > 0 || r == TW_EMSGSIZE) {
    *event_id = rec.id;
    *buffer_size = (uint8_t)rec.size;
    *dropped = rec.dropped > 255u ? 255u : (uint8_t)rec.dropped;
  }
  return r == TW_EMSGSIZE ? -TW_CFG_EMSGSIZE : r > 0 ? r : 0;
}

int sys_event_logger_get(struct event_logger *logger, uint16_t *event_id,
                         uint8_t *dropped_event_count, uint32_t *buffer,
                         uint8_t *buffer_size)
{
  return seed_get(logger ? &logger->tw : 0, event_id, dropped_event_count,
                  buffer, buffer_size, 0, 0u);
}

int sys_event_logger_get_wait(struct event_logger *logger, uint16_t *event_id,
                              uint8_t *dropped_event_count, uint32_t *buffer,
                              uint8_t *buffer_size)
{
  return seed_get(logger ? &logger->tw : 0, event_id, dropped_event_count,
                  buffer, buffer_size, 1, TW_WAIT_FOREVER);
}

int sys_event_logger_get_wait_timeout(struct event_logger *logger,
                                      uint16_t *event_id,
                                      uint8_t *dropped_event_count,
                                      uint32_t *buffer, uint8_t *buffer_size,
                                      uint32_t timeout)
{
  if (timeout == TW_WAIT_FOREVER)
    timeout--; /* a finite timeout stays finite */
  return seed_get(logger ? &logger->tw : 0, event_id, dropped_event_count,
                  buffer, buffer_size, 1, timeout);
}

void sys_k_event_logger_set_timer(sys_k_timer_func_t func)
{
  tw_klog_set_timer(func);
}

void sys_k_event_logger_set_mask(int value)
{
  tw_klog_set_mask((uint32_t)value);
}

int sys_k_event_logger_get_mask(void)
{
  return (int)tw_klog_get_mask();
}

int sys_k_must_log_event(int event_type)
{
  return event_type > 0 && tw_klog_enabled((uint32_t)event_type);
}

void sys_k_event_logger_put(uint16_t event_id, uint32_t *event_data,
                            uint8_t data_size)
{
  (void)tw__klog_put_seed(event_id, event_data, data_size, 0);
}

void sys_k_event_logger_put_timed(uint16_t event_id)
{
  (void)tw__klog_put_seed(event_id, 0, 0u, 1);
}

int sys_k_event_logger_get(uint16_t *event_id, uint8_t *dropped,
                           uint32_t *event_data, uint8_t *data_size)
{
  return seed_get(tw_klog_logger(), event_id, dropped, event_data, data_size,
                  0, 0u);
}

int sys_k_event_logger_get_wait(uint16_t *event_id, uint8_t *dropped,
                                uint32_t *event_data, uint8_t *data_size)
{
  return seed_get(tw_klog_logger(), event_id, dropped, event_data, data_size,
                  1, TW_WAIT_FOREVER);
}

int sys_k_event_logger_get_wait_timeout(uint16_t *event_id, uint8_t *dropped,
                                        uint32_t *event_data,
                                        uint8_t *data_size, uint32_t timeout)
{
  if (timeout == TW_WAIT_FOREVER)
    timeout--;
  return seed_get(tw_klog_logger(), event_id, dropped, event_data, data_size,
                  1, timeout);
}

void sys_k_event_logger_register_as_collector(void)
{
  tw_klog_register_collector();
}
