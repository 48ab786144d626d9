// SPDX-License-Identifier: GPL-2.0
/*
 * The environment of a result: kernel, CPU, the ktgen versions and the
 * module's primitives, and each device that is up (but lo) with its
 * driver, version, firmware and bus (ethtool's driver info).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

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

static bool dev_up(const char *name)
{
	char path[PATH_MAX];
	unsigned int flags;
	FILE *f;
	bool up;

	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", name);
	f = fopen(path, "r");
	if (!f)
		return false;
	up = fscanf(f, "%x", &flags) == 1 && (flags & IFF_UP);
	fclose(f);
	return up;
}

static void dev_info(int fd, struct env_dev *d)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { 0 };

	memcpy(ifr.ifr_name, d->name, sizeof(d->name));
	ifr.ifr_data = (void *)&di;
	if (fd < 0 || ioctl(fd, SIOCETHTOOL, &ifr))
		return;
	snprintf(d->driver, sizeof(d->driver), "%.31s", di.driver);
	snprintf(d->version, sizeof(d->version), "%.31s", di.version);
	snprintf(d->firmware, sizeof(d->firmware), "%.31s", di.fw_version);
	snprintf(d->bus, sizeof(d->bus), "%.31s", di.bus_info);
}

void env_collect(struct env *e)
{
	struct dirent *de;
	DIR *dir;
	int fd;

	uname(&e->uts);
	cpu_model(e->cpu_model, sizeof(e->cpu_model));
	e->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	dir = opendir("/sys/class/net");
	if (!dir)
		return;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	while ((de = readdir(dir))) {
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
		dev_info(fd, d);
	}
	if (fd >= 0)
		close(fd);
	closedir(dir);
}

void env_free(struct env *e)
{
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
		print_close_object();
	}
	print_open_object("devices");
	for (i = 0; i < e->ndevs; i++) {
		const struct env_dev *d = &e->devs[i];

		print_open_object(d->name);
		print_string(PRINT_JSON, "driver", NULL, d->driver);
		print_string(PRINT_JSON, "version", NULL, d->version);
		print_string(PRINT_JSON, "firmware", NULL, d->firmware);
		print_string(PRINT_JSON, "bus", NULL, d->bus);
		print_close_object();
	}
	print_close_object();
	print_close_object();
}
