// SPDX-License-Identifier: GPL-2.0
/*
 * Knobs in files: XPS and RPS (per-queue CPU masks in sysfs), interrupt
 * affinity (/proc/irq/N/smp_affinity_list), busy polling (net.core
 * sysctls), the device's driver's module parameters (e1000e's copybreak). A device in another namespace is seen through the sysfs knobs.c
 * mounts for it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "ktgen.h"
#include "knob.h"
#include "nl.h"
#include "print.h"

/* --- XPS and RPS: per-queue CPU masks in sysfs ------------------------- */

/* The queues of a kind ("tx", "rx") the device has in sysfs; @say: why
 * there are none. A kernel without RPS (CONFIG_RPS needs SMP: User-Mode
 * Linux, say) has no rx queues there.
 */
int queue_count(const struct knob *k, const char *kind, bool say)
{
	char path[128];
	int n;

	for (n = 0; n < 4096; n++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/%s-%d", k->ifname, kind, n);
		if (access(path, F_OK))
			break;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", k->ifname);
	if (!n && say && access(path, F_OK))
		fprintf(stderr, "Error: %s: no %s queues in /sys/class/net (no such device?)\n",
			k->ifname, kind);
	else if (!n && say)
		fprintf(stderr, "Error: %s: no %s queues in /sys/class/net: %s\n", k->ifname, kind,
			strcmp(kind, "rx") ? "none in sysfs" : "this kernel has no RPS (CONFIG_RPS)");
	return n;
}

static const char *queue_file(const struct knob *k)
{
	return !strcmp(k->type->kw, "xps") ? "tx-%d/xps_cpus" : "rx-%d/rps_cpus";
}

/* A sysfs CPU mask ("00000000,00000003") into a CPU bitmap. */
static int mask_parse(const char *s, uint8_t *mask, size_t size)
{
	size_t nd = 0, bit;
	const char *p;

	memset(mask, 0, size);
	for (p = s + strlen(s); p-- > s; ) {
		int d;

		if (*p == ',' || *p == '\n')
			continue;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			return -1;
		for (bit = 0; bit < 4; bit++)
			if (d & (1 << bit) && (nd * 4 + bit) / 8 < size)
				mask[(nd * 4 + bit) / 8] |= 1 << ((nd * 4 + bit) % 8);
		nd++;
	}
	return 0;
}

/* A CPU bitmap as the kernel parses masks: 32-bit words, commas. */
static void mask_format(const uint8_t *mask, size_t size, char *buf, size_t len)
{
	size_t words = 1, w, n = 0;

	for (w = 0; w * 4 < size; w++)
		if (mask[w * 4] | mask[w * 4 + 1] | mask[w * 4 + 2] | mask[w * 4 + 3])
			words = w + 1;
	for (w = words; w-- > 0; )
		n += snprintf(buf + n, len > n ? len - n : 0, "%s%02x%02x%02x%02x",
			      w + 1 < words ? "," : "", mask[w * 4 + 3], mask[w * 4 + 2],
			      mask[w * 4 + 1], mask[w * 4]);
}

/* The CPUs in the file @path: a sysfs mask (@hex) or a CPU list. */
static int read_cpus(const struct knob *k, const char *path, bool hex, uint8_t *mask,
		     size_t size)
{
	char buf[KTG_CPULIST_LEN];
	FILE *f = host_fopen(path);
	size_t len;
	int err;

	buf[0] = 0;
	if (f && fgets(buf, sizeof(buf), f))
		buf[strcspn(buf, "\n")] = 0;
	err = !f || (hex ? mask_parse(buf, mask, size) : parse_cpulist(buf, mask, size, &len));
	if (err)
		fprintf(stderr, "Error: %s: %s: %s: %s\n", k->ifname, k->type->kw, path,
			f ? "unreadable" : strerror(errno));
	if (f)
		fclose(f);
	return err ? -1 : 0;
}

/* "q0=0-1 q1=2 q2=none": each queue's CPUs. */
static int queues_get(const struct knob *k, char *val, size_t len)
{
	int q, nq = queue_count(k, !strcmp(k->type->kw, "xps") ? "tx" : "rx", true);
	uint8_t mask[KTG_CPUMASK_BYTES];
	char path[160], fmt[64], list[KTG_CPULIST_LEN];
	size_t n = 0;

	if (!nq)
		return -1;
	for (q = 0; q < nq; q++) {
		snprintf(fmt, sizeof(fmt), "/sys/class/net/%%s/queues/%s", queue_file(k));
		snprintf(path, sizeof(path), fmt, k->ifname, q);
		if (read_cpus(k, path, true, mask, sizeof(mask)))
			return -1;
		format_cpulist(mask, sizeof(mask), list, sizeof(list));
		n += snprintf(val + n, len > n ? len - n : 0, "%sq%d=%s", q ? " " : "", q,
			      *list ? list : "none");
	}
	if (n >= len) {
		fprintf(stderr, "Error: %s: %s: %d queues, too many to record\n", k->ifname,
			k->type->kw, nq);
		return -1;
	}
	return 0;
}

static int queues_set(const struct knob *k, const char *val)
{
	uint8_t mask[KTG_CPUMASK_BYTES];
	char path[160], fmt[64], hex[KTG_CPUMASK_BYTES * 3];
	const char *p = val;
	size_t mlen;
	int q, fd;

	snprintf(fmt, sizeof(fmt), "/sys/class/net/%%s/queues/%s", queue_file(k));
	while (sscanf(p, "q%d=", &q) == 1) {
		char list[KTG_CPULIST_LEN];
		const char *end = strchr(p, ' ');
		size_t l = end ? (size_t)(end - p) : strlen(p);
		const char *eq = strchr(p, '=') + 1;

		snprintf(list, sizeof(list), "%.*s", (int)(l - (eq - p)), eq);
		memset(mask, 0, sizeof(mask));
		if (strcmp(list, "none") && parse_cpulist(list, mask, sizeof(mask), &mlen))
			return -1;
		mask_format(mask, sizeof(mask), hex, sizeof(hex));
		snprintf(path, sizeof(path), fmt, k->ifname, q);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, hex, strlen(hex)) < 0) {
			fprintf(stderr, "Error: %s: %s %s: writing %s to %s: %s\n", k->ifname,
				k->type->kw, list, hex, path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
		p += l;
		while (*p == ' ')
			p++;
	}
	return 0;
}

/* The online CPUs, from sysfs, into @mask; the count. */
static int online_cpus(uint8_t *mask, size_t size)
{
	char buf[KTG_CPULIST_LEN];
	size_t len, i;
	int n = 0;
	FILE *f;

	f = fopen("/sys/devices/system/cpu/online", "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	if (parse_cpulist(buf, mask, size, &len))
		return -1;
	for (i = 0; i < size * 8; i++)
		n += !!(mask[i / 8] & (1 << (i % 8)));
	return n;
}

/*
 * xps off: no queue has CPUs. xps CPULIST: the listed CPUs dealt to the
 * transmit queues in turn (queue q gets the q-th, q+N-th, ...), as drivers
 * map them at open; xps default: that with every online CPU. rps off or
 * rps CPULIST: every receive queue steers to all the CPUs listed. Queue
 * counts come from the device when the knob is applied.
 */
static int want_queues(struct knob *k, const char *arg)
{
	if (arg[0] == 'q' && strchr(arg, '=')) {
		/* Per queue, as dev set and a run's knobs record them. */
	} else if (strcmp(arg, "off") && strcmp(arg, "default")) {
		uint8_t mask[KTG_CPUMASK_BYTES];
		size_t len;

		if (parse_cpulist(arg, mask, sizeof(mask), &len)) {
			usage_error("%s: off%s or a CPU list, not '%s'", k->type->kw,
				    !strcmp(k->type->kw, "xps") ? ", default" : "", arg);
			return -1;
		}
	} else if (!strcmp(arg, "default") && strcmp(k->type->kw, "xps")) {
		usage_error("rps: off or a CPU list, not '%s'", arg);
		return -1;
	}
	/* Resolved per queue by queues_resolve() once the device is known. */
	snprintf(k->want, sizeof(k->want), "%s", arg);
	return 0;
}

static int queues_resolve(struct knob *k)
{
	uint8_t cpus[KTG_CPUMASK_BYTES], q_mask[KTG_CPUMASK_BYTES];
	char list[KTG_CPULIST_LEN], out[KNOB_VAL_LEN];
	bool xps = !strcmp(k->type->kw, "xps");
	int q, nq, c, i;
	size_t len, n = 0;

	if (!strcmp(k->want, "off") || !strcmp(k->want, "none")) {
		memset(cpus, 0, sizeof(cpus));
	} else if (!strcmp(k->want, "default")) {
		if (online_cpus(cpus, sizeof(cpus)) < 0)
			return -1;
	} else if (k->want[0] != 'q') {
		parse_cpulist(k->want, cpus, sizeof(cpus), &len);
	} else {
		return 0;	/* already per queue */
	}
	nq = queue_count(k, xps ? "tx" : "rx", true);
	if (!nq)
		return -1;
	for (q = 0; q < nq; q++) {
		memset(q_mask, 0, sizeof(q_mask));
		for (c = 0, i = 0; c < KTG_CPUS_MAX; c++) {
			if (!(cpus[c / 8] & (1 << (c % 8))))
				continue;
			if (!xps || i++ % nq == q)
				q_mask[c / 8] |= 1 << (c % 8);
		}
		format_cpulist(q_mask, sizeof(q_mask), list, sizeof(list));
		n += snprintf(out + n, sizeof(out) > n ? sizeof(out) - n : 0, "%sq%d=%s",
			      q ? " " : "", q, *list ? list : "none");
	}
	if (n >= sizeof(out)) {
		fprintf(stderr, "Error: %s: %s: %d queues, too many to record\n", k->ifname,
			k->type->kw, nq);
		return -1;
	}
	snprintf(k->want, sizeof(k->want), "%s", out);
	return 0;
}

/* --- IRQ affinity: /proc/irq/N/smp_affinity_list --------------------- */

#define KNOB_IRQS_MAX	512

static int irq_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * The device's interrupts, in order: its MSI vectors, or the one legacy
 * line a device without them has. 0 (after a message) when it has none a
 * CPU could be chosen for: a virtual device, a namespace's view.
 */
static int dev_irq_list(const struct knob *k, int *irqs, int max)
{
	char path[160], line[32];
	struct dirent *de;
	int n = 0, irq;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/msi_irqs", k->ifname);
	dir = host_opendir(path);
	while (dir && (de = readdir(dir)) && n < max) {
		char *end;
		long v = strtol(de->d_name, &end, 10);

		if (de->d_name[0] >= '0' && de->d_name[0] <= '9' && !*end && v < INT_MAX)
			irqs[n++] = (int)v;
	}
	if (dir)
		closedir(dir);
	if (!n) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/device/irq", k->ifname);
		f = host_fopen(path);
		if (f && fgets(line, sizeof(line), f) && sscanf(line, "%d", &irq) == 1 && irq > 0)
			irqs[n++] = irq;
		if (f)
			fclose(f);
	}
	if (!n)
		fprintf(stderr, "Error: %s: irq-affinity: no interrupts in /sys/class/net/%s/device (a virtual device?)\n",
			k->ifname, k->ifname);
	qsort(irqs, n, sizeof(*irqs), irq_cmp);
	return n;
}

/* "irq45=0-1 irq46=2": each interrupt's CPUs, as the kernel lists them. */
static int irqs_get(const struct knob *k, char *val, size_t len)
{
	uint8_t mask[KTG_CPUMASK_BYTES];
	char path[64], list[KTG_CPULIST_LEN];
	int irqs[KNOB_IRQS_MAX], n, i;
	size_t used = 0;

	n = dev_irq_list(k, irqs, KNOB_IRQS_MAX);
	if (!n)
		return -1;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irqs[i]);
		if (read_cpus(k, path, false, mask, sizeof(mask)))
			return -1;
		format_cpulist(mask, sizeof(mask), list, sizeof(list));
		used += snprintf(val + used, len > used ? len - used : 0, "%sirq%d=%s",
				 i ? " " : "", irqs[i], list);
	}
	if (used >= len) {
		fprintf(stderr, "Error: %s: irq-affinity: %d interrupts, too many to record\n",
			k->ifname, n);
		return -1;
	}
	return 0;
}

