/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's time constants kmod/policy.c uses (tests/unit/policy.c). */
#ifndef KTGEN_SHIM_LINUX_TIME64_H
#define KTGEN_SHIM_LINUX_TIME64_H

#define MSEC_PER_SEC	1000L
#define USEC_PER_SEC	1000000L

#endif
