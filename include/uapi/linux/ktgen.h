/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	include/uapi/linux/ktgen.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_KTGEN_H
#define _UAPI_LINUX_KTGEN_H

#define KTGEN_FAMILY_NAME	"ktgen"
#define KTGEN_FAMILY_VERSION	1

#define KTGEN_ABI_VERSION	1

/**
 * enum ktgen_nocache_impl - Implementation of the module's non-temporal copy
 *   on this kernel.
 * @KTGEN_NOCACHE_IMPL_MEMCPY: Plain memcpy; this architecture has no
 *   flushcache copy.
 * @KTGEN_NOCACHE_IMPL_MOVNTI: x86 non-temporal stores (memcpy_flushcache) with
 *   a store fence.
 */
enum ktgen_nocache_impl {
	KTGEN_NOCACHE_IMPL_MEMCPY,
	KTGEN_NOCACHE_IMPL_MOVNTI,
};

/**
 * enum ktgen_page_send - How pages are handed to the stack without a copy on
 *   this kernel.
 * @KTGEN_PAGE_SEND_SENDPAGE: kernel_sendpage() (kernels before 6.5).
 * @KTGEN_PAGE_SEND_SPLICE_PAGES: sock_sendmsg() with MSG_SPLICE_PAGES and a
 *   bvec iterator.
 */
enum ktgen_page_send {
	KTGEN_PAGE_SEND_SENDPAGE,
	KTGEN_PAGE_SEND_SPLICE_PAGES,
};

enum {
	KTGEN_A_INFO_VERSION = 1,
	KTGEN_A_INFO_ABI_VERSION,
	KTGEN_A_INFO_KERNEL,
	KTGEN_A_INFO_NOCACHE_IMPL,
	KTGEN_A_INFO_PAGE_SEND,
	KTGEN_A_INFO_PMU,

	__KTGEN_A_INFO_MAX,
	KTGEN_A_INFO_MAX = (__KTGEN_A_INFO_MAX - 1)
};

enum {
	KTGEN_A_CONFIG_BUFFER_BUDGET = 1,
	KTGEN_A_CONFIG_BUFFER_USED,

	__KTGEN_A_CONFIG_MAX,
	KTGEN_A_CONFIG_MAX = (__KTGEN_A_CONFIG_MAX - 1)
};

enum {
	KTGEN_CMD_GET_INFO = 1,
	KTGEN_CMD_GET_CONFIG,
	KTGEN_CMD_SET_CONFIG,

	__KTGEN_CMD_MAX,
	KTGEN_CMD_MAX = (__KTGEN_CMD_MAX - 1)
};

#define KTGEN_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_KTGEN_H */
