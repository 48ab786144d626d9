/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	include/uapi/linux/ktgen_nic.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_KTGEN_NIC_H
#define _UAPI_LINUX_KTGEN_NIC_H

#define KTGEN_NIC_KIND		"ktgen-nic"
#define KTGEN_NIC_VERSION	1

/**
 * enum ktgen_nic_rx_style - How the virtual NIC turns a receive buffer into an
 *   skb; chosen with its priv-flags.
 * @KTGEN_NIC_RX_STYLE_BUILD: Wrap the page-pool buffer (napi_build_skb), as
 *   build_skb drivers (ixgbe without legacy-rx, bnx2x).
 * @KTGEN_NIC_RX_STYLE_LEGACY: Priv-flag legacy-rx. Allocate an skb and copy,
 *   whole up to 256 bytes, else the headers with the rest as a page fragment
 *   (ixgbe legacy-rx).
 * @KTGEN_NIC_RX_STYLE_FRAGS: Priv-flag rx-frags. The whole frame as a page
 *   fragment of an skb from napi_get_frags(), through napi_gro_frags() (mlx4).
 */
enum ktgen_nic_rx_style {
	KTGEN_NIC_RX_STYLE_BUILD,
	KTGEN_NIC_RX_STYLE_LEGACY,
	KTGEN_NIC_RX_STYLE_FRAGS,
};

enum {
	KTGEN_A_NIC_PEER = 1,
	KTGEN_A_NIC_DMA_CPU,
	KTGEN_A_NIC_RX_STYLE,
	KTGEN_A_NIC_IRQ_CPUS,

	__KTGEN_A_NIC_MAX,
	KTGEN_A_NIC_MAX = (__KTGEN_A_NIC_MAX - 1)
};

#endif /* _UAPI_LINUX_KTGEN_NIC_H */