static int irqs_set(const struct knob *k, const char *val)
{
	const char *p = val;
	char path[64];
	int irq, fd;

	while (sscanf(p, "irq%d=", &irq) == 1) {
		const char *eq = strchr(p, '=') + 1;
		size_t l = strcspn(eq, " ");
		char list[KTG_CPULIST_LEN];

		snprintf(list, sizeof(list), "%.*s", (int)l, eq);
		snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq);
		fd = host_open_write(path);
		if (fd < 0 || write(fd, list, strlen(list)) < 0) {
			int e = errno;

			fprintf(stderr, "Error: %s: irq-affinity: writing %s to %s: %s%s\n",
				k->ifname, list, path, strerror(e),
				e == EIO ? " (a kernel-managed interrupt: it follows its queue's CPUs)" :
				e == EINVAL ? " (none of those CPUs online, or not allowed)" : "");
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
		p = eq + l;
		p += strspn(p, " ");
	}
	return 0;
}

/* irq-affinity CPULIST: every interrupt of the device to those CPUs. */
static int want_irqs(struct knob *k, const char *arg)
{
	uint8_t mask[KTG_CPUMASK_BYTES];
	size_t len;

	if (!strncmp(arg, "irq", 3) && strchr(arg, '=')) {
		/* per interrupt, as a run's knobs record them */
	} else if (parse_cpulist(arg, mask, sizeof(mask), &len) || !len) {
		usage_error("irq-affinity: a CPU list, not '%s'", arg);
		return -1;
	}
	snprintf(k->want, sizeof(k->want), "%s", arg);
	return 0;
}

