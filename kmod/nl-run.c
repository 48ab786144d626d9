// SPDX-License-Identifier: GPL-2.0
/*
 * Run messages: a run's reply prepared, then filled (the run with its CPU
 * cost and PMU events, a flow, an interval), run-new's request checked
 * and the run started, run-get (do and dump), run-stop, run-del, flow-get,
 * and the run-done and run-interval events.
 */
#include <linux/delay.h>
#include <linux/netdevice.h>
#include <net/genetlink.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "cpu-event.h"
#include "cpu.h"
#include "debug.h"
#include "hist.h"
#include "ktgen.h"
#include "netlink.h"
#include "policy.h"
#include "probe.h"
#include "proto.h"
#include "run.h"

static int ktg_cpu_put_event_count(struct sk_buff *msg, const struct ktg_cpu_acct *a, int i,
				   const struct ktg_cpu_evc *sum)
{
	if (nla_put_u64_64bit(msg, KTGEN_A_CPU_EVENT_STATS_ENABLED_NS, sum->enabled, 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_CPU_EVENT_STATS_RUNNING_NS, sum->running, 0) ||
	    (sum->counted &&
	     nla_put_u64_64bit(msg, KTGEN_A_CPU_EVENT_STATS_COUNT, sum->count, 0)) ||
	    (sum->counted && sum->running < sum->enabled &&
	     nla_put_flag(msg, KTGEN_A_CPU_EVENT_STATS_SCALED)) ||
	    (a->pmu.stand_in && nla_put_u32(msg, KTGEN_A_CPU_EVENT_STATS_STAND_IN,
					ktg_cpu_event_stand_in(i))))
		return -EMSGSIZE;
	return 0;
}

/* Run event @i over a group of CPUs: its count (scaled where it was
 * multiplexed), or the errno that makes it absent (its open's, or ENODEV
 * for a CPU that went offline); no count when a CPU never had it running.
 */
