// SPDX-License-Identifier: GPL-2.0
/*
 * kmod/policy.c and kmod/nic/policy.c against the specs: built with the
 * kernel's policy types (tests/unit/kinclude) beside the policies the specs
 * generate (scripts/ynl-gen.sh --policy, included as SPEC_POLICY), each
 * attribute of each set is put in words as the kernel would validate it (its
 * type, the values or lengths it takes, what it nests) and the two must say
 * the same. An attribute no request of the spec carries must be refused.
 * KTAP, a case per attribute set; a difference names the attribute.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "nic/policy.h"
#include SPEC_POLICY

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct table {
	const char *set;
	const struct nla_policy *spec;
	const char *const *names;
	unsigned int max;
	const struct nla_policy *kmod;
};

static struct table tables[] = {
#define KTG_SPEC_POLICY(s, p, n, m)	{ s, p, n, m, NULL },
	KTG_SPEC_POLICIES
#undef KTG_SPEC_POLICY
};

/* Each set's table in kmod/policy.c and kmod/nic/policy.c. */
static const struct {
	const char *set;
	const struct nla_policy *policy;
} kmod_tables[] = {
	{ "config", ktg_config_policy },
	{ "sink", ktg_sink_policy },
	{ "run", ktg_run_policy },
	{ "flow", ktg_flow_policy },
	{ "nic", ktg_nic_policy },
};

static int int_bits(unsigned int type, int *is_signed)
{
	*is_signed = 0;
	switch (type) {
	case NLA_U8:
		return 8;
	case NLA_U16:
	case NLA_BE16:
		return 16;
	case NLA_U32:
	case NLA_BE32:
		return 32;
	case NLA_U64:
	case NLA_MSECS:
		return 64;
	case NLA_S8:
		*is_signed = 1;
		return 8;
	case NLA_S16:
		*is_signed = 1;
		return 16;
	case NLA_S32:
		*is_signed = 1;
		return 32;
	case NLA_S64:
		*is_signed = 1;
		return 64;
	}
	return 0;
}

static const char *type_name(unsigned int type)
{
	static const char *const names[] = {
		[NLA_U8] = "u8", [NLA_U16] = "u16", [NLA_U32] = "u32",
		[NLA_U64] = "u64", [NLA_MSECS] = "msecs", [NLA_S8] = "s8",
		[NLA_S16] = "s16", [NLA_S32] = "s32", [NLA_S64] = "s64",
		[NLA_BE16] = "be16", [NLA_BE32] = "be32",
	};

	return type < ARRAY_SIZE(names) && names[type] ? names[type] : "?";
}

/* An integer: the values it takes, as the kernel's range validation does. */
static void say_int(const struct nla_policy *p, char *buf, size_t n)
{
	int sgn, bits = int_bits(p->type, &sgn);
	int64_t smin = sgn ? -(int64_t)(UINT64_MAX >> (65 - bits)) - 1 : 0;
	uint64_t umax = UINT64_MAX >> (64 - bits);
	int64_t smax = (int64_t)(umax >> 1);

	switch (p->validation_type) {
	case NLA_VALIDATE_NONE:
		break;
	case NLA_VALIDATE_RANGE:
	case NLA_VALIDATE_RANGE_WARN_TOO_LONG:
		smin = p->min;
		smax = umax = p->max;
		break;
	case NLA_VALIDATE_MIN:
		smin = p->min;
		break;
	case NLA_VALIDATE_MAX:
		smax = umax = p->max;
		break;
	case NLA_VALIDATE_RANGE_PTR:
		if (sgn) {
			smin = p->range_signed->min;
			smax = p->range_signed->max;
		} else {
			smin = p->range->min;
			umax = p->range->max;
		}
		break;
	case NLA_VALIDATE_MASK:
		snprintf(buf, n, "%s, bits 0x%" PRIx32, type_name(p->type), p->mask);
		return;
	default:
		snprintf(buf, n, "%s, checked by a function", type_name(p->type));
		return;
	}
	if (sgn)
		snprintf(buf, n, "%s %" PRId64 "..%" PRId64, type_name(p->type), smin, smax);
	else
		snprintf(buf, n, "%s %" PRIu64 "..%" PRIu64, type_name(p->type),
			 (uint64_t)smin, umax);
}

