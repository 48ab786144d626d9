// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen run: start a test against a sink, wait for its result, and show,
 * stop or forget runs. Its words are parsed in run-args.c, its result
 * printed in run-print.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/ktgen.h>

#include "counters.h"
#include "dev.h"
#include "env.h"
#include "ktgen.h"
#include "nl.h"
#include "peer.h"
#include "pmu.h"
#include "print.h"
#include "run.h"
#include "show.h"

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

/* The run's result, once it ended: from the run-done notification, or
 * (@ntf false) from a run-get reply after notifications were lost.
 */
static int run_wait_msg(const struct nlmsghdr *nlh, struct run_wait *w, bool ntf)
{
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1];
	uint32_t state;

	parse_run(nlh, tb);
	if (get_u32(tb[KTGEN_A_RUN_ID], 0) != w->id)
		return MNL_CB_OK;
	state = get_u32(tb[KTGEN_A_RUN_STATE], UINT32_MAX);
	if (!ntf && (state == KTGEN_RUN_STATE_RUNNING ||
		     state == KTGEN_RUN_STATE_STOPPING))
		return MNL_CB_OK;
	counters_read(&w->delta);
	counters_delta(&w->delta, &w->before);
	/* Printed once the flows are read: not from inside this callback,
	 * which may be a reply on the request socket.
	 */
	w->final = malloc(nlh->nlmsg_len);
	if (!w->final)
		return MNL_CB_ERROR;
	memcpy(w->final, nlh, nlh->nlmsg_len);
	w->final_ntf = ntf;
	w->state = state;
	w->done = true;
	return MNL_CB_STOP;
}

/* A run-interval notification: kept for JSON, shown at once in text. */
static int run_interval_msg(const struct nlmsghdr *nlh, struct run_wait *w)
{
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1];
	struct run_interval *iv;

	parse_run(nlh, tb);
	if (get_u32(tb[KTGEN_A_RUN_ID], 0) != w->id || !tb[KTGEN_A_RUN_DURATION_NS])
		return MNL_CB_OK;
	iv = realloc(w->iv, (w->niv + 1) * sizeof(*iv));
	if (!iv)
		return MNL_CB_OK;	/* a progress line less */
	w->iv = iv;
	iv += w->niv;
	iv->index = get_u32(tb[KTGEN_A_RUN_INTERVAL], (uint32_t)w->niv + 1);
	iv->end_ns = mnl_attr_get_u64(tb[KTGEN_A_RUN_DURATION_NS]);
	iv->tx_bytes = nl_nested_u64(tb[KTGEN_A_RUN_TX], KTGEN_A_TX_STATS_BYTES);
	iv->tx_msgs = nl_nested_u64(tb[KTGEN_A_RUN_TX], KTGEN_A_TX_STATS_MSGS);
	iv->rr = w->rr;
	iv->npct = latency_percentiles(tb[KTGEN_A_RUN_LATENCY], iv->ppm, iv->pct_ns,
				       ARRAY_SIZE(iv->ppm));
	iv->has_rx = tb[KTGEN_A_RUN_RX];
	iv->rx_bytes = nl_nested_u64(tb[KTGEN_A_RUN_RX], KTGEN_A_RX_STATS_BYTES);
	/* Out of order or repeated: not an interval of this sequence. */
	if (w->niv && (iv->end_ns <= iv[-1].end_ns || iv->tx_bytes < iv[-1].tx_bytes ||
		       iv->rx_bytes < iv[-1].rx_bytes))
		return MNL_CB_OK;
	if (!print_is_json()) {
		print_interval(w->niv ? &iv[-1] : NULL, iv);
		fflush(stdout);
	}
	w->niv++;
	return MNL_CB_OK;
}

static int run_done_cb(const struct nlmsghdr *nlh, void *data)
{
	switch (nl_genl_cmd(nlh)) {
	case KTGEN_CMD_RUN_DONE:
		return run_wait_msg(nlh, data, true);
	case KTGEN_CMD_RUN_INTERVAL:
		return run_interval_msg(nlh, data);
	}
	return MNL_CB_OK;
}

static int run_get_wait_cb(const struct nlmsghdr *nlh, void *data)
{
	return run_wait_msg(nlh, data, false);
}