static int ktg_cpu_put_event(struct sk_buff *msg, const struct ktg_cpu_acct *a, int i,
			     const struct cpumask *cpus, bool in)
{
	struct ktg_cpu_evc sum;
	struct nlattr *nest;
	int err;

	nest = nla_nest_start(msg, KTGEN_A_CPU_STATS_EVENT);
	if (!nest)
		return -EMSGSIZE;
	err = ktg_cpu_acct_event(a, i, cpus, in, &sum);
	if (nla_put_u32(msg, KTGEN_A_CPU_EVENT_STATS_EVENT, BIT(i)) ||
	    (err && nla_put_u32(msg, KTGEN_A_CPU_EVENT_STATS_ERROR, -err)) ||
	    (!err && ktg_cpu_put_event_count(msg, a, i, &sum))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ktg_cpu_put_group(struct sk_buff *msg, int attr, const struct ktg_cpu_acct *a,
			     const struct cpumask *cpus, bool in, bool perfmon)
{
	u64 busy = 0, cycles = 0;
	u32 khz = ktg_tsc_khz();
	struct nlattr *nest;
	int cpu, i;
	u32 n = 0;

	for_each_cpu(cpu, &a->online) {
		if (cpumask_test_cpu(cpu, cpus) != in)
			continue;
		n++;
		busy += a->busy[cpu];
		if (a->counted)
			cycles += a->count[cpu];
		else
			cycles += mul_u64_u32_div(a->busy[cpu], khz, USEC_PER_SEC);
	}
	nest = nla_nest_start(msg, attr);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, KTGEN_A_CPU_STATS_METHOD,
			a->counted ? a->method : KTGEN_CPU_METHOD_BUSY_TIME) ||
	    nla_put_u32(msg, KTGEN_A_CPU_STATS_CPUS, n) ||
	    nla_put_u64_64bit(msg, KTGEN_A_CPU_STATS_BUSY_NS, busy, 0) ||
	    ((a->counted || khz) && nla_put_u64_64bit(msg, KTGEN_A_CPU_STATS_CYCLES, cycles, 0)) ||
	    (!a->counted && khz && nla_put_flag(msg, KTGEN_A_CPU_STATS_ESTIMATED)))
		goto cancel;
	/* a group without CPUs counted nothing: no event nest; a reader who
	 * could not have asked for the events is told they are withheld
	 * (ktg_nl_perfmon())
	 */
	if (n && a->pmu.mask && !perfmon &&
	    nla_put_flag(msg, KTGEN_A_CPU_STATS_EVENTS_WITHHELD))
		goto cancel;
	for (i = 0; n && perfmon && i < KTG_CPU_EVENTS; i++)
		if ((a->pmu.mask & BIT(i)) && ktg_cpu_put_event(msg, a, i, cpus, in))
			goto cancel;
	nla_nest_end(msg, nest);
	return 0;

cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* cpu-run and cpu-other, once the window has closed. */
static int ktg_cpu_acct_put(struct sk_buff *msg, const struct ktg_cpu_acct *a,
			    const struct cpumask *run_cpus, bool perfmon)
{
	/* pairs with the release in ktg_cpu_acct_stop() */
	if (!a->busy || !smp_load_acquire(&a->done))
		return 0;
	if (ktg_cpu_put_group(msg, KTGEN_A_RUN_CPU_RUN, a, run_cpus, true, perfmon) ||
	    ktg_cpu_put_group(msg, KTGEN_A_RUN_CPU_OTHER, a, run_cpus, false, perfmon))
		return -EMSGSIZE;
	return 0;
}

/*
 * A run's reply is prepared, then filled (ethtool netlink's prepare_data()
 * and fill_reply()). What must agree, the state with its error and its
 * end, is read under run->lock, which ktg_runs_dev_gone() takes under
 * RTNL: nothing else is done under it, so that no reader (an unprivileged
 * one included) holds RTNL up. The counters and histograms, which the
 * workers write without that lock, are read after it, into memory
 * allocated before it; once the state read says finished they are final
 * (the done work sets it under the lock once the workers are gone). A
 * fill only puts attributes: it writes nothing of the run.
 */
struct ktg_run_reply {
	u32		state;		/* enum ktg_run_state */
	int		error;
	u32		error_flow;
	ktime_t		end;		/* the run's, or now */
	struct ktg_hist	*hist;		/* rr: the flows' latencies merged */
	struct ktg_hist	*prev;		/* an interval's: the last one's, to free */
	u64		timeouts;
	u64		late;
	bool		perfmon;	/* the reader may see PMU event counts */
};

static bool ktg_reply_finished(const struct ktg_run_reply *r)
{
	return r->state >= KTG_RUN_DONE;
}

/* Under run->lock: the state, its error and its end, and nothing else. */
static void ktg_run_snapshot(struct ktg_run *run, struct ktg_run_reply *r)
{
	mutex_lock(&run->lock);
	r->state = READ_ONCE(run->state);
	r->error = READ_ONCE(run->error);
	r->error_flow = READ_ONCE(run->error_flow);
	r->end = r->state >= KTG_RUN_DONE ? run->end : ktime_get();
	mutex_unlock(&run->lock);
}

static u32 ktg_run_splice(struct ktg_run *run)
{
	if (run->p.tx_mode == KTGEN_TX_MODE_STACK)
		return KTGEN_SPLICE_NONE;
	if (atomic_read(&run->splice_held))
		return KTGEN_SPLICE_SPLICED;
	if (atomic_read(&run->splice_copied))
		return KTGEN_SPLICE_COPIED;
	return KTGEN_SPLICE_NONE;
}

static int ktg_run_fill_tx(struct sk_buff *msg, struct ktg_run *run,
			   const struct ktg_run_reply *r)
{
	u64 bytes = 0, msgs = 0, acked = 0, retrans = 0, srtt = 0, cwnd = 0;
	bool tcp = run->p.test == KTGEN_TEST_TCP_STREAM || run->p.test == KTGEN_TEST_TCP_RR;
	/* acked and tcp_info at the drain's end: not for tcp-crr's many */
	bool tcp_end = tcp && ktg_reply_finished(r);
	u32 i, info = 0, nocache = 0;
	struct nlattr *nest;

	for (i = 0; i < run->p.flows; i++) {
		struct ktg_flow *f = &run->flows[i];

		bytes += READ_ONCE(f->bytes);
		msgs += READ_ONCE(f->msgs);
		acked += READ_ONCE(f->acked);
		nocache += READ_ONCE(f->nocache_route);
		if (tcp_end && f->has_info) {
			retrans += f->retrans;
			srtt += f->srtt_us;
			cwnd += f->cwnd;
			info++;
		}
	}
	nest = nla_nest_start(msg, KTGEN_A_RUN_TX);
	if (!nest ||
	    nla_put_u64_64bit(msg, KTGEN_A_TX_STATS_BYTES, bytes, 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_TX_STATS_MSGS, msgs, 0) ||
	    (tcp_end && nla_put_u64_64bit(msg, KTGEN_A_TX_STATS_ACKED, acked, 0)) ||
	    nla_put_u64_64bit(msg, KTGEN_A_TX_STATS_SEND_ERRORS,
			      atomic64_read(&run->send_errors), 0) ||
	    (info && (nla_put_u64_64bit(msg, KTGEN_A_TX_STATS_RETRANS, retrans, 0) ||
		      nla_put_u32(msg, KTGEN_A_TX_STATS_SRTT_US, div_u64(srtt, info)) ||
		      nla_put_u32(msg, KTGEN_A_TX_STATS_CWND, div_u64(cwnd, info)))) ||
	    (tcp && nla_put_u32(msg, KTGEN_A_TX_STATS_NOCACHE_COPY_FLOWS, nocache)) ||
	    (run->p.probe_copies &&
	     nla_put_u64_64bit(msg, KTGEN_A_TX_STATS_NOCACHE_COPIES,
			       ktg_reply_finished(r) ? run->nocache :
			       ktg_probe_nocache_hits() - run->nocache0, 0)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * Request/response: every flow's latencies merged (a flow's histogram may
 * be a transaction behind while it runs). Percentiles are the requested
 * ones, or 50, 90, 95, 99 and 99.9 %.
 */
static const u32 ktg_default_ppm[] = { 500000, 900000, 950000, 990000, 999000 };

/* Every flow's histogram merged into @h; the timeouts and late ones. */
static void ktg_run_hist(struct ktg_run *run, struct ktg_hist *h, u64 *timeouts, u64 *late)
{
	u32 i;

	ktg_hist_reset(h);
	*timeouts = 0;
	*late = 0;
	for (i = 0; i < run->p.flows; i++) {
		struct ktg_flow *f = &run->flows[i];

		if (f->hist)
			ktg_hist_merge(h, f->hist);
		*timeouts += READ_ONCE(f->timeouts);
		*late += READ_ONCE(f->late);
	}
	if (unlikely(ktg_test_hook(fill_delay_ms)))
		msleep(min(ktg_test_hook(fill_delay_ms), 60000U));
}

/*
 * The reply of @run prepared into @r: the state as of one moment, then
 * (rr) every flow's latencies merged. @interval (the interval work's only,
 * the one reader and writer of hist_prev): the latencies since the last
 * interval, and now the next one's start. ktg_run_reply_free() after.
 */
static int ktg_run_reply_prepare(struct ktg_run *run, struct ktg_run_reply *r, bool interval)
{
	struct ktg_hist *prev = interval ? run->hist_prev : NULL;

	memset(r, 0, sizeof(*r));
	if (ktg_test_rr(run->p.test) && (!interval || prev)) {
		r->hist = kvmalloc(sizeof(*r->hist), GFP_KERNEL);
		r->prev = prev ? kvmalloc(sizeof(*r->prev), GFP_KERNEL) : NULL;
		if (!r->hist || (prev && !r->prev)) {
			kvfree(r->hist);
			kvfree(r->prev);
			return -ENOMEM;
		}
	}
	ktg_run_snapshot(run, r);
	if (!r->hist)
		return 0;
	ktg_run_hist(run, r->hist, &r->timeouts, &r->late);
	if (prev) {
		/* the merge is the next interval's start; the last one's goes */
		memcpy(r->prev, r->hist, sizeof(*r->prev));
		ktg_hist_sub(r->hist, prev);
		swap(run->hist_prev, r->prev);
		r->timeouts -= run->timeouts_prev;
		r->late -= run->late_prev;
		run->timeouts_prev += r->timeouts;
		run->late_prev += r->late;
	}
	return 0;
}

static void ktg_run_reply_free(struct ktg_run_reply *r)
{
	kvfree(r->hist);
	kvfree(r->prev);
}

/* The latency nest: the run's, or an interval's (ktg_run_reply_prepare()). */
static int ktg_run_fill_latency(struct sk_buff *msg, struct ktg_run *run,
				const struct ktg_run_reply *r)
{
	const u32 *ppm = run->p.npercentiles ? run->p.percentiles : ktg_default_ppm;
	u32 i, n = run->p.npercentiles ?: ARRAY_SIZE(ktg_default_ppm);
	const struct ktg_hist *h = r->hist;
	struct nlattr *nest, *pn;

	nest = nla_nest_start(msg, KTGEN_A_RUN_LATENCY);
	if (!nest ||
	    nla_put_u64_64bit(msg, KTGEN_A_LATENCY_TRANSACTIONS, h->count, 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_LATENCY_TIMEOUTS, r->timeouts, 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_LATENCY_LATE, r->late, 0))
		return -EMSGSIZE;
	if (h->count &&
	    (nla_put_u64_64bit(msg, KTGEN_A_LATENCY_MIN_NS, h->min, 0) ||
	     nla_put_u64_64bit(msg, KTGEN_A_LATENCY_MAX_NS, h->max, 0) ||
	     nla_put_u64_64bit(msg, KTGEN_A_LATENCY_MEAN_NS, ktg_hist_mean(h), 0) ||
	     nla_put_u64_64bit(msg, KTGEN_A_LATENCY_STDDEV_NS, ktg_hist_stddev(h), 0)))
		return -EMSGSIZE;
	for (i = 0; h->count && i < n; i++) {
		pn = nla_nest_start(msg, KTGEN_A_LATENCY_PERCENTILE);
		if (!pn || nla_put_u32(msg, KTGEN_A_PERCENTILE_PPM, ppm[i]) ||
		    nla_put_u64_64bit(msg, KTGEN_A_PERCENTILE_NS,
				      ktg_hist_percentile(h, ppm[i]), 0))
			return -EMSGSIZE;
		nla_nest_end(msg, pn);
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* UDP on the same host: the sender knows what it sent and the sink what
 * arrived, so loss is exact even when closing datagrams were dropped.
 */
static u64 ktg_run_lost(struct ktg_run *run, const struct ktg_run_reply *r)
{
	u64 sent = 0, got;
	u32 i;

	if (run->p.test != KTGEN_TEST_UDP_STREAM || !ktg_reply_finished(r))
		return U64_MAX;
	for (i = 0; i < run->p.flows; i++)
		sent += READ_ONCE(run->flows[i].msgs);
	got = atomic64_read(&run->rx->msgs) - atomic64_read(&run->rx->dup);
	return sent > got ? sent - got : 0;
}

/* The measured window of a run with a warmup, once it opened. */
static int ktg_run_fill_window(struct sk_buff *msg, struct ktg_run *run,
			       const struct ktg_run_reply *r)
{
	/* pairs with the release in ktg_run_window_work() */
	ktime_t wstart = smp_load_acquire(&run->wstart);
	u64 ns = ktime_after(r->end, wstart) ? ktime_to_ns(ktime_sub(r->end, wstart)) : 0;
	u64 bytes = 0, msgs = 0;
	struct nlattr *nest;
	u32 i;

	if (!run->p.warmup_ms || !wstart)
		return 0;
	for (i = 0; i < run->p.flows; i++) {
		bytes += READ_ONCE(run->flows[i].bytes) - run->flows[i].bytes0;
		msgs += READ_ONCE(run->flows[i].msgs) - run->flows[i].msgs0;
	}
	nest = nla_nest_start(msg, KTGEN_A_RUN_WINDOW);
	if (!nest ||
	    nla_put_u64_64bit(msg, KTGEN_A_WINDOW_START_NS,
			      ktime_to_ns(ktime_sub(wstart, run->start)), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_WINDOW_DURATION_NS, ns, 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_WINDOW_TX_BYTES, bytes, 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_WINDOW_TX_MSGS, msgs, 0) ||
	    (atomic64_read(&run->rx->conns) &&
	     (nla_put_u64_64bit(msg, KTGEN_A_WINDOW_RX_BYTES,
				atomic64_read(&run->rx->bytes) - run->rx_bytes0, 0) ||
	      nla_put_u64_64bit(msg, KTGEN_A_WINDOW_RX_MSGS,
				atomic64_read(&run->rx->msgs) - run->rx_msgs0, 0))))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* probe-rx: how drivers built their skbs over the window, the counters
 * this kernel could probe; nothing before the window opened.
 */
static int ktg_run_fill_rx_path(struct sk_buff *msg, struct ktg_run *run,
				const struct ktg_run_reply *r)
{
	static const u16 attr[KTG_RXP_N] = {
		[KTG_RXP_BUILD]		= KTGEN_A_RX_PATH_BUILD_SKB,
		[KTG_RXP_ALLOC]		= KTGEN_A_RX_PATH_ALLOC_SKB,
		[KTG_RXP_GET_FRAGS]	= KTGEN_A_RX_PATH_GET_FRAGS,
		[KTG_RXP_ADD_FRAG]	= KTGEN_A_RX_PATH_ADD_FRAG,
		[KTG_RXP_GRO_MERGED]	= KTGEN_A_RX_PATH_GRO_MERGED,
	};
	struct nlattr *nest;
	u64 n[KTG_RXP_N];
	int i;

	/* pairs with the release in ktg_run_rxp_open() */
	if (!run->p.probe_rx || !smp_load_acquire(&run->rxp_open))
		return 0;
	if (ktg_reply_finished(r)) {
		memcpy(n, run->rxp, sizeof(n));
	} else {
		ktg_rxprobe_read(n);
		for (i = 0; i < KTG_RXP_N; i++)
			n[i] -= run->rxp0[i];
	}
	nest = nla_nest_start(msg, KTGEN_A_RUN_RX_PATH);
	if (!nest || nla_put_u32(msg, KTGEN_A_RX_PATH_AVAILABLE, run->rxp_avail))
		return -EMSGSIZE;
	for (i = 0; i < KTG_RXP_N; i++)
		if ((run->rxp_avail & BIT(i)) &&
		    nla_put_u64_64bit(msg, attr[i], n[i], 0))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* How long a run has run by @end: 0 while it is published but not yet
 * started (RUN_NEW between its listing and its workers' start).
 */
static u64 ktg_run_duration_ns(const struct ktg_run *run, ktime_t end)
{
	ktime_t start = READ_ONCE(run->start);

	return start ? ktime_to_ns(ktime_sub(end, start)) : 0;
}

/* Everything about a run: do, dump and the run-done notification. */
static int ktg_run_fill(struct sk_buff *msg, struct ktg_run *run, const struct ktg_run_reply *r)
{
	struct ktg_run_params *p = &run->p;

	if (nla_put_u32(msg, KTGEN_A_RUN_ID, run->id) ||
	    nla_put_u32(msg, KTGEN_A_RUN_TEST, p->test) ||
	    ktg_addr_put(msg, KTGEN_A_RUN_REMOTE_ADDR, &p->remote) ||
	    nla_put_be16(msg, KTGEN_A_RUN_REMOTE_PORT, ktg_addr_port(&p->remote)) ||
	    (p->has_local && ktg_addr_put(msg, KTGEN_A_RUN_LOCAL_ADDR, &p->local)) ||
	    (p->ifindex && nla_put_u32(msg, KTGEN_A_RUN_IFINDEX, p->ifindex)) ||
	    nla_put_u32(msg, KTGEN_A_RUN_SIZE, p->size) ||
	    nla_put_u32(msg, KTGEN_A_RUN_FLOWS, p->flows) ||
	    ktg_cpus_put(msg, KTGEN_A_RUN_CPUS, p->cpus) ||
	    (p->time_ms && nla_put_u32(msg, KTGEN_A_RUN_TIME_MS, p->time_ms)) ||
	    (p->bytes && nla_put_u64_64bit(msg, KTGEN_A_RUN_BYTES, p->bytes, 0)) ||
	    (p->msgs && nla_put_u64_64bit(msg, KTGEN_A_RUN_MSGS, p->msgs, 0)) ||
	    nla_put_u32(msg, KTGEN_A_RUN_TX_MODE, p->tx_mode) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RUN_BUFFER, p->buffer, 0) ||
	    (p->sndbuf && nla_put_u32(msg, KTGEN_A_RUN_SNDBUF, p->sndbuf)) ||
	    (p->nodelay && nla_put_flag(msg, KTGEN_A_RUN_NODELAY)) ||
	    (p->detach && nla_put_flag(msg, KTGEN_A_RUN_DETACH)) ||
	    (p->probe_copies && nla_put_flag(msg, KTGEN_A_RUN_PROBE_COPIES)) ||
	    (p->probe_rx && nla_put_flag(msg, KTGEN_A_RUN_PROBE_RX)) ||
	    (p->events && nla_put_u32(msg, KTGEN_A_RUN_EVENTS, p->events)) ||
	    (p->interval_ms && nla_put_u32(msg, KTGEN_A_RUN_INTERVAL_MS, p->interval_ms)) ||
	    (p->warmup_ms && nla_put_u32(msg, KTGEN_A_RUN_WARMUP_MS, p->warmup_ms)) ||
	    (p->pace_bps && nla_put_u64_64bit(msg, KTGEN_A_RUN_PACE_BPS, p->pace_bps, 0)) ||
	    (p->pace_pps && nla_put_u32(msg, KTGEN_A_RUN_PACE_PPS, p->pace_pps)) ||
	    (p->burst && nla_put_u32(msg, KTGEN_A_RUN_BURST, p->burst)) ||
	    (p->busy_poll_us && nla_put_u32(msg, KTGEN_A_RUN_BUSY_POLL, p->busy_poll_us)) ||
	    (p->gso && nla_put_u32(msg, KTGEN_A_RUN_GSO, p->gso)) ||
	    nla_put_u32(msg, KTGEN_A_RUN_STATE, ktg_run_state_uapi(r->state)) ||
	    (r->error && (nla_put_u32(msg, KTGEN_A_RUN_ERROR, -r->error) ||
			  nla_put_u32(msg, KTGEN_A_RUN_ERROR_FLOW, r->error_flow))) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RUN_DURATION_NS,
			      ktg_run_duration_ns(run, r->end), 0) ||
	    nla_put_u32(msg, KTGEN_A_RUN_SPLICE, ktg_run_splice(run)) ||
	    ktg_run_fill_tx(msg, run, r) ||
	    (atomic64_read(&run->rx->conns) &&
	     ktg_rx_stats_fill(msg, KTGEN_A_RUN_RX, run->rx, ktg_run_lost(run, r))) ||
	    ktg_cpu_acct_put(msg, &run->cpu, p->cpus, r->perfmon) ||
	    ktg_run_fill_window(msg, run, r) ||
	    ktg_run_fill_rx_path(msg, run, r))
		return -EMSGSIZE;
	if (ktg_test_rr(p->test) &&
	    (nla_put_u32(msg, KTGEN_A_RUN_REQ_SIZE, p->req_size) ||
	     nla_put_u32(msg, KTGEN_A_RUN_RESP_SIZE, p->resp_size) ||
	     (p->rate && nla_put_u32(msg, KTGEN_A_RUN_RATE, p->rate)) ||
	     (p->test == KTGEN_TEST_UDP_RR &&
	      nla_put_u32(msg, KTGEN_A_RUN_RR_TIMEOUT_MS, p->rr_timeout_ms)) ||
	     ktg_run_fill_latency(msg, run, r)))
		return -EMSGSIZE;
	return 0;
}

/* Flow @i of @run (a flow-get dump message). TCP's acknowledged bytes
 * and tcp_info figures are the drain's, so they come once the run ended.
 */
static int ktg_run_fill_flow(struct sk_buff *msg, struct ktg_run *run, u32 i,
			     const struct ktg_run_reply *r)
{
	struct ktg_flow *f = &run->flows[i];
	bool tcp_end = ktg_reply_finished(r) && (run->p.test == KTGEN_TEST_TCP_STREAM ||
					       run->p.test == KTGEN_TEST_TCP_RR);

	if (nla_put_u32(msg, KTGEN_A_FLOW_RUN_ID, run->id) ||
	    nla_put_u32(msg, KTGEN_A_FLOW_ID, i) ||
	    nla_put_u64_64bit(msg, KTGEN_A_FLOW_BYTES, READ_ONCE(f->bytes), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_FLOW_MSGS, READ_ONCE(f->msgs), 0) ||
	    (tcp_end && nla_put_u64_64bit(msg, KTGEN_A_FLOW_ACKED, READ_ONCE(f->acked), 0)) ||
	    (tcp_end && f->has_info &&
	     (nla_put_u32(msg, KTGEN_A_FLOW_RETRANS, f->retrans) ||
	      nla_put_u32(msg, KTGEN_A_FLOW_SRTT_US, f->srtt_us) ||
	      nla_put_u32(msg, KTGEN_A_FLOW_CWND, f->cwnd))) ||
	    (run->p.test == KTGEN_TEST_UDP_RR &&
	     nla_put_u64_64bit(msg, KTGEN_A_FLOW_TIMEOUTS, READ_ONCE(f->timeouts), 0)))
		return -EMSGSIZE;
	return 0;
}

/* A run-interval notification: progress so far, counters cumulative. */
static int ktg_run_fill_interval(struct sk_buff *msg, struct ktg_run *run,
				 const struct ktg_run_reply *r)
{
	if (nla_put_u32(msg, KTGEN_A_RUN_ID, run->id) ||
	    nla_put_u32(msg, KTGEN_A_RUN_STATE, ktg_run_state_uapi(r->state)) ||
	    nla_put_u32(msg, KTGEN_A_RUN_INTERVAL, run->intervals) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RUN_DURATION_NS,
			      ktg_run_duration_ns(run, ktime_get()), 0) ||
	    ktg_run_fill_tx(msg, run, r) ||
	    (atomic64_read(&run->rx->conns) &&
	     ktg_rx_stats_fill(msg, KTGEN_A_RUN_RX, run->rx, U64_MAX)) ||
	    (r->hist && ktg_run_fill_latency(msg, run, r)))
		return -EMSGSIZE;
	return 0;
}

/*
 * PMU event counts are counts of every CPU, and go only to whom perf would
 * give them: a run asks for them with CAP_PERFMON or CAP_SYS_ADMIN, and a
 * reply carries them only to a reader with one of them (never to the
 * events group, whose listeners need neither: they ask with run-get).
 */
static bool ktg_nl_perfmon(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_PERFMON) || netlink_capable(skb, CAP_SYS_ADMIN);
}

/* @perfmon: the reader may see the run's PMU event counts. */
static int ktg_nl_run_send(struct sk_buff *msg, struct ktg_run *run, u32 portid,
			   u32 seq, int flags, u8 cmd, bool perfmon)
{
	struct ktg_run_reply r;
	void *hdr;
	int err;

	err = ktg_run_reply_prepare(run, &r, false);
	if (err)
		return err;
	r.perfmon = perfmon;
	hdr = genlmsg_put(msg, portid, seq, &ktg_nl_family, flags, cmd);
	if (!hdr || ktg_run_fill(msg, run, &r)) {
		if (hdr)
			genlmsg_cancel(msg, hdr);
		err = -EMSGSIZE;
	} else {
		genlmsg_end(msg, hdr);
	}
	ktg_run_reply_free(&r);
	return err;
}

/* From the run's completion, once it is published as finished. */
void ktg_nl_notify_run_done(struct ktg_run *run)
{
	struct ktg_net *kn = run->kn;
	struct sk_buff *msg;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto lost;
	if (ktg_nl_run_send(msg, run, 0, 0, 0, KTGEN_CMD_RUN_DONE, false)) {
		nlmsg_free(msg);
		goto lost;
	}
	genlmsg_multicast_netns(&ktg_nl_family, kn->net, msg, 0, KTG_NL_GRP_EVENTS, GFP_KERNEL);
	return;
lost:
	ktg_nl_notify_lost(kn->net);
}

/* From the run's interval work: progress to the events group. */
void ktg_nl_notify_run_interval(struct ktg_run *run)
{
	struct ktg_run_reply r;
	struct sk_buff *msg;
	void *hdr;

	if (ktg_run_reply_prepare(run, &r, true))
		goto lost;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto err_free_reply;
	hdr = genlmsg_put(msg, 0, 0, &ktg_nl_family, 0, KTGEN_CMD_RUN_INTERVAL);
	if (!hdr || ktg_run_fill_interval(msg, run, &r)) {
		nlmsg_free(msg);
		goto err_free_reply;
	}
	genlmsg_end(msg, hdr);
	ktg_run_reply_free(&r);
	genlmsg_multicast_netns(&ktg_nl_family, run->kn->net, msg, 0, KTG_NL_GRP_EVENTS,
				GFP_KERNEL);
	return;
err_free_reply:
	ktg_run_reply_free(&r);
lost:
	ktg_nl_notify_lost(run->kn->net);
}

/*
 * Pacing: streams pace by bits or packets per second, with an optional
 * burst; request/response tests pace by transactions (rate, below).
 */
static int ktg_nl_pace_params(struct genl_info *info, struct ktg_run_params *p)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;

	p->pace_bps = tb[KTGEN_A_RUN_PACE_BPS] ? nla_get_u64(tb[KTGEN_A_RUN_PACE_BPS]) : 0;
	p->pace_pps = ktg_nl_u32(info, KTGEN_A_RUN_PACE_PPS, 0);
	p->burst = ktg_nl_u32(info, KTGEN_A_RUN_BURST, 0);
	p->busy_poll_us = ktg_nl_u32(info, KTGEN_A_RUN_BUSY_POLL, 0);
	if (p->pace_bps && p->pace_pps) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KTGEN_A_RUN_PACE_PPS],
				    "pace in bits/s or in packets/s, not both");
		return -EINVAL;
	}
	if (p->burst && !p->pace_bps && !p->pace_pps) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KTGEN_A_RUN_BURST], "burst is for paced streams");
		return -EINVAL;
	}
	if (ktg_test_rr(p->test) && (p->pace_bps || p->pace_pps)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[p->pace_bps ? KTGEN_A_RUN_PACE_BPS :
					       KTGEN_A_RUN_PACE_PPS],
				    "request/response tests pace with rate");
		return -EINVAL;
	}
	return 0;
}

