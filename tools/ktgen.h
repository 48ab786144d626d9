/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktgen CLI: shared declarations.
 */
#ifndef KTGEN_CLI_H
#define KTGEN_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The version of the run document -j prints (tools/ktgen-run.schema.json). */
#define KTG_RUN_SCHEMA_VERSION	2

/* udp_rr: the ktgen header every request and response carries (bytes). */
#define KTG_UDP_RR_HDR		40

/* Exit codes (documented in README.md and `ktgen help`). */
enum {
	EXIT_OK		= 0,	/* done, and what was checked holds */
	EXIT_FAIL	= 1,	/* the kernel refused, a test failed or regressed */
	EXIT_USAGE	= 2,	/* bad command line */
	EXIT_INCONCLUSIVE = 3,	/* ab, diff: no effect seen, none could have been */
	EXIT_INFRA	= 4,	/* ab, diff: a run or a file failed */
};
/* git bisect run's codes for the above: 0, 1, 125 (skip), 128 (abort). */
int bisect_exit(int ret);

/* Global options. */
struct opts {
	bool	json;
	bool	pretty;
};
extern struct opts opts;

/* Objects: one file each, dispatched from ktgen.c. */
int do_info(int argc, char **argv);
int do_config(int argc, char **argv);
int do_sink(int argc, char **argv);
int do_run(int argc, char **argv);
int do_nic(int argc, char **argv);
int do_dev(int argc, char **argv);
int do_ab(int argc, char **argv);
int do_diff(int argc, char **argv);
int do_sweep(int argc, char **argv);
int do_peer(int argc, char **argv);
/* ktgen run ... repeat N (repeat.c), and the check of a run's words that
 * a job passes on (run-args.c).
 */
int run_repeat(int argc, char **argv);
int run_words_check(const char *what, int argc, char **argv);
struct json;
/* The value of metric @name (ab's names, pN, PATH:higher|lower) in a run
 * document: 0, -ENOENT for a name that is none, -ENODATA when the
 * document has no value for it (verdict.c, for the unit tests).
 */
int ab_metric_value(const char *name, const struct json *doc, double *v);

/* Command-line helpers (util.c). */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
extern const char *usage_context;
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool is_help(const char *arg);
int parse_u64(const char *s, uint64_t *v);
int parse_size(const char *s, uint64_t *v);
const char *format_size(uint64_t v, char *buf, size_t len);

/* CPU bitmaps: bit N of byte N/8 is CPU N, as the kernel takes them. */
#define KTG_CPUS_MAX		1024
#define KTG_CPUMASK_BYTES	(KTG_CPUS_MAX / 8)
#define KTG_CPULIST_LEN		4096	/* longest format_cpulist() output */
int parse_cpulist(const char *s, uint8_t *mask, size_t size, size_t *len);
const char *format_cpulist(const uint8_t *mask, size_t len, char *buf, size_t size);

/*
 * The host's /proc and /sys files, below $KTGEN_SYSROOT when it is set
 * (the tests' fake hosts).
 */
#include <dirent.h>
#include <stdio.h>
const char *host_path(const char *path, char *buf, size_t len);
FILE *host_fopen(const char *path);
int host_read_line(const char *path, char *buf, size_t len);
int read_first_line(const char *path, char *buf, size_t len);
DIR *host_opendir(const char *path);
int host_open_write(const char *path);

int parse_port(const char *s, uint16_t *port);
int parse_u32(const char *s, uint32_t *v);
int parse_size_u32(const char *s, uint32_t *v);
int parse_secs_ms(const char *s, uint32_t *ms);
int parse_usecs(const char *s, uint32_t *us);

/* An IPv4 or IPv6 literal, network order, as the address attributes take. */
struct ktg_addr {
	int		family;		/* AF_INET, AF_INET6 or 0 when unset */
	size_t		len;		/* 4 or 16 */
	uint8_t		bytes[16];
};
int parse_addr(const char *s, struct ktg_addr *a);
const char *format_addr(const void *bytes, size_t len, char *buf, size_t size);
const char *format_endpoint(const void *bytes, size_t len, uint16_t port,
			    char *buf, size_t size);

int lookup_name(const char *s, const char * const *names, size_t n);
int parse_id_arg(const char *cmd, int argc, char **argv, bool all_ok,
		 bool *all, uint32_t *id);

/* Throughput in bit/s of @bytes moved in @ns nanoseconds (0 when ns is 0). */
uint64_t rate_bps(uint64_t bytes, uint64_t ns);

/* What a group of CPUs spent on a run, per unit of work. A figure whose
 * denominator is 0 is 0.
 */
struct cpu_cost {
	double	util_pct;		/* busy / (window x cpus), in % */
	double	cycles_per_byte;
	double	cycles_per_msg;
	double	us_per_kb;		/* netperf's service demand: CPU us per KB */
};
void cpu_cost(uint64_t busy_ns, uint64_t cycles, uint32_t cpus, uint64_t window_ns,
	      uint64_t bytes, uint64_t msgs, struct cpu_cost *c);

/*
 * Memory of this process for tx/rx user: page aligned, populated, mapped
 * for the process's life (the module holds the address space while it
 * uses it). NULL, with a message, when it cannot be had.
 */
#define KTG_DEFAULT_USER_MEM	65536	/* the module's default buffer */
#define KTG_SINK_USER_SLICE	65536	/* per sink worker */
void *user_mem_map(uint64_t len);

#endif /* KTGEN_CLI_H */