static int irqs_resolve(struct knob *k)
{
	uint8_t mask[KTG_CPUMASK_BYTES];
	char list[KTG_CPULIST_LEN], out[KNOB_VAL_LEN];
	int irqs[KNOB_IRQS_MAX], n, i;
	size_t used = 0, len;

	if (!strncmp(k->want, "irq", 3))
		return 0;
	parse_cpulist(k->want, mask, sizeof(mask), &len);
	format_cpulist(mask, sizeof(mask), list, sizeof(list));
	n = dev_irq_list(k, irqs, KNOB_IRQS_MAX);
	if (!n)
		return -1;
	for (i = 0; i < n; i++)
		used += snprintf(out + used, sizeof(out) > used ? sizeof(out) - used : 0,
				 "%sirq%d=%s", i ? " " : "", irqs[i], list);
	if (used >= sizeof(out)) {
		fprintf(stderr, "Error: %s: irq-affinity: %d interrupts, too many to record\n",
			k->ifname, n);
		return -1;
	}
	snprintf(k->want, sizeof(k->want), "%s", out);
	return 0;
}

/* --- busy polling: global sysctls --------------------------------------- */

static int sysctl_path(const struct knob *k, char *path, size_t len)
{
	return snprintf(path, len, "/proc/sys/net/core/%s",
			!strcmp(k->type->kw, "busy-poll") ? "busy_poll" : "busy_read");
}

