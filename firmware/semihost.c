/*
 * ARM semihosting through BKPT 0xAB (the M-profile trap), as QEMU's
 * -semihosting implements it: SYS_EXIT and SYS_GET_CMDLINE.
 */
#include "fw.h"

#define SYS_GET_CMDLINE 0x15u
#define SYS_EXIT 0x18u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUNTIME_ERROR 0x20023u

static uint32_t semihost(uint32_t op, void *arg)
{
  register uint32_t r0 __asm__("r0") = op;
  register void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void tw_fw_exit(int status)
{
  /* On 32-bit targets SYS_EXIT takes the reason itself; only
   * ApplicationExit reads as success, so any other status is an error
   * (QEMU exits 1). */
  semihost(SYS_EXIT, (void *)(uintptr_t)(status == 0 ? ADP_STOPPED_APPLICATION_EXIT
                                                      : ADP_STOPPED_RUNTIME_ERROR));
  for (;;)
    ;
}

int tw_fw_cmdline(char *buf, size_t cap)
{
  uint32_t block[2] = { (uint32_t)(uintptr_t)buf, (uint32_t)cap };
  return semihost(SYS_GET_CMDLINE, block) == 0 ? 0 : -1;
}
