/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run's PMU events (run events): their names, the word that asks for
 * them, their results per group of CPUs (text and JSON) and the metrics
 * they make (pmu.c).
 */
#ifndef KTGEN_PMU_H
#define KTGEN_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

#define PMU_EVENTS	5	/* enum ktgen_cpu_event's bits */

/* "cycles,instructions" or "all" into event bits; -EINVAL for a name
 * that is no event, an empty list or one named twice.
 */
int pmu_parse_events(const char *s, uint32_t *events);

/* The asked events in JSON (an array of names) and text (" events a,b"). */
void pmu_print_asked(const struct nlattr *attr);

/* A cpu-stats group whose events the module counted and withheld from this
 * reader (no CAP_PERFMON nor CAP_SYS_ADMIN, or a run-done).
 */
bool pmu_withheld(const struct nlattr *group);

/*
 * "  pmu run: cycles 1234 (1.21/KB, 77.0/msg)  instructions absent (ENOENT)":
 * the event nests of a cpu-stats group, with the bytes and messages its
 * side moved, as the "pmu" object's @key member. Nothing without events.
 */
bool pmu_has_events(const struct nlattr *group);
void pmu_print_group(const struct nlattr *group, const char *key, uint64_t bytes,
		     uint64_t msgs);

/* A metric "run_EVENT_per_kb" (or other_, _per_msg): its document path
 * into @path. false when @name is no such metric.
 */
bool pmu_metric_path(const char *name, char *path, size_t len);

#endif /* KTGEN_PMU_H */