static int run_request(struct nl_ctx *ctx, uint8_t cmd, bool all, uint32_t id,
		       mnl_cb_t cb, void *data)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, cmd, 0);

	if (all)
		mnl_attr_put(nlh, KTGEN_A_RUN_ALL, 0, NULL);
	else
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_ID, id);
	return nl_request(ctx, nlh, &ktg_run_attrs, cb, data);
}

/* The first SIGINT, SIGTERM, SIGHUP or SIGQUIT stops the run and waits
 * for its partial result; the second gives up waiting.
 */
static int run_interrupted(struct nl_ctx *ctx, struct run_wait *w)
{
	got_signal = 0;
	if (w->stopping) {
		fprintf(stderr, "ktgen: not waiting for run %u to stop\n", w->id);
		return -EINTR;
	}
	w->stopping = true;
	fprintf(stderr, "ktgen: stopping run %u\n", w->id);
	if (!run_request(ctx, KTGEN_CMD_RUN_STOP, false, w->id, NULL, NULL))
		return 0;
	/* Refused (already ended?): see where it is. */
	return run_request(ctx, KTGEN_CMD_RUN_GET, false, w->id, run_get_wait_cb, w);
}

/* run-get's reply, replacing the notification's result. */
static int run_reread_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1];
	struct run_wait *w = data;
	struct nlmsghdr *final;

	parse_run(nlh, tb);
	if (get_u32(tb[KTGEN_A_RUN_ID], 0) != w->id)
		return MNL_CB_OK;
	final = malloc(nlh->nlmsg_len);
	if (!final)
		return MNL_CB_ERROR;
	memcpy(final, nlh, nlh->nlmsg_len);
	free(w->final);
	w->final = final;
	w->final_ntf = false;
	return MNL_CB_OK;
}

/* PMU event counts never ride the events group (the module gives them
 * only to a reader who may see them, and marks them withheld): a result
 * from run-done without them is read once more.
 */
static int run_reread_events(struct nl_ctx *ctx, struct run_wait *w)
{
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1];

	if (!w->final_ntf)
		return 0;
	parse_run(w->final, tb);
	if (!pmu_withheld(tb[KTGEN_A_RUN_CPU_RUN]))
		return 0;
	return run_request(ctx, KTGEN_CMD_RUN_GET, false, w->id, run_reread_cb, w);
}

static int run_wait(struct nl_ctx *ctx, struct run_wait *w, const sigset_t *waitmask)
{
	int err;

	while (!w->done) {
		err = nl_recv_events(ctx, waitmask, run_done_cb, w);
		if (err == -EINTR)
			err = got_signal ? run_interrupted(ctx, w) : 0;
		else if (err == -ENOBUFS)	/* notifications lost: ask */
			err = run_request(ctx, KTGEN_CMD_RUN_GET, false, w->id,
					  run_get_wait_cb, w);
		else if (err)
			fprintf(stderr, "ktgen: waiting for run %u: %s\n", w->id,
				strerror(-err));
		if (err)
			return err;
	}
	err = run_reread_events(ctx, w);
	if (err)	/* the result stands, without its events */
		fprintf(stderr, "ktgen: reading run %u's events: %s\n", w->id, strerror(-err));
	return 0;
}

/* When the run sends and reports: intervals, warmup, rate and pacing,
 * busy polling, the rr timeout.
 */
static void run_put_timing(struct nlmsghdr *nlh, const struct run_args *a)
{
	if (a->has_interval)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_INTERVAL_MS, a->interval_ms);
	if (a->has_warmup)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_WARMUP_MS, a->warmup_ms);
	if (a->has_rate)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_RATE, a->rate);
	if (a->pace_bps)
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_PACE_BPS, a->pace_bps);
	if (a->pace_pps)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_PACE_PPS, a->pace_pps);
	if (a->has_burst)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_BURST, a->burst);
	if (a->has_busy_poll)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_BUSY_POLL, a->busy_poll_us);
	if (a->has_rr_timeout)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_RR_TIMEOUT_MS, a->rr_timeout_ms);
}

