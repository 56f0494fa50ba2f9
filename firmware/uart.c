/*
 * CMSDK APB UART0 of the mps2-an385 at 0x40004000: DATA +0, STATE +4
 * (bit0 TX full, bit1 RX full), CTRL +8 (bit0 TX enable, bit1 RX enable),
 * BAUDDIV +0x10. Polled: the firmware has one thread and no interrupts.
 */
#include "fw.h"

#define UART0 0x40004000u
#define REG(off) (*(volatile uint32_t *)(UART0 + (off)))
#define DATA REG(0x00)
#define STATE REG(0x04)
#define CTRL REG(0x08)
#define BAUDDIV REG(0x10)

#define STATE_TX_FULL 0x1u
#define STATE_RX_FULL 0x2u
#define CTRL_TX_EN 0x1u
#define CTRL_RX_EN 0x2u

void tw_fw_uart_init(void)
{
  BAUDDIV = 16; /* the smallest legal divisor; QEMU ignores the rate */
  CTRL = CTRL_TX_EN | CTRL_RX_EN;
}

void tw_fw_uart_write(const void *buf, size_t len)
{
  const uint8_t *p = buf;
  for (size_t i = 0; i < len; i++) {
    while (STATE & STATE_TX_FULL)
      ;
    DATA = p[i];
  }
}

size_t tw_fw_uart_read(void *buf, size_t cap)
{
  uint8_t *p = buf;
  size_t n = 0;
  while (n < cap && (STATE & STATE_RX_FULL))
    p[n++] = (uint8_t)DATA;
  return n;
}