/* The percentiles a request/response run reports, in parts per million
 * (the policy bounds the list's length).
 */
static int ktg_nl_percentiles(struct genl_info *info, struct ktg_run_params *p)
{
	struct nlattr *pct = info->attrs[KTGEN_A_RUN_PERCENTILES];
	u32 i;

	if (!pct)
		return 0;
	p->npercentiles = nla_len(pct) / sizeof(u32);
	if (nla_len(pct) % sizeof(u32) || !p->npercentiles) {
		NL_SET_ERR_MSG_ATTR(info->extack, pct, "a list of u32 parts per million");
		return -EINVAL;
	}
	memcpy(p->percentiles, nla_data(pct), nla_len(pct));
	for (i = 0; i < p->npercentiles; i++)
		if (p->percentiles[i] > 1000000) {
			NL_SET_ERR_MSG_ATTR(info->extack, pct, "a percentile above 100 %");
			return -EINVAL;
		}
	return 0;
}

/* A run that is not request/response names none of its attributes. */
static int ktg_nl_rr_only(struct genl_info *info)
{
	static const int rr_only[] = {
		KTGEN_A_RUN_REQ_SIZE, KTGEN_A_RUN_RESP_SIZE, KTGEN_A_RUN_RATE,
		KTGEN_A_RUN_PERCENTILES, KTGEN_A_RUN_RR_TIMEOUT_MS,
		KTGEN_A_RUN_TOKEN,
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(rr_only); i++)
		if (info->attrs[rr_only[i]]) {
			NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[rr_only[i]],
					    "for tcp-rr and udp-rr only");
			return -EINVAL;
		}
	return 0;
}