static void run_put(struct nlmsghdr *nlh, const struct run_args *a)
{
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_TEST, a->test);
	mnl_attr_put(nlh, KTGEN_A_RUN_REMOTE_ADDR, a->to.len, a->to.bytes);
	mnl_attr_put_u16(nlh, KTGEN_A_RUN_REMOTE_PORT, htons(a->port));
	if (a->local.family)
		mnl_attr_put(nlh, KTGEN_A_RUN_LOCAL_ADDR, a->local.len, a->local.bytes);
	if (a->ifindex)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_IFINDEX, a->ifindex);
	if (a->has_size)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_SIZE, a->size);
	if (a->has_flows)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_FLOWS, a->flows);
	if (a->cpus_len)
		mnl_attr_put(nlh, KTGEN_A_RUN_CPUS, a->cpus_len, a->cpus);
	if (a->has_time)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_TIME_MS, a->time_ms);
	if (a->has_bytes)
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_BYTES, a->bytes);
	if (a->has_msgs)
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_MSGS, a->msgs);
	if (a->tx_mode >= 0)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_TX_MODE, a->tx_mode);
	if (a->has_buffer)
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_BUFFER, a->buffer);
	if (a->has_sndbuf)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_SNDBUF, a->sndbuf);
	if (a->nodelay)
		mnl_attr_put(nlh, KTGEN_A_RUN_NODELAY, 0, NULL);
	if (a->detach)
		mnl_attr_put(nlh, KTGEN_A_RUN_DETACH, 0, NULL);
	if (a->probe)
		mnl_attr_put(nlh, KTGEN_A_RUN_PROBE_COPIES, 0, NULL);
	if (a->probe_rx)
		mnl_attr_put(nlh, KTGEN_A_RUN_PROBE_RX, 0, NULL);
	if (a->events)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_EVENTS, a->events);
	if (a->has_req)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_REQ_SIZE, a->req);
	if (a->has_resp)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_RESP_SIZE, a->resp);
	if (a->has_token)
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_TOKEN, a->token);
	if (a->has_gso)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_GSO, a->gso);
	if (a->npct)
		mnl_attr_put(nlh, KTGEN_A_RUN_PERCENTILES, a->npct * sizeof(a->pct[0]), a->pct);
	run_put_timing(nlh, a);
}

static int run_id_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1];
	uint32_t *id = data;

	nl_parse(nlh, run_types, KTGEN_A_RUN_MAX, tb);
	if (!tb[KTGEN_A_RUN_ID]) {
		fprintf(stderr, "ktgen: the kernel's reply has no run id\n");
		return MNL_CB_ERROR;
	}
	*id = mnl_attr_get_u32(tb[KTGEN_A_RUN_ID]);
	return MNL_CB_OK;
}

/*
 * tx user: the source is this process's memory, buffer bytes (the module's
 * default when not given) that the module fills with the payload. It stays
 * mapped for the process's life; a detached run holds the address space
 * after the process is gone.
 */
static int run_start(struct nl_ctx *ctx, const struct run_args *a, uint32_t *id)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, KTGEN_CMD_RUN_NEW, 0);
	void *mem;

	run_put(nlh, a);
	if (a->tx_mode == KTGEN_TX_MODE_USER) {
		mem = user_mem_map(a->has_buffer ? a->buffer : KTG_DEFAULT_USER_MEM);
		if (!mem)
			return -1;
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_USER_BUF, (uintptr_t)mem);
	}
	return nl_request(ctx, nlh, &ktg_run_attrs, run_id_cb, id);
}

static int run_detached(struct nl_ctx *ctx, const struct run_args *a)
{
	uint32_t id;

	if (run_start(ctx, a, &id))
		return EXIT_FAIL;
	print_open_object(NULL);
	print_u64(PRINT_ANY, "id", "run %llu\n", id);
	print_close_object();
	return EXIT_OK;
}

/* Start the run and wait for its end; SIGINT and SIGTERM stop it. The
 * events group is joined first, so the run-done notification cannot be
 * missed, and the signals are blocked but while waiting, so none is lost.
 */
static const enum mnl_attr_data_type flow_types[KTGEN_A_FLOW_MAX + 1] = {
	[KTGEN_A_FLOW_RUN_ID]	= MNL_TYPE_U32,
	[KTGEN_A_FLOW_ID]	= MNL_TYPE_U32,
	[KTGEN_A_FLOW_BYTES]	= MNL_TYPE_U64,
	[KTGEN_A_FLOW_MSGS]	= MNL_TYPE_U64,
	[KTGEN_A_FLOW_ACKED]	= MNL_TYPE_U64,
	[KTGEN_A_FLOW_RETRANS]	= MNL_TYPE_U32,
	[KTGEN_A_FLOW_SRTT_US]	= MNL_TYPE_U32,
	[KTGEN_A_FLOW_CWND]	= MNL_TYPE_U32,
	[KTGEN_A_FLOW_TIMEOUTS]	= MNL_TYPE_U64,
};

