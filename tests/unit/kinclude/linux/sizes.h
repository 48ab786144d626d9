/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's SZ_* constants kmod/policy.h uses (tests/unit/policy.c). */
#ifndef KTGEN_SHIM_LINUX_SIZES_H
#define KTGEN_SHIM_LINUX_SIZES_H

#define SZ_4K	0x00001000
#define SZ_64K	0x00010000
#define SZ_1M	0x00100000
#define SZ_16M	0x01000000
#define SZ_256M	0x10000000
#define SZ_1G	0x40000000

#endif