/*
 * Request/response settings: sizes from req-size and resp-size (a udp-rr
 * datagram carries the 40-byte ktgen header both ways), a transaction
 * rate, percentiles, the timeout and the sink's token; sent from kernel
 * (stack) or user memory.
 */
static int ktg_nl_rr_params(struct genl_info *info, struct ktg_run_params *p)
{
	static const int sizes[] = { KTGEN_A_RUN_REQ_SIZE, KTGEN_A_RUN_RESP_SIZE };
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	bool udp = p->test == KTGEN_TEST_UDP_RR;
	u32 i, hdr = udp ? sizeof(struct ktg_dgram) : 1;

	if (!ktg_test_rr(p->test))
		return ktg_nl_rr_only(info);
	if (tb[KTGEN_A_RUN_SIZE]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KTGEN_A_RUN_SIZE],
				    "request/response tests take req-size and resp-size");
		return -EINVAL;
	}
	if (tb[KTGEN_A_RUN_BYTES]) {
		/* a request cut short would never be answered */
		NL_SET_ERR_MSG_ATTR(extack, tb[KTGEN_A_RUN_BYTES],
				    "request/response tests take a time or msgs limit");
		return -EINVAL;
	}
	if (p->tx_mode != KTGEN_TX_MODE_STACK && p->tx_mode != KTGEN_TX_MODE_USER) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KTGEN_A_RUN_TX_MODE],
				    "request/response tests send with tx stack or user");
		return -EINVAL;
	}
	p->token = tb[KTGEN_A_RUN_TOKEN] ? nla_get_u64(tb[KTGEN_A_RUN_TOKEN]) : 0;
	p->req_size = ktg_nl_u32(info, KTGEN_A_RUN_REQ_SIZE, hdr);
	p->resp_size = ktg_nl_u32(info, KTGEN_A_RUN_RESP_SIZE, hdr);
	for (i = 0; udp && i < ARRAY_SIZE(sizes); i++)
		if (ktg_nl_u32(info, sizes[i], hdr) < hdr) {
			NL_SET_ERR_MSG_ATTR(extack, tb[sizes[i]],
					    "udp-rr datagrams carry a 40-byte header: at least 40");
			return -EINVAL;
		}
	p->size = p->req_size;
	p->rate = ktg_nl_u32(info, KTGEN_A_RUN_RATE, 0);
	p->rr_timeout_ms = ktg_nl_u32(info, KTGEN_A_RUN_RR_TIMEOUT_MS, 1000);
	return ktg_nl_percentiles(info, p);
}

