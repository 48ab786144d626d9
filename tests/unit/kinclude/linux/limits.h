/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's linux/limits.h over the uapi one (tests/unit/policy.c). */
#include_next <linux/limits.h>
#include <stdint.h>

#ifndef U64_MAX
#define U64_MAX	UINT64_MAX
#endif
