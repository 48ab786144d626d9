// SPDX-License-Identifier: GPL-2.0
/*
 * Command-line helpers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ktgen.h"

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ktgen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see 'ktgen help')\n", stderr);
}

bool is_help(const char *arg)
{
	return !strcmp(arg, "help") || !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

/* Decimal or 0x hex, the whole string, no sign. */
int parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

/* Bytes with an optional binary suffix: 64K, 256M, 1G, 1T (or KiB...). */
int parse_size(const char *s, uint64_t *v)
{
	static const struct { const char *sfx; unsigned int shift; } units[] = {
		{ "", 0 }, { "K", 10 }, { "KiB", 10 }, { "M", 20 }, { "MiB", 20 },
		{ "G", 30 }, { "GiB", 30 }, { "T", 40 }, { "TiB", 40 },
	};
	unsigned long long x;
	unsigned int i;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcasecmp(end, units[i].sfx))
			continue;
		if (units[i].shift && x > (UINT64_MAX >> units[i].shift))
			return -ERANGE;
		*v = (uint64_t)x << units[i].shift;
		return 0;
	}
	return -EINVAL;
}

/* Exact binary units where they divide, else bytes: 1G, 1536M, 1000. */
const char *format_size(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int i;

	for (i = 3; i >= 0; i--) {
		unsigned int shift = 10 * (i + 1);

		if (v && !(v & ((1ULL << shift) - 1))) {
			snprintf(buf, len, "%" PRIu64 "%c", v >> shift, units[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}
