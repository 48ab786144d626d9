// SPDX-License-Identifier: GPL-2.0
/*
 * The environment of a result: kernel, CPU, the ktgen versions and the
 * module's primitives, and each device that is up (but lo) as dev show
 * reads it (dev.c's snapshot), with its NUMA node and interrupts.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include "dev.h"
#include "env.h"
#include "ktgen.h"
#include "print.h"

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v || strncmp(line, "model name", 10))
			continue;
		v += 1 + strspn(v + 1, " \t");
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, len, "%s", v);
		break;
	}
	fclose(f);
}

static int read_int(const char *path, int def)
{
	FILE *f = host_fopen(path);
	int v;

	if (!f)
		return def;
	if (fscanf(f, "%d", &v) != 1)
		v = def;
	fclose(f);
	return v;
}

/* The device's IFF_UP, from sysfs (of the caller's namespace). */
bool dev_up(const char *name)
{
	char path[PATH_MAX];
	unsigned int flags;
	FILE *f;
	bool up;

	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", name);
	f = host_fopen(path);
	if (!f)
		return false;
	up = fscanf(f, "%x", &flags) == 1 && (flags & IFF_UP);
	fclose(f);
	return up;
}

static void warn(struct env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct env *e, const char *fmt, ...)
{
	va_list ap;

	if (e->nwarnings == ENV_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(e->warn_buf[e->nwarnings], sizeof(e->warn_buf[0]), fmt, ap);
	va_end(ap);
	e->warnings[e->nwarnings] = e->warn_buf[e->nwarnings];
	e->nwarnings++;
}

/* The scaling governor of every online CPU: one name, "mixed" or "". */
static void governor(struct env *e)
{
	char path[PATH_MAX], g[32];
	long cpu;

	e->governor[0] = '\0';
	for (cpu = 0; cpu < e->cpus_online && cpu < 4096; cpu++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_governor", cpu);
		host_read_line(path, g, sizeof(g));
		if (!g[0])
			continue;
		if (!e->governor[0])
			snprintf(e->governor, sizeof(e->governor), "%s", g);
		else if (strcmp(e->governor, g))
			snprintf(e->governor, sizeof(e->governor), "mixed");
	}
}

static bool irqbalance_running(void)
{
	struct dirent *de;
	bool found = false;
	DIR *dir = host_opendir("/proc");

	if (!dir)
		return false;
	while (!found && (de = readdir(dir))) {
		char path[PATH_MAX], comm[32];

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		host_read_line(path, comm, sizeof(comm));
		found = !strcmp(comm, "irqbalance");
	}
	closedir(dir);
	return found;
}

static int cpu_node(int cpu)
{
	char path[PATH_MAX];
	struct dirent *de;
	int node = -1;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	dir = host_opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, "node", 4) && isdigit((unsigned char)de->d_name[4]))
			node = atoi(de->d_name + 4);
	closedir(dir);
	return node;
}

/* "IRQ:CPUS" for each MSI vector of the device, as far as they fit. */
static void dev_irqs(struct env_dev *d)
{
	char path[PATH_MAX], aff[64];
	struct dirent *de;
	size_t used = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/msi_irqs", d->name);
	dir = host_opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		int n;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/irq/%s/smp_affinity_list", de->d_name);
		host_read_line(path, aff, sizeof(aff));
		n = snprintf(d->irqs + used, sizeof(d->irqs) - used, "%s%s:%s",
			     used ? " " : "", de->d_name, aff[0] ? aff : "?");
		if (n < 0 || (size_t)n >= sizeof(d->irqs) - used) {
			d->irqs[used] = '\0';
			break;
		}
		used += n;
	}
	closedir(dir);
}

static bool in_mask(const uint8_t *mask, size_t len, long cpu)
{
	return cpu >= 0 && (size_t)cpu < len * 8 && (mask[cpu / 8] & (1 << (cpu % 8)));
}

static bool cpu_online(long cpu)
{
	char path[PATH_MAX];

	/* no online file: a CPU that cannot go offline (cpu0 mostly) */
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/online", cpu);
	return read_int(path, 1) == 1;
}

/*
 * SMT siblings of the run's CPUs: two of them on one core, or a sibling
 * online beside one (it takes the core's execution units and caches from
 * it). False when no run CPU's topology could be read.
 */