static int flow_cb(const struct nlmsghdr *nlh, void *data)
{
	static const struct {
		unsigned int	type;
		const char	*key;
	} opt[] = {
		{ KTGEN_A_FLOW_ACKED,		"acked" },
		{ KTGEN_A_FLOW_RETRANS,		"retrans" },
		{ KTGEN_A_FLOW_SRTT_US,		"srtt_us" },
		{ KTGEN_A_FLOW_CWND,		"cwnd" },
		{ KTGEN_A_FLOW_TIMEOUTS,	"timeouts" },
	};
	const struct nlattr *tb[KTGEN_A_FLOW_MAX + 1];
	struct run_wait *w = data;
	struct flow_stat *f;
	uint32_t id;
	size_t i;

	nl_parse(nlh, flow_types, KTGEN_A_FLOW_MAX, tb);
	if (!tb[KTGEN_A_FLOW_ID] || !tb[KTGEN_A_FLOW_BYTES] || !tb[KTGEN_A_FLOW_MSGS])
		return MNL_CB_OK;
	/* One message per flow, in order of id. */
	id = mnl_attr_get_u32(tb[KTGEN_A_FLOW_ID]);
	if (id != w->nflows)
		return MNL_CB_OK;
	f = realloc(w->flows, (w->nflows + 1) * sizeof(*f));
	if (!f)
		return MNL_CB_ERROR;
	w->flows = f;
	f = &w->flows[w->nflows++];
	memset(f, 0, sizeof(*f));
	f->bytes = mnl_attr_get_u64(tb[KTGEN_A_FLOW_BYTES]);
	f->msgs = mnl_attr_get_u64(tb[KTGEN_A_FLOW_MSGS]);
	for (i = 0; i < ARRAY_SIZE(opt); i++) {
		const struct nlattr *a = tb[opt[i].type];

		if (!a)
			continue;
		f->key[f->n] = opt[i].key;
		f->val[f->n++] = flow_types[opt[i].type] == MNL_TYPE_U64 ?
				 mnl_attr_get_u64(a) : mnl_attr_get_u32(a);
	}
	return MNL_CB_OK;
}

/* The run's flows into @w; a module without flow-get leaves none. */
static void flows_get(struct nl_ctx *ctx, struct run_wait *w)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, KTGEN_CMD_FLOW_GET, NLM_F_DUMP);

	mnl_attr_put_u32(nlh, KTGEN_A_FLOW_RUN_ID, w->id);
	if (nl_request(ctx, nlh, &ktg_flow_attrs, flow_cb, w))
		w->nflows = 0;
}

/*
 * Whatever ends this process but SIGKILL ends the run first, which puts its
 * knobs back: a closed terminal (SIGHUP), SIGQUIT, and a reader of its
 * output gone (SIGPIPE, ignored: writes fail instead). The stop signals are
 * blocked but while waiting (@waitmask); @oldmask is the mask before.
 */
static void run_signals(sigset_t *oldmask, sigset_t *waitmask)
{
	static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;
	size_t i;

	sigemptyset(&block);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaddset(&block, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &block, oldmask);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	*waitmask = *oldmask;
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigdelset(waitmask, stop_signals[i]);
}

/* The ended run @w waited for: its flows, the peer's counts against what
 * was sent, the result printed; the peer's verdict, updated.
 */
static void run_report(struct nl_ctx *ctx, struct run_args *a, struct run_wait *w,
		       int *peer_err)
{
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1];
	char msg[256];

	flows_get(ctx, w);
	parse_run(w->final, tb);
	if (a->has_peer && !*peer_err)
		*peer_err = peer_check_counts(&a->peer,
					      nl_nested_u64(tb[KTGEN_A_RUN_TX],
							    KTGEN_A_TX_STATS_BYTES));
	print_run(tb, w);
	/* JSON: the document is all stdout says; the reason goes here. */
	if (print_is_json() && run_error_msg(tb, msg, sizeof(msg)))
		fprintf(stderr, "ktgen: run %u failed: %s\n", w->id, msg);
}