/* UDP GSO: stack-sent udp_stream datagrams, as many as one send holds. */
static int ktg_nl_gso(struct genl_info *info, struct ktg_run_params *p)
{
	struct nlattr *attr = info->attrs[KTGEN_A_RUN_GSO];
	struct netlink_ext_ack *extack = info->extack;

	p->gso = ktg_nl_u32(info, KTGEN_A_RUN_GSO, 0);
	if (!p->gso)
		return 0;
	if (p->test != KTGEN_TEST_UDP_STREAM) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "gso batches udp_stream datagrams only");
		return -EINVAL;
	}
	if (p->tx_mode != KTGEN_TX_MODE_STACK) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "gso sends with tx stack only");
		return -EINVAL;
	}
	if ((u64)p->size * p->gso > KTG_MAX_UDP_SIZE) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "gso datagrams of this size exceed the 65507 bytes of one send");
		return -EINVAL;
	}
	return 0;
}

/* Without RTNL: the device list under RCU. */
static bool ktg_dev_exists(struct net *net, int ifindex)
{
	bool found;

	rcu_read_lock();
	found = !!dev_get_by_index_rcu(net, ifindex);
	rcu_read_unlock();
	return found;
}

/* RUN_NEW's scalars and flags into @p, defaults where absent. */
static void ktg_nl_run_scalars(struct genl_info *info, struct ktg_run_params *p)
{
	struct nlattr **tb = info->attrs;

	p->test = ktg_nl_u32(info, KTGEN_A_RUN_TEST, KTGEN_TEST_TCP_STREAM);
	p->tx_mode = ktg_nl_u32(info, KTGEN_A_RUN_TX_MODE, KTGEN_TX_MODE_STACK);
	p->flows = ktg_nl_u32(info, KTGEN_A_RUN_FLOWS, 1);
	p->size = ktg_nl_u32(info, KTGEN_A_RUN_SIZE,
			     p->test == KTGEN_TEST_UDP_STREAM ? 1024 : SZ_64K);
	p->time_ms = ktg_nl_u32(info, KTGEN_A_RUN_TIME_MS, 0);
	p->sndbuf = ktg_nl_u32(info, KTGEN_A_RUN_SNDBUF, 0);
	p->interval_ms = ktg_nl_u32(info, KTGEN_A_RUN_INTERVAL_MS, 0);
	p->warmup_ms = ktg_nl_u32(info, KTGEN_A_RUN_WARMUP_MS, 0);
	p->ifindex = ktg_nl_u32(info, KTGEN_A_RUN_IFINDEX, 0);
	p->bytes = tb[KTGEN_A_RUN_BYTES] ? nla_get_u64(tb[KTGEN_A_RUN_BYTES]) : 0;
	p->msgs = tb[KTGEN_A_RUN_MSGS] ? nla_get_u64(tb[KTGEN_A_RUN_MSGS]) : 0;
	p->buffer = tb[KTGEN_A_RUN_BUFFER] ? nla_get_u64(tb[KTGEN_A_RUN_BUFFER]) : 0;
	p->nodelay = tb[KTGEN_A_RUN_NODELAY];
	p->detach = tb[KTGEN_A_RUN_DETACH];
	p->probe_copies = tb[KTGEN_A_RUN_PROBE_COPIES];
	p->probe_rx = tb[KTGEN_A_RUN_PROBE_RX];
	p->events = ktg_nl_u32(info, KTGEN_A_RUN_EVENTS, 0);
	p->user_buf = tb[KTGEN_A_RUN_USER_BUF] ? nla_get_u64(tb[KTGEN_A_RUN_USER_BUF]) : 0;
}