/* A binary: the lengths it takes. */
static void say_binary(const struct nla_policy *p, char *buf, size_t n)
{
	uint64_t lo = 0, hi = p->len ? p->len : UINT64_MAX;
	const char *warn = "";

	switch (p->validation_type) {
	case NLA_VALIDATE_NONE:
		break;
	case NLA_VALIDATE_RANGE_WARN_TOO_LONG:
		warn = " (longer only warned)";
		/* fall through */
	case NLA_VALIDATE_RANGE:
		lo = p->min;
		hi = p->max;
		break;
	case NLA_VALIDATE_MIN:
		lo = p->min;
		break;
	case NLA_VALIDATE_MAX:
		hi = p->max;
		break;
	case NLA_VALIDATE_RANGE_PTR:
		lo = p->range->min;
		hi = p->range->max;
		break;
	default:
		snprintf(buf, n, "binary, checked by a function");
		return;
	}
	if (hi == UINT64_MAX)
		snprintf(buf, n, "binary of %" PRIu64 " bytes or more%s", lo, warn);
	else
		snprintf(buf, n, "binary of %" PRIu64 "..%" PRIu64 " bytes%s", lo, hi, warn);
}

static void say(const struct nla_policy *p, char *buf, size_t n)
{
	if (!p) {
		snprintf(buf, n, "refused");
		return;
	}
	switch (p->type) {
	case NLA_UNSPEC:
		if (p->len)
			snprintf(buf, n, "binary of %u bytes or more", p->len);
		else
			snprintf(buf, n, "refused");
		return;
	case NLA_REJECT:
		snprintf(buf, n, "refused");
		return;
	case NLA_FLAG:
		snprintf(buf, n, "flag");
		return;
	case NLA_BINARY:
		say_binary(p, buf, n);
		return;
	case NLA_STRING:
	case NLA_NUL_STRING:
		snprintf(buf, n, "%sstring of at most %u bytes",
			 p->type == NLA_NUL_STRING ? "nul-terminated " : "", p->len);
		return;
	case NLA_NESTED:
	case NLA_NESTED_ARRAY:
		snprintf(buf, n, "%s of %u attributes", p->type == NLA_NESTED ?
			 "nest" : "nest array", p->len);
		return;
	case NLA_BITFIELD32:
		snprintf(buf, n, "bitfield32 0x%" PRIx32, p->bitfield32_valid);
		return;
	}
	if (int_bits(p->type, &(int){0})) {
		say_int(p, buf, n);
		return;
	}
	snprintf(buf, n, "type %u", p->type);
}

/* The policy entry of attribute i of a table that ends at max. */
static const struct nla_policy *entry(const struct nla_policy *t, unsigned int max,
				      unsigned int i)
{
	return t && i <= max ? &t[i] : NULL;
}

static int check(struct table *t)
{
	char want[96], got[96];
	unsigned int i;
	int bad = 0;

	if (!t->kmod) {
		printf("# %s: kmod/policy.c has no table for this set\n", t->set);
		return 1;
	}
	for (i = 1; i <= t->max; i++) {
		say(entry(t->spec, t->max, i), want, sizeof(want));
		say(entry(t->kmod, t->max, i), got, sizeof(got));
		if (strcmp(want, got)) {
			printf("# %s.%s: the spec says %s, kmod says %s\n", t->set,
			       t->names[i] ? t->names[i] : "?", want, got);
			bad = 1;
		}
	}
	return bad;
}

int main(void)
{
	unsigned int i, j;
	int failed = 0;

	for (i = 0; i < ARRAY_SIZE(tables); i++)
		for (j = 0; j < ARRAY_SIZE(kmod_tables); j++)
			if (!strcmp(tables[i].set, kmod_tables[j].set))
				tables[i].kmod = kmod_tables[j].policy;
	printf("KTAP version 1\n1..%zu\n", ARRAY_SIZE(tables));
	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		int bad = check(&tables[i]);

		printf("%s %u policy_%s\n", bad ? "not ok" : "ok", i + 1, tables[i].set);
		failed |= bad;
	}
	return failed;
}
