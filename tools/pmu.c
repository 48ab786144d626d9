// SPDX-License-Identifier: GPL-2.0
/*
 * PMU events of a run (run events): the module counts each asked event on
 * every online CPU over the measured window and reports it per group of
 * CPUs (the run's, the others), scaled where the PMU multiplexed it, or
 * absent with the errno of the counter that could not be opened. Absent
 * is never printed as 0, and makes no per-KB figure (nor metric).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ktgen.h>
#include <linux/perf_event.h>

#include "ktgen.h"
#include "nl.h"
#include "pmu.h"
#include "print.h"

/* Bit i of enum ktgen_cpu_event: its word, its JSON key and metric part. */
static const struct {
	const char	*name;
	const char	*key;
} pmu_events[PMU_EVENTS] = {
	{ "cycles",		"cycles" },
	{ "instructions",	"instructions" },
	{ "cache-references",	"cache_references" },
	{ "cache-misses",	"cache_misses" },
	{ "llc-load-misses",	"llc_load_misses" },
};

static uint64_t nl_u64_or_0(const struct nlattr *a)
{
	return a ? mnl_attr_get_u64(a) : 0;
}

/* The software events that stand in with cpu_event=sw (PERF_COUNT_SW_*). */
static const char *pmu_sw_name(uint32_t config)
{
	switch (config) {
	case PERF_COUNT_SW_CPU_CLOCK:		return "cpu-clock";
	case PERF_COUNT_SW_TASK_CLOCK:		return "task-clock";
	case PERF_COUNT_SW_PAGE_FAULTS:		return "page-faults";
	case PERF_COUNT_SW_CONTEXT_SWITCHES:	return "context-switches";
	case PERF_COUNT_SW_CPU_MIGRATIONS:	return "cpu-migrations";
	}
	return "software event";
}

/* The errnos a counter's creation gives, by name; else "errno N". */
static const char *pmu_errno_name(uint32_t err, char *buf, size_t len)
{
	switch (err) {
	case ENOENT:		return "ENOENT";
	case EOPNOTSUPP:	return "EOPNOTSUPP";
	case ENODEV:		return "ENODEV";
	case EINVAL:		return "EINVAL";
	case EACCES:		return "EACCES";
	case EBUSY:		return "EBUSY";
	case ENXIO:		return "ENXIO";
	case E2BIG:		return "E2BIG";
	case 524:		return "ENOTSUPP";	/* the kernel's own */
	}
	snprintf(buf, len, "errno %u", err);
	return buf;
}

static int pmu_event_index(const char *name)
{
	int i;

	for (i = 0; i < PMU_EVENTS; i++)
		if (!strcmp(name, pmu_events[i].name) || !strcmp(name, pmu_events[i].key))
			return i;
	return -1;
}

int pmu_parse_events(const char *s, uint32_t *events)
{
	char *copy, *tok, *save = NULL;
	int err = 0, i;

	*events = 0;
	if (!strcmp(s, "all")) {
		*events = (1u << PMU_EVENTS) - 1;
		return 0;
	}
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		i = pmu_event_index(tok);
		if (i < 0 || (*events & (1u << i)))
			err = -EINVAL;
		else
			*events |= 1u << i;
	}
	free(copy);
	return err || !*events ? -EINVAL : 0;
}