static bool smt_siblings(struct env *e, const uint8_t *cpus, size_t cpus_len)
{
	uint8_t sib[KTG_CPUMASK_BYTES];
	char path[PATH_MAX], list[256];
	bool known = false;
	size_t len;
	long cpu, s;

	for (cpu = 0; cpu < (long)cpus_len * 8; cpu++) {
		if (!in_mask(cpus, cpus_len, cpu))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%ld/topology/thread_siblings_list", cpu);
		host_read_line(path, list, sizeof(list));
		if (!list[0] || parse_cpulist(list, sib, sizeof(sib), &len))
			continue;
		known = true;
		for (s = 0; s < (long)len * 8; s++) {
			if (s == cpu || !in_mask(sib, len, s))
				continue;
			if (in_mask(cpus, cpus_len, s)) {
				warn(e, "run CPUs %ld and %ld are SMT siblings: one core's execution units for both",
				     cpu, s);
				return true;
			}
			if (cpu_online(s)) {
				warn(e, "run CPU %ld shares its core with SMT sibling %ld: pin one thread per core or take %ld offline",
				     cpu, s, s);
				return true;
			}
		}
	}
	return known;
}

/*
 * The deepest idle state a run CPU may enter, when its exit latency is
 * more than ENV_CSTATE_US: a wakeup after idle (a receive after a quiet
 * moment, every transaction of a request/response test) pays it.
 */
static void deep_cstates(struct env *e, const uint8_t *cpus, size_t cpus_len)
{
	char path[PATH_MAX], name[32];
	long cpu;
	int st;

	for (cpu = 0; cpu < (long)cpus_len * 8; cpu++) {
		int deepest = -1, lat = 0;

		if (!in_mask(cpus, cpus_len, cpu))
			continue;
		for (st = 0; st < ENV_CSTATES_MAX; st++) {
			int l;

			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%ld/cpuidle/state%d/latency", cpu, st);
			l = read_int(path, -1);
			if (l < 0)
				break;
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%ld/cpuidle/state%d/disable", cpu, st);
			if (read_int(path, 0) || l <= lat)
				continue;
			deepest = st;
			lat = l;
		}
		if (deepest < 0 || lat <= ENV_CSTATE_US)
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%ld/cpuidle/state%d/name", cpu, deepest);
		host_read_line(path, name, sizeof(name));
		if (lat > e->cstate_us)
			e->cstate_us = lat;
		warn(e, "run CPU %ld may idle in %s (exit latency %d us): a wakeup after idle pays it (cpupower idle-set -D %d)",
		     cpu, name[0] ? name : "a deep C-state", lat, ENV_CSTATE_US);
		return;
	}
}

/* What makes numbers unreliable on this machine, for the run's CPUs. */
void env_preflight(struct env *e, const uint8_t *cpus, size_t cpus_len)
{
	size_t i;
	int cpu;

	governor(e);
	e->boost = read_int("/sys/devices/system/cpu/cpufreq/boost", -1);
	if (e->boost < 0) {
		int no_turbo = read_int("/sys/devices/system/cpu/intel_pstate/no_turbo", -1);

		e->boost = no_turbo < 0 ? -1 : !no_turbo;
	}
	e->smt = read_int("/sys/devices/system/cpu/smt/active", -1);
	e->irqbalance = irqbalance_running();

	if (e->governor[0] && strcmp(e->governor, "performance"))
		warn(e, "cpufreq governor %s, not performance: clock changes move the numbers",
		     e->governor);
	if (e->boost == 1)
		warn(e, "turbo/boost is on: the clock follows temperature and load");
	/* where the run CPUs' topology says nothing, the machine's switch */
	if (!smt_siblings(e, cpus, cpus_len) && e->smt == 1)
		warn(e, "SMT is on: sibling threads share a core (pin one thread per core)");
	deep_cstates(e, cpus, cpus_len);
	if (e->irqbalance)
		warn(e, "irqbalance is running: it may move device interrupts mid-run");
	for (i = 0; i < e->ndevs; i++) {
		const struct env_dev *d = &e->devs[i];

		if (d->numa_node < 0)
			continue;
		for (cpu = 0; cpu < (int)cpus_len * 8; cpu++) {
			int node;

			if (!in_mask(cpus, cpus_len, cpu))
				continue;
			node = cpu_node(cpu);
			if (node >= 0 && node != d->numa_node) {
				warn(e, "%s is on NUMA node %d, run CPU %d on node %d",
				     d->name, d->numa_node, cpu, node);
				break;
			}
		}
	}
}

/*
 * TCP streams of many flows: a sender's worker gives each flow a turn in
 * order, so with hundreds of flows a flow's next turn comes after its RTO,
 * and a kernel that restarts an idle flow's window (@ssai_path reads 1)
 * starts each turn from the initial window: small packets, less in total
 * (bench-scale: 1000 flows at 0.59 of the 10-flow total, 0.99 without the
 * restart and with initcwnd 64 on the route).
 */
