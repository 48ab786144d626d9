/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The environment a result was measured in (env.c): printed with every
 * run's JSON document.
 */
#ifndef KTGEN_ENV_H
#define KTGEN_ENV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/utsname.h>

/* The module's answer to GET_INFO (info.c). */
struct module_info {
	bool		valid;
	char		version[64];
	uint32_t	abi_version;
	const char	*nocache_impl;
	const char	*page_send;
	bool		pmu;
	const char	*splice_tcp;
	const char	*splice_udp;
	const char	*splice_udp6;
};

struct dev_snap;

struct env_dev {
	char		name[16];
	int		numa_node;	/* -1: none or unknown */
	char		irqs[256];	/* "IRQ:CPUS ..." of its MSI vectors */
	struct dev_snap	*snap;		/* as dev show reads it; NULL: unreadable */
};

#define ENV_WARNINGS	12

struct env {
	struct utsname		uts;
	char			governor[32];	/* "" without cpufreq */
	int			boost;		/* -1: unknown */
	int			smt;		/* -1: unknown */
	bool			irqbalance;
	int			cstate_us;	/* deepest run-CPU idle exit > ENV_CSTATE_US */
	const char		*warnings[ENV_WARNINGS];
	char			warn_buf[ENV_WARNINGS][160];
	int			nwarnings;
	char			cpu_model[128];
	long			cpus_online;
	struct module_info	module;
	struct env_dev		*devs;
	size_t			ndevs;
};

bool dev_up(const char *name);

struct nl_ctx;
int info_get(struct nl_ctx *ctx, struct module_info *mi);
void env_collect(struct env *e, const uint8_t *cpus, size_t cpus_len);
/* Idle states whose exit takes longer than this (us) are warned of. */
#define ENV_CSTATE_US		20
#define ENV_CSTATES_MAX		16
void env_preflight(struct env *e, const uint8_t *cpus, size_t cpus_len);
/* TCP stream flows from which the window restart after idle matters. */
#define ENV_MANY_FLOWS	100
#define ENV_SSAI_PATH	"/proc/sys/net/ipv4/tcp_slow_start_after_idle"
void env_check_flows(struct env *e, uint32_t flows, const char *ssai_path);
void env_print_warnings(const struct env *e);
void env_print(const struct env *e);
void env_free(struct env *e);

#endif /* KTGEN_ENV_H */
