/*
 * The FreeRTOS application of examples/freertos-posix (POSIX port, TCP) and
 * firmware-freertos (Cortex-M3 under QEMU, UART): the same tasks, objects
 * and planted problems on both. app.c says what it does; the platform
 * file supplies the transport, the "interrupt" and the end of the run.
 */
#ifndef APP_H
#define APP_H

#include <stdint.h>

struct tw_freertos_collector;

/* Create the supervisor task. It waits for the host's START, builds the
 * application, runs it for run_ms, stops it and tracing, then calls
 * app_platform_finish(). Before vTaskStartScheduler. */
void app_start(struct tw_freertos_collector *collector, uint32_t run_ms);

/* From vApplicationTickHook: every 10th tick is the application's
 * "interrupt" (traceISR_ENTER, a semaphore given from the ISR, traceISR_EXIT). */
void app_tick_hook(void);

/* Write the application's own counts, one line each:
 *   tw-app-count <event> <type> <object kind> <object name> <count>
 * ("-" where there is none), and its account of the ring:
 *   tw-app-ring emitted <burst events> dropped <logger drops>
 * Called by the platform once tracing stopped. */
void app_print_counts(void (*line)(const char *text));

/* Supplied by the platform: the run is over (status 0: as planned); one
 * line of text for whoever watches the run. */
void app_platform_finish(int status);
void app_platform_log(const char *line);

#endif