/* Before the run: its knobs on, the peer's sink ready (and its token
 * taken, for rr), a warm-up where a device reset. 0, or the exit status to
 * end with, the knobs put back.
 */
static int run_prepare(struct run_args *a, struct run_wait *w, const sigset_t *waitmask)
{
	int peer_err;

	w->rr = a->test == KTGEN_TEST_TCP_RR || a->test == KTGEN_TEST_UDP_RR ||
		a->test == KTGEN_TEST_TCP_CRR;
	/* Knobs go on before the flows exist (tx-nocache-copy reaches only
	 * new sockets) and come off whatever ends the run, a signal too.
	 */
	if (knobs_apply(&a->knobs))
		return EXIT_FAIL;
	w->knobs = &a->knobs;
	/* The sink there is ready before the flows connect. */
	if (a->has_peer) {
		peer_err = peer_start(&a->peer, waitmask);
		if (peer_err) {
			knobs_restore(&a->knobs);
			return peer_err == PEER_UNTRUSTED ? EXIT_INFRA : EXIT_FAIL;
		}
		w->peer = &a->peer;
		/* its rr sink answers above the request's size to its token */
		if (w->rr && a->peer.token && !a->has_token) {
			a->has_token = true;
			a->token = a->peer.token;
		}
	}
	if ((a->knobs.resets || a->peer.resets) && !a->has_warmup) {
		/* A reset device settles before the window opens. */
		a->has_warmup = true;
		a->warmup_ms = 1000;
	}
	return 0;
}

static int run_attached(struct nl_ctx *ctx, struct run_args *a)
{
	sigset_t waitmask, oldmask;
	struct run_wait w = { };
	int err, restore_err, peer_err = 0;

	if (nl_join_events(ctx))
		return EXIT_FAIL;
	run_signals(&oldmask, &waitmask);
	err = run_prepare(a, &w, &waitmask);
	if (err) {
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		return err;
	}
	env_collect(&w.env, a->cpus, a->cpus_len);
	if (a->test == KTGEN_TEST_TCP_STREAM && a->has_flows)
		env_check_flows(&w.env, a->flows, ENV_SSAI_PATH);
	info_get(ctx, &w.env.module);
	counters_read(&w.before);
	err = run_start(ctx, a, &w.id);
	if (!err && a->has_peer)
		peer_window(&a->peer, a->has_warmup ? a->warmup_ms : 0);
	if (!err)
		err = run_wait(ctx, &w, &waitmask);
	if (a->has_peer)
		peer_err = peer_finish(&a->peer);
	restore_err = knobs_restore(&a->knobs);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (!err && w.final)
		run_report(ctx, a, &w, &peer_err);
	free(w.final);
	free(w.flows);
	free(w.iv);
	env_free(&w.env);
	counters_free(&w.before);
	counters_free(&w.delta);
	/* What came back from the peer is not to be believed: no verdict */
	if (!err && !restore_err && peer_err == PEER_UNTRUSTED)
		return EXIT_INFRA;
	if (err || restore_err || peer_err)
		return EXIT_FAIL;
	return w.state == KTGEN_RUN_STATE_DONE || w.state == KTGEN_RUN_STATE_STOPPED ?
	       EXIT_OK : EXIT_FAIL;
}

static int run_show(struct nl_ctx *ctx, bool one, uint32_t id)
{
	struct nlmsghdr *nlh;
	int err;

	nlh = nl_msg_start(ctx, KTGEN_CMD_RUN_GET, one ? 0 : NLM_F_DUMP);
	if (one)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_ID, id);
	else
		print_open_array(NULL);
	err = nl_request(ctx, nlh, &ktg_run_attrs, run_print_cb, NULL);
	if (!one)
		print_close_array();
	return err;
}