/* RUN_NEW's device and addresses: the remote one, a local one of its
 * family.
 */
static int ktg_nl_run_addrs(struct genl_info *info, struct ktg_run_params *p)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	__be16 port;
	int err;

	if (p->ifindex && !ktg_dev_exists(genl_info_net(info), p->ifindex)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KTGEN_A_RUN_IFINDEX], "no such device");
		return -ENODEV;
	}
	err = ktg_nl_port(info, KTGEN_A_RUN_REMOTE_PORT, &port);
	if (err)
		return err;
	err = ktg_addr_parse(tb[KTGEN_A_RUN_REMOTE_ADDR], AF_INET, port, &p->remote, extack);
	if (err || !tb[KTGEN_A_RUN_LOCAL_ADDR])
		return err;
	err = ktg_addr_parse(tb[KTGEN_A_RUN_LOCAL_ADDR], AF_INET, 0, &p->local, extack);
	if (err)
		return err;
	if (p->local.ss_family != p->remote.ss_family) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KTGEN_A_RUN_LOCAL_ADDR],
				    "local and remote addresses are of different families");
		return -EINVAL;
	}
	p->has_local = true;
	return 0;
}

static int ktg_nl_run_params(struct genl_info *info, struct ktg_run_params *p)
{
	struct nlattr **tb = info->attrs;
	struct netlink_ext_ack *extack = info->extack;
	int err;

	if (ktg_req_attr_missing(info, KTGEN_A_RUN_REMOTE_ADDR) ||
	    ktg_req_attr_missing(info, KTGEN_A_RUN_REMOTE_PORT))
		return -EINVAL;
	ktg_nl_run_scalars(info, p);
	if (p->test == KTGEN_TEST_UDP_STREAM && p->size > KTG_MAX_UDP_SIZE) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KTGEN_A_RUN_SIZE],
				    "a UDP datagram carries at most 65507 bytes");
		return -EINVAL;
	}
	err = ktg_nl_gso(info, p);
	if (err)
		return err;
	if (!!p->time_ms + !!p->bytes + !!p->msgs > 1) {
		NL_SET_ERR_MSG(extack, "give one limit: time, bytes or msgs");
		return -EINVAL;
	}
	err = ktg_nl_pace_params(info, p);
	if (!err)
		err = ktg_nl_rr_params(info, p);
	if (err)
		return err;
	err = ktg_nl_user_mem(info, KTGEN_A_RUN_USER_BUF,
			      p->tx_mode == KTGEN_TX_MODE_USER,
			      PAGE_ALIGN(p->buffer ?: KTG_DEFAULT_BUFFER));
	if (err)
		return err;
	if (p->detach && !p->time_ms && !p->bytes && !p->msgs) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KTGEN_A_RUN_DETACH],
				    "a detached run needs a time, byte or message limit");
		return -EINVAL;
	}
	return ktg_nl_run_addrs(info, p);
}

