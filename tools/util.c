// SPDX-License-Identifier: GPL-2.0
/*
 * Command-line helpers.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ktgen.h"

/* What a usage error is about, when not the command line itself (a job's
 * variant): its prefix.
 */
const char *usage_context;

const char *host_path(const char *path, char *buf, size_t len)
{
	const char *root = getenv("KTGEN_SYSROOT");

	if (!root || !root[0])
		return path;
	snprintf(buf, len, "%s%s", root, path);
	return buf;
}

FILE *host_fopen(const char *path)
{
	char buf[PATH_MAX];

	return fopen(host_path(path, buf, sizeof(buf)), "re");
}

/* The first line of a small /proc or /sys file, without its newline, in
 * @buf (empty when the file is missing or empty): one open, one read and
 * a close, where stdio takes five calls (a run reads ~150 such files, and
 * a system call is milliseconds in a debug kernel's guest). 0 or -errno.
 */
int read_first_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, err = 0;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* read_first_line() of @path under KTGEN_SYSROOT. */
int host_read_line(const char *path, char *buf, size_t len)
{
	char tmp[PATH_MAX];

	return read_first_line(host_path(path, tmp, sizeof(tmp)), buf, len);
}

/* For writing a /proc or /sys setting (truncating a test's plain file). */
int host_open_write(const char *path)
{
	char buf[PATH_MAX];

	return open(host_path(path, buf, sizeof(buf)), O_WRONLY | O_TRUNC | O_CLOEXEC);
}

DIR *host_opendir(const char *path)
{
	char buf[PATH_MAX];

	return opendir(host_path(path, buf, sizeof(buf)));
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ktgen: ", stderr);
	if (usage_context)
		fprintf(stderr, "%s: ", usage_context);
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

int parse_u32(const char *s, uint32_t *v)
{
	uint64_t x;

	if (parse_u64(s, &x))
		return -EINVAL;
	if (x > UINT32_MAX)
		return -ERANGE;
	*v = x;
	return 0;
}

int parse_size_u32(const char *s, uint32_t *v)
{
	uint64_t x;
	int err;

	err = parse_size(s, &x);
	if (err)
		return err;
	if (x > UINT32_MAX)
		return -ERANGE;
	*v = x;
	return 0;
}

/* 0 to 65535; 0 is left for the kernel to refuse. */
int parse_port(const char *s, uint16_t *port)
{
	uint64_t x;

	if (parse_u64(s, &x) || x > UINT16_MAX)
		return -EINVAL;
	*port = x;
	return 0;
}

/* Microseconds ("50", "50us"), or milliseconds or seconds with their unit
 * ("2ms", "1s"), below 2^32 us.
 */
int parse_usecs(const char *s, uint32_t *us)
{
	static const struct { const char *unit; uint64_t mult; } units[] = {
		{ "", 1 }, { "us", 1 }, { "ms", 1000 }, { "s", 1000000 },
	};
	uint64_t x = 0;
	const char *p = s;
	size_t i;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		x = x * 10 + (*p - '0');
		if (x > UINT32_MAX)
			return -ERANGE;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(p, units[i].unit))
			continue;
		if (x > UINT32_MAX / units[i].mult)
			return -ERANGE;
		*us = x * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

/* Seconds, possibly fractional ("0.5", "10"), to milliseconds; a fraction
 * of a millisecond rounds up.
 */
int parse_secs_ms(const char *s, uint32_t *ms)
{
	uint64_t whole = 0, frac = 0, scale = 1000;
	bool digits = false, rest = false;
	const char *p = s;

	for (; isdigit((unsigned char)*p); p++, digits = true) {
		whole = whole * 10 + (*p - '0');
		if (whole > UINT32_MAX)
			return -ERANGE;
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, digits = true) {
			if (scale > 1) {
				scale /= 10;
				frac += (*p - '0') * scale;
			} else if (*p != '0') {
				rest = true;
			}
		}
	}
	if (!digits || *p)
		return -EINVAL;
	whole = whole * 1000 + frac + rest;
	if (whole > UINT32_MAX)
		return -ERANGE;
	*ms = whole;
	return 0;
}

static void cpu_set(uint8_t *mask, unsigned long cpu)
{
	mask[cpu / 8] |= 1U << (cpu % 8);
}

static bool cpu_isset(const uint8_t *mask, size_t cpu)
{
	return mask[cpu / 8] & (1U << (cpu % 8));
}

/* One "N" or "N-M" at @s; @end gets what follows. */
static int parse_cpurange(const char *s, unsigned long *lo, unsigned long *hi,
			  const char **end)
{
	char *e;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	*lo = strtoul(s, &e, 10);
	*hi = *lo;
	if (*e == '-') {
		s = e + 1;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		*hi = strtoul(s, &e, 10);
	}
	*end = e;
	return *hi < *lo ? -EINVAL : 0;
}

/* "0-3,5" to a CPU bitmap of at most @size bytes; @len gets the bytes in
 * use (up to the highest CPU).
 */
