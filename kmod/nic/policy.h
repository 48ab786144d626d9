/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ktgen-nic's link data is checked against (policy.c). Built in the
 * host's policy check too, so nothing here but the kernel's netlink types
 * and the uapi.
 */
#ifndef _KTG_NIC_POLICY_H
#define _KTG_NIC_POLICY_H

#include <net/netlink.h>
#include <linux/ktgen_nic.h>

/* Channels a device may have. */
#define KTG_NIC_MAX_QUEUES	8

extern const struct nla_policy ktg_nic_policy[KTGEN_A_NIC_MAX + 1];

#endif