/* Kernel counters bypass perf_event_paranoid: events are asked for only
 * by those to whom perf would give them (ktg_nl_perfmon()).
 */
static int ktg_nl_run_events_perm(struct sk_buff *skb, struct genl_info *info, u32 events)
{
	if (!events || ktg_nl_perfmon(skb))
		return 0;
	NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KTGEN_A_RUN_EVENTS],
			    "events need CAP_PERFMON or CAP_SYS_ADMIN");
	return -EPERM;
}

/* The run's CPUs (its first online CPU when the request names none), in a
 * mask of @p's own that the run takes over; nothing held on an error.
 */
static int ktg_nl_run_cpus(struct genl_info *info, struct ktg_run_params *p)
{
	int err;

	if (!zalloc_cpumask_var(&p->cpus, GFP_KERNEL)) {
		NL_SET_ERR_MSG(info->extack, "no memory for the run");
		return -ENOMEM;
	}
	err = ktg_cpus_parse(info->attrs[KTGEN_A_RUN_CPUS], p->cpus,
			     cpumask_of(cpumask_first(cpu_online_mask)), info->extack);
	if (err)
		free_cpumask_var(p->cpus);
	return err;
}

int ktg_nl_run_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ktg_net *kn = ktg_pernet(genl_info_net(info));
	struct ktg_run_params p = {};
	struct ktg_run *run;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = ktg_nl_run_params(info, &p);
	if (!err)
		err = ktg_nl_run_events_perm(skb, info, p.events);
	if (!err)
		err = ktg_nl_run_cpus(info, &p);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		free_cpumask_var(p.cpus);
		NL_SET_ERR_MSG(info->extack, "no memory for the reply");
		return -ENOMEM;
	}

	/* Built (buffers filled, flows connected) outside kn->lock; listed,
	 * answered, then started: the reply goes before any notification
	 * of the run.
	 */
	err = ktg_run_create(kn, &p, info->snd_portid, &run, info->extack);
	if (err == -EFAULT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KTGEN_A_RUN_USER_BUF],
				    "cannot write the payload to the user memory");
	if (err) {
		NL_SET_ERR_MSG_WEAK(info->extack, "cannot create the run");
		nlmsg_free(msg);
		return err;
	}
	hdr = genlmsg_put_reply(msg, info, &ktg_nl_family, 0, KTGEN_CMD_RUN_NEW);
	/* Ours until it is started: once listed, it may be done, deleted
	 * and its table's reference put before ktg_run_start() returns.
	 */
	ktg_run_hold(run);
	ktg_run_publish(run);
	if (!hdr || nla_put_u32(msg, KTGEN_A_RUN_ID, run->id)) {
		/* The run goes on; the caller finds it with run show. */
		nlmsg_free(msg);
		err = -EMSGSIZE;
	} else {
		genlmsg_end(msg, hdr);
		err = genlmsg_reply(msg, info);
	}
	ktg_run_start(run);
	ktg_run_put(run);
	return err;
}

