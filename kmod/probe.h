/* SPDX-License-Identifier: GPL-2.0 */
/* Copy and receive path probes (probe.c). */
#ifndef _KTG_PROBE_H
#define _KTG_PROBE_H

#include <linux/types.h>

struct netlink_ext_ack;

/* Copy probes: the stack's nocache user copy, counted. */
int ktg_probe_get(struct netlink_ext_ack *extack);
void ktg_probe_put(void);
u64 ktg_probe_nocache_hits(void);

/* Receive path probes: how drivers built their skbs, counted.
 * The order of enum ktgen_rx_path_counter's bits.
 */
enum ktg_rxp {
	KTG_RXP_BUILD,
	KTG_RXP_ALLOC,
	KTG_RXP_GET_FRAGS,
	KTG_RXP_ADD_FRAG,
	KTG_RXP_GRO_MERGED,
	KTG_RXP_N
};

u32 ktg_rxprobe_get(void);
void ktg_rxprobe_put(void);
void ktg_rxprobe_read(u64 *n);

#endif /* _KTG_PROBE_H */