/* run help's second half: what each keyword does. */
static void run_usage_keywords(FILE *f)
{
	fputs("time: seconds, fractions allowed (default 10 s without a limit)\n"
	      "interval: a progress line (JSON: an intervals array) this often\n"
	      "warmup: send this long before the measured window (rates, CPU) opens;\n"
	      "        a time limit counts from the window's start\n"
	      "cpus: CPUs for the sending workers, e.g. 0-3,8\n"
	      "tx user: the workers send from this process's memory (buffer bytes),\n"
	      "         so the stack makes its own user copy (tx-nocache-copy applies)\n"
	      "probe: count the kernel's nocache user copies by a kprobe (a trap each:\n"
	      "       shows the path taken, not clean numbers)\n"
	      "probe-rx: count how receiving drivers built their skbs over the window\n"
	      "       (build_skb, alloc+copy, page frags; GRO merges), by kprobes on\n"
	      "       every CPU: traps too, and other receive traffic counts\n"
	      "events: PMU events (cycles, instructions, cache-references, cache-misses,\n"
	      "       llc-load-misses, or all) counted on every CPU over the window, per\n"
	      "       KB and message of each group (metrics run_EVENT_per_kb, ...); one\n"
	      "       the host cannot count is absent with its errno, never 0\n"
	      "tcp_rr, udp_rr, tcp_crr: transactions of req bytes answered with resp bytes\n"
	      "       (default 1/1, udp_rr 40/40), one outstanding per flow; tcp_crr\n"
	      "       connects for each; rate TPS per flow makes it open loop, latency\n"
	      "       counted from each request's slot; percentiles default\n"
	      "       50,90,95,99,99.9; timeout: udp_rr gives up a transaction\n"
	      "token: the sink's (sink add prints it), for a response larger than\n"
	      "       its request: the sink answers one only to its token, up to its\n"
	      "       resp-max (a run with peer takes the peer's)\n"
	      "rate (streams): pace each flow at bits/s (100M, 2.5G) or send calls/s\n"
	      "       (1000pps), in bursts of burst bytes or calls (default one call)\n"
	      "busy-poll: a worker whose flows all wait spins this long (50, 200us,\n"
	      "       10ms) after the last thing it did before it sleeps: a CPU spent\n"
	      "       for the wake-up latency (give the sink the same)\n"
	      "gso N (udp_stream, tx stack): N datagrams per send call as one UDP GSO\n"
	      "       skb, segmented by the core before a device without UDP\n"
	      "       segmentation offload, or by the receiver (veth, lo); with\n"
	      "       rate Npps, N datagrams count N\n"
	      "repeat N [confidence LEVEL,WIDTH] [show M,...] [keep-going]\n"
	      "       [csv [columns M,...]]: N runs, each metric summarized (min, P10,\n"
	      "       median, mean, P90, max, stddev, CI), and those show names (ktgen\n"
	      "       ab help: any value); a failed run is tried once more, then ends\n"
	      "       the job, or with keep-going is left out;\n"
	      "       confidence stops once the LEVEL interval of the mean is narrower\n"
	      "       than WIDTH (an estimate: verdicts need a fixed N, see ktgen ab and\n"
	      "       ktgen diff); csv: a row per run (the metrics of columns)\n"
	      "knob: a device setting (ktgen dev help) applied before the flows start\n"
	      "       and put back when the run ends, on Ctrl-C or SIGTERM too; in the\n"
	      "       result. Receiver knobs name the sink's device (kn1@ns-b).\n"
	      "peer: the sink on another host, over ssh ($KTGEN_SSH, default\n"
	      "       'ssh -o BatchMode=yes'; there $KTGEN_PEER_CMD, default 'ktgen'):\n"
	      "       added for the run with peer-rx, peer-cpus, peer-rcvbuf, its knobs\n"
	      "       (peer-knob) applied there; its receive rate, CPU, service demand\n"
	      "       and counters in the result; removed and put back when the run\n"
	      "       ends, on Ctrl-C or when this process dies too.\n", f);
}

static void run_usage(FILE *f)
{
	fputs("Usage: ktgen run tcp_stream|udp_stream|tcp_rr|udp_rr|tcp_crr to ADDR port PORT\n"
	      "                 [local ADDR]\n"
	      "                 [dev IFNAME] [size BYTES] [flows N] [cpus LIST]\n"
	      "                 [time SECS | bytes N | msgs N]\n"
	      "                 [tx stack|cached|nocache|zerocopy|user]\n"
	      "                 [buffer BYTES] [sndbuf BYTES] [nodelay] [detach]\n"
	      "                 [interval SECS] [warmup SECS] [probe] [probe-rx]\n"
	      "                 [events LIST|all]\n"
	      "                 [req BYTES] [resp BYTES] [rate TPS] [percentiles LIST]\n"
	      "                 [timeout SECS] [token TOKEN]\n"
	      "                 [rate BITS/s|Npps [burst N]] [busy-poll USECS]\n"
	      "                 [gso N]\n"
	      "                 [knob IFNAME[@NETNS] KNOB]... [repeat N [confidence L,W]]\n"
	      "                 [peer ssh://[USER@]HOST[:PORT] [peer-rx MODE] [peer-cpus LIST]\n"
	      "                  [peer-rcvbuf BYTES] [peer-knob IFNAME[@NETNS] KNOB]...]\n"
	      "       ktgen run show [ID]\n"
	      "       ktgen run stop ID|all\n"
	      "       ktgen run del ID|all\n"
	      "A run waits for its result and prints it (exit 1 when it failed);\n"
	      "Ctrl-C stops it early and prints the partial result. detach prints\n"
	      "the run's id and leaves it running ('ktgen run show ID').\n", f);
	run_usage_keywords(f);
}