int ktg_nl_run_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ktg_net *kn = ktg_pernet(genl_info_net(info));
	struct sk_buff *msg;
	struct ktg_run *run;
	int err;

	if (ktg_req_attr_missing(info, KTGEN_A_RUN_ID))
		return -EINVAL;
	run = ktg_run_get(kn, nla_get_u32(info->attrs[KTGEN_A_RUN_ID]));
	if (!run) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KTGEN_A_RUN_ID], "no such run");
		return -ENOENT;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		ktg_run_put(run);
		NL_SET_ERR_MSG(info->extack, "no memory for the reply");
		return -ENOMEM;
	}
	err = ktg_nl_run_send(msg, run, info->snd_portid, info->snd_seq, 0, KTGEN_CMD_RUN_GET,
			      ktg_nl_perfmon(skb));
	ktg_run_put(run);
	if (err) {
		nlmsg_free(msg);
		if (err == -ENOMEM)
			NL_SET_ERR_MSG(info->extack, "no memory for the reply");
		else
			NL_SET_ERR_MSG(info->extack, "reply does not fit");
		return err;
	}
	return genlmsg_reply(msg, info);
}

int ktg_nl_run_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ktg_net *kn = ktg_pernet(sock_net(skb->sk));
	bool perfmon = ktg_nl_perfmon(cb->skb);
	unsigned long id = cb->args[0];
	struct ktg_run *run;
	int err = 0;

	while ((run = ktg_run_get_next(kn, &id))) {
		err = ktg_nl_run_send(skb, run, NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI, KTGEN_CMD_RUN_GET,
				      perfmon);
		ktg_run_put(run);
		if (err)
			break;
		id++;
	}
	cb->args[0] = id;
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}

/* The flows of one run, a message each, resumed from cb->args[0]. */
int ktg_nl_flow_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ktg_net *kn = ktg_pernet(sock_net(skb->sk));
	struct nlattr *id = ktg_dump_attrs(cb)[KTGEN_A_FLOW_RUN_ID];
	struct ktg_run_reply r = {};
	struct ktg_run *run;
	u32 i = cb->args[0];
	void *hdr;

	if (!id) {
		NL_SET_ERR_MSG(cb->extack, "missing attribute run-id: which run's flows");
		return -EINVAL;
	}
	run = ktg_run_get(kn, nla_get_u32(id));
	if (!run) {
		/* A dump's error carries no attribute offset: name it. */
		NL_SET_ERR_MSG_ATTR(cb->extack, id, "run-id: no such run");
		return -ENOENT;
	}
	/* the state under run->lock; the flows, read without it, after */
	ktg_run_snapshot(run, &r);
	for (; i < run->p.flows; i++) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &ktg_nl_family, NLM_F_MULTI, KTGEN_CMD_FLOW_GET);
		if (!hdr)
			break;
		if (ktg_run_fill_flow(skb, run, i, &r)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	ktg_run_put(run);
	cb->args[0] = i;
	return skb->len;
}

static int ktg_nl_run_stop_del(struct genl_info *info, bool del)
{
	struct ktg_net *kn = ktg_pernet(genl_info_net(info));
	struct nlattr *id = info->attrs[KTGEN_A_RUN_ID];
	int err;

	err = ktg_nl_id_or_all(info, KTGEN_A_RUN_ID, KTGEN_A_RUN_ALL);
	if (err)
		return err;
	if (info->attrs[KTGEN_A_RUN_ALL]) {
		/* all: every running run stops, every finished one goes. */
		if (del)
			ktg_runs_del_finished(kn);
		else
			ktg_runs_stop_all(kn);
		return 0;
	}
	if (del)
		err = ktg_run_del(kn, nla_get_u32(id), info->extack);
	else
		err = ktg_run_stop_id(kn, nla_get_u32(id));
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, id, "no such run");
	return err;
}

int ktg_nl_run_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ktg_nl_run_stop_del(info, false);
}

int ktg_nl_run_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ktg_nl_run_stop_del(info, true);
}
