/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktgen run's files: run.c (the command: start, wait, show, stop, del),
 * run-print.c (a run's results, text and JSON), run-args.c (a run's words
 * and their limits). Private to those three.
 */
#ifndef KTGEN_RUN_H
#define KTGEN_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>
#include <linux/ktgen.h>

#include "counters.h"
#include "dev.h"
#include "env.h"
#include "ktgen.h"
#include "peer.h"

/* A run-interval notification: cumulative counts at the interval's end. */
struct run_interval {
	uint32_t	index;
	uint64_t	end_ns;
	uint64_t	tx_bytes;
	uint64_t	rx_bytes;
	bool		has_rx;
	uint64_t	tx_msgs;	/* transactions, for tcp_rr and udp_rr */
	bool		rr;
	unsigned int	npct;		/* the interval's own latency percentiles */
	uint32_t	ppm[16];
	uint64_t	pct_ns[16];
};

/* One flow's counters (a flow-get message); absent figures are 0. */
struct flow_stat {
	uint64_t	bytes;
	uint64_t	msgs;
	const char	*key[5];
	uint64_t	val[5];
	unsigned int	n;
};

/* Waiting for a run's end. */
struct run_wait {
	uint32_t		id;
	bool			done;
	bool			stopping;	/* RUN_STOP sent on a signal */
	uint32_t		state;
	struct run_interval	*iv;		/* received so far */
	size_t			niv;
	struct env		env;
	struct ctr_set		before;		/* counters at the start */
	struct ctr_set		delta;		/* and their change at the end */
	bool			rr;		/* tcp_rr, udp_rr: intervals in trans/s */
	struct nlmsghdr		*final;		/* the result, printed after the wait */
	bool			final_ntf;	/* from run-done, not run-get */
	struct flow_stat	*flows;		/* each flow's, read at the end */
	size_t			nflows;
	const struct knob_list	*knobs;		/* applied for the run */
	const struct peer	*peer;		/* the receiving end elsewhere */
};

/* A run's words (run-args.c), put in its RUN_NEW by run_put(). */
struct run_args {
	int		test;
	struct ktg_addr	to;
	struct ktg_addr	local;
	bool		has_port;
	uint16_t	port;
	uint32_t	ifindex;
	bool		has_size;
	uint32_t	size;
	bool		has_flows;
	uint32_t	flows;
	uint8_t		cpus[KTG_CPUMASK_BYTES];
	size_t		cpus_len;
	int		limits;		/* how many of time, bytes, msgs */
	bool		has_time;
	uint32_t	time_ms;
	bool		has_bytes;
	uint64_t	bytes;
	bool		has_msgs;
	uint64_t	msgs;
	int		tx_mode;	/* -1: the kernel's default */
	bool		has_buffer;
	uint64_t	buffer;
	bool		has_sndbuf;
	uint32_t	sndbuf;
	bool		nodelay;
	bool		detach;
	bool		probe;
	bool		probe_rx;	/* how receiving drivers built skbs */
	uint32_t	events;		/* enum ktgen_cpu_event bits, PMU events */
	bool		has_req;
	uint32_t	req;
	bool		has_resp;
	uint32_t	resp;
	bool		has_rate;
	uint32_t	rate;
	uint64_t	pace_bps;
	uint32_t	pace_pps;
	bool		has_burst;
	uint32_t	burst;
	bool		has_busy_poll;
	uint32_t	busy_poll_us;
	bool		has_gso;
	uint32_t	gso;
	size_t		npct;
	uint32_t	pct[16];		/* ppm */
	bool		has_rr_timeout;
	uint32_t	rr_timeout_ms;
	bool		has_token;
	uint64_t	token;			/* the sink's, for responses above req */
	bool		has_interval;
	uint32_t	interval_ms;
	bool		has_warmup;
	uint32_t	warmup_ms;
	struct knob_list knobs;		/* device settings for the run */
	bool		has_peer;
	struct peer	peer;		/* the sink's host, when not this one */
};

/* run-print.c */
extern const char * const test_names[KTGEN_TEST_TCP_CRR + 1];
extern const char * const tx_mode_names[KTGEN_TX_MODE_USER + 1];
extern const enum mnl_attr_data_type run_types[KTGEN_A_RUN_MAX + 1];
unsigned int latency_percentiles(const struct nlattr *nest, uint32_t *ppm,
				 uint64_t *ns, unsigned int n);
uint32_t get_u32(const struct nlattr *a, uint32_t def);
const char *run_error_msg(const struct nlattr **tb, char *buf, size_t len);
void print_interval(const struct run_interval *prev, const struct run_interval *iv);
void print_run(const struct nlattr **tb, const struct run_wait *w);
void parse_run(const struct nlmsghdr *nlh, const struct nlattr **tb);

/* run-args.c */
int run_parse(struct run_args *a, int test, int argc, char **argv);
int run_job_check(struct run_args *a);

#endif /* KTGEN_RUN_H */
