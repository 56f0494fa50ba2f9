// A C++ FreeRTOS program with the tracewire hooks: FreeRTOS.h (whose
// FreeRTOSConfig.h includes tracewire/hooks/freertos_trace.h), the glue's
// header, an interrupt handler that uses the hooks (they expand here, in
// C++), and the C target library and kernel linked in. It runs: a task
// sends and receives through a queue, and the events are in the ring.
#include <cstdio>
#include <cstdlib>

#include "FreeRTOS.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"

#include "tracewire/freertos.h"
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/trace.h"

static QueueHandle_t q;

extern "C" void vApplicationTickHook(void) {}

// Never called: an application ISR in C++, as FreeRTOS users write them.
void cxx_isr(void);
void cxx_isr(void)
{
  traceISR_ENTER();
  BaseType_t woken = pdFALSE;
  uint32_t v = 1;
  (void)xQueueSendFromISR(q, &v, &woken);
  portYIELD_FROM_ISR(woken);
}

static void task(void *)
{
  uint32_t v = 7, w = 0;
  int ok = xQueueSend(q, &v, 0) == pdTRUE && xQueueReceive(q, &w, 0) == pdTRUE && w == 7;
  uint32_t used = tw_logger_used(tw_klog_logger());
  std::printf("cxx_app: queue %s, %u ring words recorded, %u names\n", ok ? "ok" : "FAILED",
              (unsigned)used, (unsigned)tw_name_count());
  std::exit(ok && used > 0 && tw_name_count() > 2 ? 0 : 1);
}

int main()
{
  __atomic_store_n(&tw_trace_mask, 0xFFFFFFFFu, __ATOMIC_RELAXED);
  q = xQueueCreate(2, sizeof(uint32_t));
  if (!q || xTaskCreate(task, "cxx", configMINIMAL_STACK_SIZE, nullptr, 2, nullptr) != pdPASS)
    return 1;
  (void)cxx_isr; // linked, not run
  vTaskStartScheduler();
  return 1;
}