/* The command line of show, stop or del, checked before any netlink. */
static int run_cmd_parse(const char *cmd, int argc, char **argv, bool *all,
			 uint32_t *id)
{
	char name[16];

	snprintf(name, sizeof(name), "run %s", cmd);
	*all = false;
	if (!strcmp(cmd, "show") && argc == 0)
		return 0;
	return parse_id_arg(name, argc, argv, strcmp(cmd, "show"), all, id);
}

static int run_cmd(const char *cmd, int argc, char **argv)
{
	struct nl_ctx ctx;
	bool all = false;
	uint32_t id = 0;
	int err;

	if (run_cmd_parse(cmd, argc, argv, &all, &id))
		return EXIT_USAGE;
	if (nl_open(&ctx))
		return EXIT_FAIL;
	if (!strcmp(cmd, "show"))
		err = run_show(&ctx, argc > 0, id);
	else
		err = run_request(&ctx, !strcmp(cmd, "stop") ? KTGEN_CMD_RUN_STOP :
				  KTGEN_CMD_RUN_DEL, all, id, NULL, NULL);
	nl_close(&ctx);
	return err ? EXIT_FAIL : EXIT_OK;
}

/* run TEST ... repeat N ...: the words of one run checked first (a bad
 * word fails at once, before any run), then the job.
 */
static int run_repeat_checked(int test, int argc, char **argv)
{
	char **one = calloc(argc, sizeof(char *));
	struct run_args a;
	int n = 0, k, ret;

	if (!one)
		return EXIT_FAIL;
	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "repeat") || !strcmp(argv[k], "confidence") ||
		    !strcmp(argv[k], "columns") || !strcmp(argv[k], "show"))
			k++;
		else if (strcmp(argv[k], "csv") && strcmp(argv[k], "keep-going"))
			one[n++] = argv[k];
	}
	ret = run_parse(&a, test, n, one);
	if (!ret && a.detach) {
		usage_error("run: repeat: runs are waited for, not detached");
		ret = -1;
	}
	if (!ret)
		ret = run_job_check(&a);
	knobs_free(&a.knobs);
	peer_free(&a.peer);
	free(one);
	if (ret)
		return EXIT_USAGE;
	return run_repeat(argc, argv);
}

int do_run(int argc, char **argv)
{
	struct run_args a;
	struct nl_ctx ctx;
	int test, ret;

	if (argc < 1) {
		usage_error("run: which test? (tcp_stream, udp_stream, tcp_rr, udp_rr or tcp_crr)");
		return EXIT_USAGE;
	}
	if (is_help(argv[0])) {
		run_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[0], "show") || !strcmp(argv[0], "stop") ||
	    !strcmp(argv[0], "del"))
		return run_cmd(argv[0], argc - 1, argv + 1);
	test = lookup_name(argv[0], test_names, ARRAY_SIZE(test_names));
	if (test < 0) {
		usage_error("run: unknown test or command '%s'", argv[0]);
		return EXIT_USAGE;
	}
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "repeat"))
			return run_repeat_checked(test, argc, argv);
	if (run_parse(&a, test, argc - 1, argv + 1)) {
		knobs_free(&a.knobs);
		return EXIT_USAGE;
	}

	if (nl_open(&ctx)) {
		knobs_free(&a.knobs);
		return EXIT_FAIL;
	}
	ret = a.detach ? run_detached(&ctx, &a) : run_attached(&ctx, &a);
	nl_close(&ctx);
	knobs_free(&a.knobs);
	peer_free(&a.peer);
	return ret;
}
