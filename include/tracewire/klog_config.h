/*
 * Build-time options of the kernel event logger. Override any of them with
 * -D on the command line, or put them in a header named by
 * -DTW_CFG_USER_HEADER='"my_tw_config.h"'.
 */
#ifndef TRACEWIRE_KLOG_CONFIG_H
#define TRACEWIRE_KLOG_CONFIG_H

#ifdef TW_CFG_USER_HEADER
#  include TW_CFG_USER_HEADER
#endif

/* Ring capacity in 32-bit words, 2..2^30, any value (seed default: 128). */
#ifndef TW_CFG_KLOG_CAPACITY
#  define TW_CFG_KLOG_CAPACITY 128
#endif

/* SMP: one logger (ring) per core, each TW_CFG_KLOG_CAPACITY words; an
 * event goes to the ring of the core it happens on (tw_port_core_id()),
 * each ring is streamed as its own logger instance (the host's "core").
 * 1..8. */
#ifndef TW_CFG_CORES
#  define TW_CFG_CORES 1
#endif

/* Predefined events, each enabled independently (1 = recorded). */
#ifndef TW_CFG_KLOG_CONTEXT_SWITCH
#  define TW_CFG_KLOG_CONTEXT_SWITCH 1
#endif
#ifndef TW_CFG_KLOG_INTERRUPT
#  define TW_CFG_KLOG_INTERRUPT 1
#endif
#ifndef TW_CFG_KLOG_SLEEP
#  define TW_CFG_KLOG_SLEEP 1
#endif

/* Dynamic mode: a run-time mask (bit id-1 for ids 1..32) selects what is
 * recorded; starts at 0 (nothing recorded), as the seed says. Custom ids
 * above 32 are refused in this mode. */
#ifndef TW_CFG_KLOG_DYNAMIC
#  define TW_CFG_KLOG_DYNAMIC 0
#endif

/* Initial mask in dynamic mode. */
#ifndef TW_CFG_KLOG_INITIAL_MASK
#  define TW_CFG_KLOG_INITIAL_MASK 0u
#endif

#endif