int parse_cpulist(const char *s, uint8_t *mask, size_t size, size_t *len)
{
	unsigned long lo, hi, cpu;
	const char *end;
	int err;

	memset(mask, 0, size);
	*len = 0;
	for (;;) {
		err = parse_cpurange(s, &lo, &hi, &end);
		if (err)
			return err;
		if (hi >= size * 8)
			return -ERANGE;
		for (cpu = lo; cpu <= hi; cpu++)
			cpu_set(mask, cpu);
		if (hi / 8 + 1 > *len)
			*len = hi / 8 + 1;
		if (!*end)
			return 0;
		if (*end != ',')
			return -EINVAL;
		s = end + 1;
	}
}

/* The reverse: "0-3,5", or "" for an empty mask; truncated output ends
 * in "...".
 */
const char *format_cpulist(const uint8_t *mask, size_t len, char *buf, size_t size)
{
	size_t cpu, last, n = 0;
	char item[48];

	buf[0] = '\0';
	for (cpu = 0; cpu < len * 8; cpu = last + 1) {
		last = cpu;
		if (!cpu_isset(mask, cpu))
			continue;
		while (last + 1 < len * 8 && cpu_isset(mask, last + 1))
			last++;
		if (last > cpu)
			snprintf(item, sizeof(item), "%s%zu-%zu", n ? "," : "", cpu, last);
		else
			snprintf(item, sizeof(item), "%s%zu", n ? "," : "", cpu);
		if (n + strlen(item) + 4 > size) {
			snprintf(buf + n, size - n, "...");
			break;
		}
		n += snprintf(buf + n, size - n, "%s", item);
	}
	return buf;
}

int parse_addr(const char *s, struct ktg_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->bytes) == 1) {
		a->family = AF_INET;
		a->len = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->bytes) == 1) {
		a->family = AF_INET6;
		a->len = 16;
		return 0;
	}
	return -EINVAL;
}

/* "10.0.0.1" or "fe80::1" from 4 or 16 bytes; "?" for any other length. */
const char *format_addr(const void *bytes, size_t len, char *buf, size_t size)
{
	int af = len == 4 ? AF_INET : len == 16 ? AF_INET6 : 0;

	if (!af || !inet_ntop(af, bytes, buf, size))
		snprintf(buf, size, "?");
	return buf;
}

/* "10.0.0.1:5001", "[fe80::1]:5001", or "*:5001" without an address. */
const char *format_endpoint(const void *bytes, size_t len, uint16_t port,
			    char *buf, size_t size)
{
	char addr[INET6_ADDRSTRLEN];

	if (!bytes)
		snprintf(buf, size, "*:%u", port);
	else if (len == 16)
		snprintf(buf, size, "[%s]:%u", format_addr(bytes, len, addr, sizeof(addr)), port);
	else
		snprintf(buf, size, "%s:%u", format_addr(bytes, len, addr, sizeof(addr)), port);
	return buf;
}

uint64_t rate_bps(uint64_t bytes, uint64_t ns)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 bps;

	if (!ns)
		return 0;
	bps = (unsigned __int128)bytes * 8 * 1000000000 / ns;
	return bps > UINT64_MAX ? UINT64_MAX : (uint64_t)bps;
#else
	long double bps;

	if (!ns)
		return 0;
	bps = (long double)bytes * 8e9L / ns;
	return bps >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)bps;
#endif
}

/* Index of @s in @names, or -1. */
int lookup_name(const char *s, const char * const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(s, names[i]))
			return i;
	return -1;
}

/* "ID" or, where @all_ok, "all" as the one argument of @cmd. */
int parse_id_arg(const char *cmd, int argc, char **argv, bool all_ok,
		 bool *all, uint32_t *id)
{
	*all = false;
	if (argc > 1) {
		usage_error("%s: unexpected '%s'", cmd, argv[1]);
		return -1;
	}
	if (argc < 1) {
		usage_error("%s: which id%s?", cmd, all_ok ? " (or all)" : "");
		return -1;
	}
	if (all_ok && !strcmp(argv[0], "all")) {
		*all = true;
		return 0;
	}
	if (parse_u32(argv[0], id)) {
		usage_error("%s: '%s' is not an id", cmd, argv[0]);
		return -1;
	}
	return 0;
}

/*
 * netperf's service demand is CPU utilisation times the number of CPUs
 * times the elapsed time, in microseconds, per KB (1024 bytes) moved: the
 * busy time of the group in us per KB.
 */
void cpu_cost(uint64_t busy_ns, uint64_t cycles, uint32_t cpus, uint64_t window_ns,
	      uint64_t bytes, uint64_t msgs, struct cpu_cost *c)
{
	double window = (double)window_ns * cpus;

	c->util_pct = window > 0 ? 100.0 * (double)busy_ns / window : 0;
	c->cycles_per_byte = bytes ? (double)cycles / (double)bytes : 0;
	c->cycles_per_msg = msgs ? (double)cycles / (double)msgs : 0;
	c->us_per_kb = bytes ? ((double)busy_ns / 1e3) / ((double)bytes / 1024) : 0;
}

void *user_mem_map(uint64_t len)
{
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "ktgen: cannot map %llu bytes of user memory: %s\n",
			(unsigned long long)len, strerror(errno));
		return NULL;
	}
	return p;
}
