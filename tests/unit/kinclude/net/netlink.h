/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's attribute policy, as include/net/netlink.h declares it, for
 * building kmod/policy.c and the spec's generated policies on the host
 * (tests/unit/policy.c). Same fields, same macros, same s16 bounds.
 */
#ifndef KTGEN_SHIM_NET_NETLINK_H
#define KTGEN_SHIM_NET_NETLINK_H

#include <stdint.h>
#include <linux/netlink.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int16_t s16;
typedef int64_t s64;

enum {
	NLA_UNSPEC,
	NLA_U8,
	NLA_U16,
	NLA_U32,
	NLA_U64,
	NLA_STRING,
	NLA_FLAG,
	NLA_MSECS,
	NLA_NESTED,
	NLA_NESTED_ARRAY,
	NLA_NUL_STRING,
	NLA_BINARY,
	NLA_S8,
	NLA_S16,
	NLA_S32,
	NLA_S64,
	NLA_BITFIELD32,
	NLA_REJECT,
	NLA_BE16,
	NLA_BE32,
	__NLA_TYPE_MAX,
};

enum nla_policy_validation {
	NLA_VALIDATE_NONE,
	NLA_VALIDATE_RANGE,
	NLA_VALIDATE_RANGE_WARN_TOO_LONG,
	NLA_VALIDATE_MIN,
	NLA_VALIDATE_MAX,
	NLA_VALIDATE_MASK,
	NLA_VALIDATE_RANGE_PTR,
	NLA_VALIDATE_FUNCTION,
};

struct netlink_range_validation {
	u64 min, max;
};

struct netlink_range_validation_signed {
	s64 min, max;
};

struct nla_policy {
	u8 type;
	u8 validation_type;
	u16 len;
	union {
		u16 strict_start_type;
		const u32 bitfield32_valid;
		const u32 mask;
		const char *reject_message;
		const struct nla_policy *nested_policy;
		const struct netlink_range_validation *range;
		const struct netlink_range_validation_signed *range_signed;
		struct {
			s16 min, max;
		};
		int (*validate)(const void *attr, void *extack);
	};
};

#define NLA_POLICY_EXACT_LEN(_len)	{ .type = NLA_BINARY, \
	.validation_type = NLA_VALIDATE_RANGE_WARN_TOO_LONG, .min = _len, .max = _len }
#define NLA_POLICY_MIN_LEN(_len)	{ .type = NLA_BINARY, \
	.validation_type = NLA_VALIDATE_MIN, .min = _len }
#define NLA_POLICY_MAX_LEN(_len)	{ .type = NLA_BINARY, \
	.validation_type = NLA_VALIDATE_MAX, .max = _len }
#define NLA_POLICY_NESTED(policy)	{ .type = NLA_NESTED, \
	.nested_policy = policy, .len = sizeof(policy) / sizeof(policy[0]) - 1 }
#define NLA_POLICY_NESTED_ARRAY(policy)	{ .type = NLA_NESTED_ARRAY, \
	.nested_policy = policy, .len = sizeof(policy) / sizeof(policy[0]) - 1 }
#define NLA_POLICY_BITFIELD32(valid)	{ .type = NLA_BITFIELD32, .bitfield32_valid = valid }
#define NLA_POLICY_RANGE(tp, _min, _max)	{ .type = tp, \
	.validation_type = NLA_VALIDATE_RANGE, .min = _min, .max = _max }
#define NLA_POLICY_FULL_RANGE(tp, _range)	{ .type = tp, \
	.validation_type = NLA_VALIDATE_RANGE_PTR, .range = _range }
#define NLA_POLICY_FULL_RANGE_SIGNED(tp, _range)	{ .type = tp, \
	.validation_type = NLA_VALIDATE_RANGE_PTR, .range_signed = _range }
#define NLA_POLICY_MIN(tp, _min)	{ .type = tp, \
	.validation_type = NLA_VALIDATE_MIN, .min = _min }
#define NLA_POLICY_MAX(tp, _max)	{ .type = tp, \
	.validation_type = NLA_VALIDATE_MAX, .max = _max }
#define NLA_POLICY_MASK(tp, _mask)	{ .type = tp, \
	.validation_type = NLA_VALIDATE_MASK, .mask = _mask }
#define NLA_POLICY_VALIDATE_FN(tp, fn, ...)	{ .type = tp, \
	.validation_type = NLA_VALIDATE_FUNCTION, .validate = fn, .len = 0 }

#endif