void env_check_flows(struct env *e, uint32_t flows, const char *ssai_path)
{
	if (flows < ENV_MANY_FLOWS || read_int(ssai_path, -1) != 1)
		return;
	warn(e, "%u flows take turns: tcp_slow_start_after_idle=1 restarts each flow's window whenever a turn comes after its RTO",
	     flows);
}

void env_collect(struct env *e, const uint8_t *cpus, size_t cpus_len)
{
	static const uint8_t cpu0 = 1;
	struct dirent *de;
	DIR *dir;

	uname(&e->uts);
	cpu_model(e->cpu_model, sizeof(e->cpu_model));
	e->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	if (!cpus_len) {	/* the kernel's default: the first online CPU */
		cpus = &cpu0;
		cpus_len = 1;
	}
	dir = host_opendir("/sys/class/net");
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char path[PATH_MAX];
		struct env_dev *d;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "lo") ||
		    strlen(de->d_name) >= IFNAMSIZ || !dev_up(de->d_name))
			continue;
		d = realloc(e->devs, (e->ndevs + 1) * sizeof(*d));
		if (!d)
			break;
		e->devs = d;
		d += e->ndevs++;
		memset(d, 0, sizeof(*d));
		memcpy(d->name, de->d_name, strlen(de->d_name) + 1);
		d->snap = dev_snap_read(d->name, NULL);
		snprintf(path, sizeof(path), "/sys/class/net/%s/device/numa_node", d->name);
		d->numa_node = read_int(path, -1);
		dev_irqs(d);
	}
	closedir(dir);
	env_preflight(e, cpus, cpus_len);
}

/* Text: one line per warning, under the result. */
void env_print_warnings(const struct env *e)
{
	int i;

	for (i = 0; i < e->nwarnings; i++)
		print_text("  warning: %s\n", e->warnings[i]);
}

void env_free(struct env *e)
{
	size_t i;

	for (i = 0; i < e->ndevs; i++)
		dev_snap_free(e->devs[i].snap);
	free(e->devs);
	e->devs = NULL;
	e->ndevs = 0;
}

void env_print(const struct env *e)
{
	const struct module_info *m = &e->module;
	size_t i;

	print_open_object("environment");
	print_string(PRINT_JSON, "kernel", NULL, e->uts.release);
	print_string(PRINT_JSON, "machine", NULL, e->uts.machine);
	print_string(PRINT_JSON, "hostname", NULL, e->uts.nodename);
	print_string(PRINT_JSON, "cpu_model", NULL, e->cpu_model);
	print_u64(PRINT_JSON, "cpus_online", NULL, e->cpus_online > 0 ? e->cpus_online : 0);
	print_string(PRINT_JSON, "ktgen_cli", NULL, KTGEN_VERSION);
	if (m->valid) {
		print_open_object("module");
		print_string(PRINT_JSON, "version", NULL, m->version);
		print_u64(PRINT_JSON, "abi_version", NULL, m->abi_version);
		print_string(PRINT_JSON, "nocache_impl", NULL, m->nocache_impl);
		print_string(PRINT_JSON, "page_send", NULL, m->page_send);
		print_bool(PRINT_JSON, "pmu", NULL, m->pmu);
		print_string(PRINT_JSON, "splice_selftest", NULL, m->splice_tcp);
		print_string(PRINT_JSON, "splice_selftest_udp", NULL, m->splice_udp);
		print_string(PRINT_JSON, "splice_selftest_udp6", NULL, m->splice_udp6);
		print_close_object();
	}
	print_open_object("devices");
	for (i = 0; i < e->ndevs; i++) {
		const struct env_dev *d = &e->devs[i];

		/* What `ktgen dev show -j` says of it, and where it sits. */
		print_open_object(d->name);
		if (d->snap)
			dev_snap_print(d->snap);
		if (d->numa_node >= 0)
			print_u64(PRINT_JSON, "numa_node", NULL, d->numa_node);
		print_string(PRINT_JSON, "irqs", NULL, d->irqs);
		print_close_object();
	}
	print_close_object();
	print_open_object("preflight");
	print_string(PRINT_JSON, "governor", NULL, e->governor);
	if (e->boost >= 0)
		print_bool(PRINT_JSON, "boost", NULL, e->boost);
	if (e->smt >= 0)
		print_bool(PRINT_JSON, "smt", NULL, e->smt);
	print_bool(PRINT_JSON, "irqbalance", NULL, e->irqbalance);
	if (e->cstate_us)
		print_u64(PRINT_JSON, "cstate_exit_us", NULL, e->cstate_us);
	print_open_array("warnings");
	for (i = 0; i < (size_t)e->nwarnings; i++)
		print_string(PRINT_JSON, NULL, NULL, e->warnings[i]);
	print_close_array();
	print_close_object();
	print_close_object();
}