void pmu_print_asked(const struct nlattr *attr)
{
	uint32_t events;
	int i, n = 0;

	if (!attr || mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return;
	events = mnl_attr_get_u32(attr);
	print_open_array("events");
	for (i = 0; i < PMU_EVENTS; i++) {
		if (!(events & (1u << i)))
			continue;
		print_string(PRINT_JSON, NULL, NULL, pmu_events[i].name);
		print_text("%s%s", n++ ? "," : " events ", pmu_events[i].name);
	}
	print_close_array();
}

static const enum mnl_attr_data_type pmu_event_types[KTGEN_A_CPU_EVENT_STATS_MAX + 1] = {
	[KTGEN_A_CPU_EVENT_STATS_EVENT]		= MNL_TYPE_U32,
	[KTGEN_A_CPU_EVENT_STATS_COUNT]		= MNL_TYPE_U64,
	[KTGEN_A_CPU_EVENT_STATS_ENABLED_NS]	= MNL_TYPE_U64,
	[KTGEN_A_CPU_EVENT_STATS_RUNNING_NS]	= MNL_TYPE_U64,
	[KTGEN_A_CPU_EVENT_STATS_SCALED]	= MNL_TYPE_FLAG,
	[KTGEN_A_CPU_EVENT_STATS_ERROR]		= MNL_TYPE_U32,
	[KTGEN_A_CPU_EVENT_STATS_STAND_IN]	= MNL_TYPE_U32,
};

/* The event an event nest is about, as an index; -1 for none we know. */
static int pmu_nest_index(const struct nlattr *nest, const struct nlattr **st)
{
	uint32_t bit;
	int i;

	if (mnl_attr_get_type(nest) != KTGEN_A_CPU_STATS_EVENT)
		return -1;
	nl_parse_nested(nest, pmu_event_types, KTGEN_A_CPU_EVENT_STATS_MAX, st);
	if (!st[KTGEN_A_CPU_EVENT_STATS_EVENT])
		return -1;
	bit = mnl_attr_get_u32(st[KTGEN_A_CPU_EVENT_STATS_EVENT]);
	for (i = 0; i < PMU_EVENTS; i++)
		if (bit == 1u << i)
			return i;
	return -1;
}

/* A cpu-stats group carries an attribute of @type. */
static bool pmu_group_has(const struct nlattr *group, uint16_t type)
{
	const struct nlattr *a;

	if (!group)
		return false;
	mnl_attr_for_each_nested(a, group)
		if (mnl_attr_get_type(a) == type)
			return true;
	return false;
}

/* The module counted the group's events and did not give them to us. */
bool pmu_withheld(const struct nlattr *group)
{
	return pmu_group_has(group, KTGEN_A_CPU_STATS_EVENTS_WITHHELD);
}

bool pmu_has_events(const struct nlattr *group)
{
	return pmu_group_has(group, KTGEN_A_CPU_STATS_EVENT);
}

/* "  instructions 1234 (scaled, ran 48.0 %) (1.21/KB, 77.0/msg)", or
 * "  cache-misses absent (ENOENT)": one event of a group.
 */
static void pmu_print_event(const struct nlattr **st, int i, bool first, uint64_t bytes,
			    uint64_t msgs)
{
	const struct nlattr *count = st[KTGEN_A_CPU_EVENT_STATS_COUNT];
	uint64_t enabled = nl_u64_or_0(st[KTGEN_A_CPU_EVENT_STATS_ENABLED_NS]);
	uint64_t running = nl_u64_or_0(st[KTGEN_A_CPU_EVENT_STATS_RUNNING_NS]);
	bool scaled = !!st[KTGEN_A_CPU_EVENT_STATS_SCALED];
	char buf[32];
	uint64_t n;

	print_open_object(pmu_events[i].key);
	print_text("%s%s", first ? " " : "  ", pmu_events[i].name);
	if (st[KTGEN_A_CPU_EVENT_STATS_STAND_IN]) {
		print_string(PRINT_ANY, "stand_in", " [%s]",
			     pmu_sw_name(mnl_attr_get_u32(st[KTGEN_A_CPU_EVENT_STATS_STAND_IN])));
	}
	if (st[KTGEN_A_CPU_EVENT_STATS_ERROR]) {
		uint32_t err = mnl_attr_get_u32(st[KTGEN_A_CPU_EVENT_STATS_ERROR]);

		print_bool(PRINT_JSON, "absent", NULL, true);
		print_u64(PRINT_JSON, "errno", NULL, err);
		print_string(PRINT_ANY, "error", " absent (%s)", pmu_errno_name(err, buf, sizeof(buf)));
		print_close_object();
		return;
	}
	print_u64(PRINT_JSON, "enabled_ns", NULL, enabled);
	print_u64(PRINT_JSON, "running_ns", NULL, running);
	print_bool(PRINT_JSON, "scaled", NULL, scaled);
	print_double(PRINT_JSON, "running_pct", NULL, enabled ? 100.0 * running / enabled : 0);
	if (!count) {
		/* a CPU of the group never had it on the PMU: nothing to scale */
		print_bool(PRINT_JSON, "absent", NULL, true);
		print_string(PRINT_ANY, "error", " absent (%s)", "not counted: multiplexed out");
		print_close_object();
		return;
	}
	n = mnl_attr_get_u64(count);
	print_u64(PRINT_ANY, "count", " %llu", n);
	if (scaled)
		print_text(" (scaled, ran %.1f %%)", enabled ? 100.0 * running / enabled : 0);
	if (bytes)
		print_double(PRINT_ANY, "per_kb", " (%.4g/KB", n / (bytes / 1024.0));
	if (msgs)
		print_double(PRINT_ANY, "per_msg", bytes ? ", %.4g/msg)" : " (%.4g/msg)",
			     (double)n / msgs);
	else if (bytes)
		print_text(")");
	print_close_object();
}

void pmu_print_group(const struct nlattr *group, const char *key, uint64_t bytes,
		     uint64_t msgs)
{
	const struct nlattr *st[KTGEN_A_CPU_EVENT_STATS_MAX + 1];
	const struct nlattr *nest;
	bool first = true;
	int i;

	print_open_object(key);
	print_text("  pmu %s:", key);
	mnl_attr_for_each_nested(nest, group) {
		i = pmu_nest_index(nest, st);
		if (i < 0)
			continue;
		pmu_print_event(st, i, first, bytes, msgs);
		first = false;
	}
	print_text("\n");
	print_close_object();
}

bool pmu_metric_path(const char *name, char *path, size_t len)
{
	static const char * const groups[] = { "run_", "other_" };
	static const char * const per[] = { "_per_kb", "_per_msg" };
	size_t g, p, nl = strlen(name);
	int i;

	for (g = 0; g < ARRAY_SIZE(groups); g++) {
		size_t gl = strlen(groups[g]);

		if (strncmp(name, groups[g], gl))
			continue;
		for (i = 0; i < PMU_EVENTS; i++) {
			size_t kl = strlen(pmu_events[i].key);

			if (strncmp(name + gl, pmu_events[i].key, kl))
				continue;
			for (p = 0; p < ARRAY_SIZE(per); p++) {
				if (nl != gl + kl + strlen(per[p]) || strcmp(name + gl + kl, per[p]))
					continue;
				snprintf(path, len, "pmu/%.*s/%s/%s", (int)gl - 1, groups[g],
					 pmu_events[i].key, per[p] + 1);
				return true;
			}
		}
	}
	return false;
}