static int sysctl_get(const struct knob *k, char *val, size_t len)
{
	char path[64];
	FILE *f;

	sysctl_path(k, path, sizeof(path));
	f = fopen(path, "r");
	if (!f || !fgets(val, len, f)) {
		fprintf(stderr, "Error: %s: %s%s\n", k->type->kw, path,
			errno == ENOENT ? ": global, only in the initial network namespace" : "");
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	val[strcspn(val, "\n")] = 0;
	return 0;
}

static int sysctl_set(const struct knob *k, const char *val)
{
	char path[64];
	int fd, err = 0;

	sysctl_path(k, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		err = -1;
	if (err)
		fprintf(stderr, "Error: %s: writing %s to %s: %s\n", k->type->kw, val, path,
			strerror(errno));
	if (fd >= 0)
		close(fd);
	return err;
}

/* --- the driver's module parameters: /sys/module/MOD/parameters/NAME --- */

/*
 * A parameter of the device's driver module that the driver reads while it
 * runs (e1000e and e1000 read copybreak for every frame received). It is
 * the module's, not the device's: every device of that driver sees it for
 * as long as it is set. Its path into @path; -1 after a message.
 */
static int param_path(const struct knob *k, char *path, size_t len, char *mod, size_t mlen)
{
	char at[128], dev[128], tmp[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(at, sizeof(at), "/sys/class/net/%s/device/driver/module", k->ifname);
	n = readlink(host_path(at, tmp, sizeof(tmp)), link, sizeof(link) - 1);
	if (n < 0) {
		int e = errno;

		snprintf(dev, sizeof(dev), "/sys/class/net/%s", k->ifname);
		if (e == ENOENT && access(host_path(dev, tmp, sizeof(tmp)), F_OK))
			fprintf(stderr, "Error: %s: param %s: no such device\n", k->ifname, k->name);
		else
			fprintf(stderr, "Error: %s: param %s: %s\n", k->ifname, k->name,
				e == ENOENT ? "the device has no driver module (a virtual device?)" :
				strerror(e));
		return -1;
	}
	link[n] = 0;
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (!*base || strlen(base) >= mlen || !strcmp(base, "..") || !strcmp(base, ".")) {
		fprintf(stderr, "Error: %s: param %s: the driver's module link says '%.64s'\n",
			k->ifname, k->name, link);
		return -1;
	}
	memcpy(mod, base, strlen(base) + 1);
	snprintf(path, len, "/sys/module/%s/parameters/%s", mod, k->name);
	return 0;
}

/* The parameters @mod has, for a message: "a, b, c" (at most @len). */
static void param_names(const char *mod, char *out, size_t len)
{
	char dir[128];
	struct dirent *e;
	size_t used = 0;
	DIR *d;

	*out = 0;
	snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", mod);
	d = host_opendir(dir);
	while (d && (e = readdir(d)) && used < len)
		if (e->d_name[0] != '.')
			used += snprintf(out + used, len - used, "%s%s", used ? ", " : "", e->d_name);
	if (d)
		closedir(d);
}

/* The value of the parameter at @path (param_path()'s). */
static int param_read(const struct knob *k, const char *path, const char *mod,
		      char *val, size_t len)
{
	char names[256];
	int err;

	err = host_read_line(path, val, len);
	if (err == -ENOENT) {
		param_names(mod, names, sizeof(names));
		fprintf(stderr, "Error: %s: param %s: %s has no parameter '%s' (%s%s)\n", k->ifname,
			k->name, mod, k->name, *names ? "it has: " : "it has none", names);
		return -1;
	}
	if (err) {
		fprintf(stderr, "Error: %s: param %s: %s: %s\n", k->ifname, k->name, path,
			strerror(-err));
		return -1;
	}
	return 0;
}

static int param_get(const struct knob *k, char *val, size_t len)
{
	char path[192], mod[64];

	if (param_path(k, path, sizeof(path), mod, sizeof(mod)))
		return -1;
	return param_read(k, path, mod, val, len);
}

/* A bool as the kernel reads one (kstrtobool()): 1, 0 or -1 for neither. */
static int param_bool(const char *s)
{
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		return 1;
	case 'n': case 'N': case 'f': case 'F': case '0':
		return 0;
	case 'o': case 'O':
		return s[1] == 'n' || s[1] == 'N' ? 1 : s[1] == 'f' || s[1] == 'F' ? 0 : -1;
	}
	return -1;
}

/* The parameter reads back as the kernel prints it: a number in decimal,
 * a bool as Y or N.
 */
static bool param_same(const char *want, const char *got)
{
	char *e1, *e2;
	long long a, b;

	if (!strcmp(want, got))
		return true;
	if (!strcmp(got, "Y") || !strcmp(got, "N"))
		return param_bool(want) == (got[0] == 'Y');
	errno = 0;
	a = strtoll(want, &e1, 0);
	b = strtoll(got, &e2, 0);
	return !errno && *want && *got && !*e1 && !*e2 && a == b;
}


/* A parameter of mode 0444 is the module's for its life: named as such,
 * before a run (check) and where one is set, rather than as EACCES.
 */
static int param_writable(const struct knob *k, const char *path, const char *mod)
{
	char tmp[PATH_MAX];
	struct stat st;

	if (stat(host_path(path, tmp, sizeof(tmp)), &st)) {
		fprintf(stderr, "Error: %s: param %s: %s: %s\n", k->ifname, k->name, path,
			strerror(errno));
		return -1;
	}
	if (st.st_mode & 0222)
		return 0;
	fprintf(stderr, "Error: %s: param %s: %s's %s is read-only: it is set when the module loads (modprobe %s %s=...)\n",
		k->ifname, k->name, mod, k->name, mod, k->name);
	return -1;
}

static int param_check(struct knob *k)
{
	char path[192], mod[64], val[64];

	if (param_path(k, path, sizeof(path), mod, sizeof(mod)) ||
	    param_read(k, path, mod, val, sizeof(val)))
		return -1;
	/* already as wanted: nothing will be written */
	return param_same(k->want, val) ? 0 : param_writable(k, path, mod);
}

static int param_set(const struct knob *k, const char *val)
{
	char path[192], mod[64];
	int fd, err = 0;

	if (param_path(k, path, sizeof(path), mod, sizeof(mod)) ||
	    param_writable(k, path, mod))
		return -1;
	fd = host_open_write(path);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		err = -1;
	if (err)
		fprintf(stderr, "Error: %s: param %s: writing %s to %s: %s\n", k->ifname,
			k->name, val, path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return err;
}

/* A value as a parameter's file takes it: a word of letters, digits and
 * ".,:+-_" (numbers, Y/N, a list), no path, no newline.
 */
static int want_param(struct knob *k, const char *arg)
{
	size_t n = strlen(arg), m = strlen(k->name);

	if (!m || strspn(k->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_") != m) {
		usage_error("param: a parameter's name (letters, digits, _), not '%s'", k->name);
		return -1;
	}
	if (!n || n > 64 || strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789.,:+-_") != n) {
		usage_error("param %s: a value of letters, digits and .,:+-_ (at most 64), not '%s'",
			    k->name, arg);
		return -1;
	}
	snprintf(k->want, sizeof(k->want), "%s", arg);
	return 0;
}

/* Resolved, a value lists one entry per queue ("q0 0-1 q1 2") or
 * interrupt ("irq24 0-1 ..."): each asked for must be there.
 */
static bool queues_same(const char *want, const char *got)
{
	return *want == 'q' ? knob_entries_same(want, got) : !strcmp(want, got);
}

static bool irqs_same(const char *want, const char *got)
{
	return !strncmp(want, "irq", 3) ? knob_entries_same(want, got) : !strcmp(want, got);
}

const struct knob_type knob_types_sysfs[] = {
	{ "xps",	false,	false,	false,	queues_get,	queues_set,	want_queues,
	  .resolve = queues_resolve, .same = queues_same },
	{ "rps",	false,	false,	false,	queues_get,	queues_set,	want_queues,
	  .resolve = queues_resolve, .same = queues_same },
	{ "busy-poll",	false,	false,	true,	sysctl_get,	sysctl_set,	want_u32 },
	{ "busy-read",	false,	false,	true,	sysctl_get,	sysctl_set,	want_u32 },
	{ "irq-affinity", false, false,	false,	irqs_get,	irqs_set,	want_irqs,
	  .resolve = irqs_resolve, .same = irqs_same },
	{ "param",	true,	false,	false,	param_get,	param_set,	want_param,
	  .check = param_check, .same = param_same },
};

const size_t knob_types_sysfs_n = ARRAY_SIZE(knob_types_sysfs);
