// SPDX-License-Identifier: GPL-2.0
/*
 * The policy of ktgen-nic's link data (IFLA_INFO_DATA).
 * include/uapi/linux/ktgen_nic.yaml says the same: the uapi tier
 * (scripts/check-policy.sh) builds this file against the policy the spec
 * generates and fails where they differ.
 */
#include <linux/rtnetlink.h>

#include "policy.h"

/* rx-style is reported, never set. */
const struct nla_policy ktg_nic_policy[KTGEN_A_NIC_MAX + 1] = {
	[KTGEN_A_NIC_PEER]	= { .len = sizeof(struct ifinfomsg) },
	[KTGEN_A_NIC_DMA_CPU]	= { .type = NLA_U32 },
	[KTGEN_A_NIC_RX_STYLE]	= { .type = NLA_REJECT },
	[KTGEN_A_NIC_IRQ_CPUS]	= { .type = NLA_BINARY, .len = KTG_NIC_MAX_QUEUES * sizeof(u32) },
};
