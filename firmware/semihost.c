/*
 * ARM semihosting through BKPT 0xAB (the M-profile trap), as QEMU's
 * -semihosting implements it: SYS_EXIT and SYS_GET_CMDLINE.
 */
#include "fw.h"

#define SYS_WRITE0 0x04u
#define SYS_GET_CMDLINE 0x15u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static uint32_t semihost(uint32_t op, void *arg)
{
  register uint32_t r0 __asm__("r0") = op;
  register void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void tw_fw_exit(int status)
{
  /* SYS_EXIT_EXTENDED carries the status itself (plain SYS_EXIT on 32-bit
   * targets only tells success from failure): QEMU exits with it. */
  uint32_t block[2] = { ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status };
  semihost(SYS_EXIT_EXTENDED, block);
  for (;;)
    ;
}

void tw_fw_log(const char *msg)
{
  semihost(SYS_WRITE0, (void *)(uintptr_t)msg);
}

int tw_fw_cmdline(char *buf, size_t cap)
{
  uint32_t block[2] = { (uint32_t)(uintptr_t)buf, (uint32_t)cap };
  return semihost(SYS_GET_CMDLINE, block) == 0 ? 0 : -1;
}
