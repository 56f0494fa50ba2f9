/* Board support of the mps2-an385 firmware: UART0 and semihosting. */
#ifndef TW_FW_H
#define TW_FW_H

#include <stddef.h>
#include <stdint.h>

#define FW_EXIT_SETUP 2 /* bad option or scenario set-up failed */
#define FW_EXIT_FAULT 3
#define FW_EXIT_STREAM 4 /* the stream could not be finished */

/* CMSDK APB UART0 (polled). */
void tw_fw_uart_init(void);
void tw_fw_uart_write(const void *buf, size_t len);
/* Bytes received so far, up to cap, without blocking. */
size_t tw_fw_uart_read(void *buf, size_t cap);

/* Milliseconds since tw_fw_clock_init() (SysTick interrupt). */
void tw_fw_clock_init(void);
uint32_t tw_fw_ms(void);
void tw_fw_systick_isr(void);

/* Semihosting (QEMU -semihosting): end the run with a status (0 = success,
 * reported as ADP_Stopped_ApplicationExit) and fetch the command line. */
__attribute__((noreturn)) void tw_fw_exit(int status);
/* A message on the debugger's console (QEMU: its stderr). */
void tw_fw_log(const char *msg);
/* Copies the command line (NUL-terminated) into buf; 0 or -1. */
int tw_fw_cmdline(char *buf, size_t cap);

#endif
