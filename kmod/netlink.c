// SPDX-License-Identifier: GPL-2.0
/*
 * The ktgen generic netlink family: policies, handlers, notifications,
 * and every message's attributes filled from the objects they describe.
 * include/uapi/linux/ktgen.yaml is the contract; the policies below follow
 * its checks.
 */
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "copy.h"
#include "cpu-event.h"
#include "cpu.h"
#include "debug.h"
#include "hist.h"
#include "ktgen.h"
#include "mem.h"
#include "netlink.h"
#include "policy.h"
#include "probe.h"
#include "proto.h"
#include "run.h"
#include "sink.h"
#include "stats.h"

static struct genl_family ktg_nl_family;

/* The family's multicast groups, by their offset in ktg_nl_mcgrps[]. */
enum {
	KTG_NL_GRP_EVENTS,
};

/* @lost: the loss a same-host sender computed, or U64_MAX for the sink's. */
static int ktg_rx_stats_fill(struct sk_buff *msg, int attr, struct ktg_rx_stats *rx, u64 lost)
{
	u64 first = atomic64_read(&rx->verify_first);
	struct nlattr *nest;

	nest = nla_nest_start(msg, attr);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_BYTES, atomic64_read(&rx->bytes), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_MSGS, atomic64_read(&rx->msgs), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_CONNS, atomic64_read(&rx->conns), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_VERIFY_ERRORS,
			      atomic64_read(&rx->verify_errors), 0) ||
	    (first != U64_MAX &&
	     nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_VERIFY_FIRST_OFFSET, first, 0)) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_LOST,
			      lost != U64_MAX ? lost : atomic64_read(&rx->lost), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_LATE, atomic64_read(&rx->late), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_DUP, atomic64_read(&rx->dup), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_BAD_HEADERS,
			      atomic64_read(&rx->bad_headers), 0) ||
	    (atomic64_read(&rx->responses) &&
	     nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_RESPONSES,
			       atomic64_read(&rx->responses), 0)) ||
	    (atomic64_read(&rx->reads) &&
	     nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_READS,
			       atomic64_read(&rx->reads), 0)) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_REFUSED,
			      atomic64_read(&rx->refused), 0) ||
	    (atomic64_read(&rx->csum_errors) &&
	     nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_CSUM_ERRORS,
			       atomic64_read(&rx->csum_errors), 0))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ktg_addr_put(struct sk_buff *msg, int attr, const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return nla_put(msg, attr, sizeof(struct in6_addr),
			       &((const struct sockaddr_in6 *)ss)->sin6_addr);
	return nla_put_in_addr(msg, attr, ((const struct sockaddr_in *)ss)->sin_addr.s_addr);
}

/* A CPU list (ktg_cpus_parse()'s encoding), as long as its last CPU
 * needs; one the encoding cannot name is never taken.
 */
static int ktg_cpus_put(struct sk_buff *msg, int attr, const struct cpumask *mask)
{
	unsigned int cpu, last = cpumask_last(mask);
	struct nlattr *nla;
	u8 *bits;

	if (WARN_ON_ONCE(last >= KTG_CPUS_MAX))
		return -ERANGE;
	nla = nla_reserve(msg, attr, last / 8 + 1);
	if (!nla)
		return -EMSGSIZE;
	bits = nla_data(nla);
	memset(bits, 0, nla_len(nla));
	for_each_cpu(cpu, mask)
		bits[cpu / 8] |= BIT(cpu % 8);
	return 0;
}

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

static int ktg_sink_fill(struct sk_buff *msg, struct ktg_sink *sink, bool secret)
{
	if (nla_put_u32(msg, KTGEN_A_SINK_ID, sink->id) ||
	    nla_put_u32(msg, KTGEN_A_SINK_PROTO, sink->p.proto) ||
	    ktg_addr_put(msg, KTGEN_A_SINK_LOCAL_ADDR, &sink->p.addr) ||
	    nla_put_be16(msg, KTGEN_A_SINK_PORT, ktg_addr_port(&sink->p.addr)) ||
	    nla_put_u32(msg, KTGEN_A_SINK_RX_MODE, sink->p.rx_mode) ||
	    ktg_cpus_put(msg, KTGEN_A_SINK_CPUS, sink->p.cpus) ||
	    (sink->p.rcvbuf && nla_put_u32(msg, KTGEN_A_SINK_RCVBUF, sink->p.rcvbuf)) ||
	    (sink->p.busy_poll_us &&
	     nla_put_u32(msg, KTGEN_A_SINK_BUSY_POLL, sink->p.busy_poll_us)) ||
	    (sink->p.gro && nla_put_flag(msg, KTGEN_A_SINK_GRO)) ||
	    (sink->p.rr && nla_put_flag(msg, KTGEN_A_SINK_RR)) ||
	    (sink->p.resp_max && nla_put_u32(msg, KTGEN_A_SINK_RESP_MAX, sink->p.resp_max)) ||
	    (secret && nla_put_u64_64bit(msg, KTGEN_A_SINK_TOKEN, sink->token, 0)) ||
	    nla_put_u32(msg, KTGEN_A_SINK_MAX_CONNS, sink->p.max_conns) ||
	    nla_put_u32(msg, KTGEN_A_SINK_IDLE_MS, sink->p.idle_ms) ||
	    (sink->p.detach && nla_put_flag(msg, KTGEN_A_SINK_DETACH)) ||
	    ((sink->p.families & KTG_FAMILY_IPV4) && nla_put_flag(msg, KTGEN_A_SINK_IPV4)) ||
	    ((sink->p.families & KTG_FAMILY_IPV6) && nla_put_flag(msg, KTGEN_A_SINK_IPV6)) ||
	    ktg_rx_stats_fill(msg, KTGEN_A_SINK_RX, &sink->stats, U64_MAX))
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

static void *ktg_nl_reply_put(struct sk_buff **msg, struct genl_info *info, u8 cmd)
{
	void *hdr;

	*msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!*msg) {
		NL_SET_ERR_MSG(info->extack, "no memory for the reply");
		return NULL;
	}
	hdr = genlmsg_put_reply(*msg, info, &ktg_nl_family, 0, cmd);
	if (!hdr) {
		nlmsg_free(*msg);
		NL_SET_ERR_MSG(info->extack, "reply does not fit");
	}
	return hdr;
}

static int ktg_nl_info_fill(struct sk_buff *msg)
{
	if (nla_put_string(msg, KTGEN_A_INFO_VERSION, KTGEN_VERSION) ||
	    nla_put_u32(msg, KTGEN_A_INFO_ABI_VERSION, KTGEN_ABI_VERSION) ||
	    nla_put_string(msg, KTGEN_A_INFO_KERNEL, init_utsname()->release) ||
	    nla_put_u32(msg, KTGEN_A_INFO_NOCACHE_IMPL, ktg_copy_nocache_impl()) ||
	    nla_put_u32(msg, KTGEN_A_INFO_PAGE_SEND, ktg_page_send_method()) ||
	    nla_put_u8(msg, KTGEN_A_INFO_PMU, ktg_cpu_have_pmu()) ||
	    nla_put_u32(msg, KTGEN_A_INFO_SPLICE_SELFTEST,
			ktg_splice_selftest_result(KTG_SPLICE_TCP)) ||
	    nla_put_u32(msg, KTGEN_A_INFO_SPLICE_SELFTEST_UDP,
			ktg_splice_selftest_result(KTG_SPLICE_UDP)) ||
	    nla_put_u32(msg, KTGEN_A_INFO_SPLICE_SELFTEST_UDP6,
			ktg_splice_selftest_result(KTG_SPLICE_UDP6)) ||
	    nla_put_u8(msg, KTGEN_A_INFO_COPY_PROBE, IS_ENABLED(CONFIG_KPROBES)) ||
	    nla_put_u32(msg, KTGEN_A_INFO_TSC_KHZ, ktg_tsc_khz()))
		return -EMSGSIZE;
	return 0;
}

static int ktg_nl_get_info_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	hdr = ktg_nl_reply_put(&msg, info, KTGEN_CMD_GET_INFO);
	if (!hdr)
		return -ENOMEM;
	if (ktg_nl_info_fill(msg))
		goto err_free_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	NL_SET_ERR_MSG(info->extack, "reply does not fit");
	return -EMSGSIZE;
}

static int ktg_nl_get_config_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	hdr = ktg_nl_reply_put(&msg, info, KTGEN_CMD_GET_CONFIG);
	if (!hdr)
		return -ENOMEM;
	if (nla_put_u64_64bit(msg, KTGEN_A_CONFIG_BUFFER_BUDGET, ktg_mem_budget(), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_CONFIG_BUFFER_USED, ktg_mem_used(), 0) ||
	    nla_put_u32(msg, KTGEN_A_CONFIG_MAX_RUNS, ktg_max_runs()) ||
	    nla_put_u32(msg, KTGEN_A_CONFIG_MAX_SINKS, ktg_max_sinks()))
		goto err_free_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	NL_SET_ERR_MSG(info->extack, "reply does not fit");
	return -EMSGSIZE;
}

static int ktg_nl_set_config_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *budget = info->attrs[KTGEN_A_CONFIG_BUFFER_BUDGET];
	struct nlattr *runs = info->attrs[KTGEN_A_CONFIG_MAX_RUNS];
	struct nlattr *sinks = info->attrs[KTGEN_A_CONFIG_MAX_SINKS];
	int err;

	if (!budget && !runs && !sinks) {
		NL_SET_ERR_MSG(info->extack, "nothing to set");
		return -EINVAL;
	}
	if (budget) {
		err = ktg_mem_set_budget(nla_get_u64(budget));
		if (err == -EBUSY)
			NL_SET_ERR_MSG_ATTR(info->extack, budget,
					    "budget is below the memory in use");
		if (err)
			return err;
	}
	if (runs)
		ktg_set_max_runs(nla_get_u32(runs));
	if (sinks)
		ktg_set_max_sinks(nla_get_u32(sinks));
	return 0;
}

/* --- encodings shared by sinks and runs --- */

/* The last online CPU below KTG_CPUS_MAX: on a host with more CPUs, a
 * sink's default is still one its replies can name.
 */
static unsigned int ktg_sink_default_cpu(void)
{
	unsigned int n = min_t(unsigned int, nr_cpu_ids, KTG_CPUS_MAX);
	unsigned int cpu = find_last_bit(cpumask_bits(cpu_online_mask), n);

	return cpu < n ? cpu : cpumask_first(cpu_online_mask);
}

/* A CPU bitmap, bit N of byte N/8 for CPU N; absent: @def. Every CPU named
 * must be online.
 */
static int ktg_cpus_parse(const struct nlattr *attr, struct cpumask *mask,
			  const struct cpumask *def, struct netlink_ext_ack *extack)
{
	const u8 *bits;
	int i, len;

	if (!attr) {
		/* the lists a reply carries name CPUs below KTG_CPUS_MAX */
		if (cpumask_last(def) >= KTG_CPUS_MAX) {
			NL_SET_ERR_MSG(extack,
				       "the default CPU is 1024 or above, which a CPU list cannot name: give cpus");
			return -EINVAL;
		}
		cpumask_copy(mask, def);
		return 0;
	}
	cpumask_clear(mask);
	bits = nla_data(attr);
	len = nla_len(attr);
	for (i = 0; i < len * 8; i++) {
		if (!(bits[i / 8] & BIT(i % 8)))
			continue;
		if (i >= nr_cpu_ids || !cpu_online(i)) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "the CPU list names an offline CPU");
			return -EINVAL;
		}
		cpumask_set_cpu(i, mask);
	}
	if (cpumask_empty(mask)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "the CPU list is empty");
		return -EINVAL;
	}
	return 0;
}

/* An IPv4 (4 bytes) or IPv6 (16 bytes) address with a port; absent: the
 * wildcard of @family.
 */
static int ktg_addr_parse(const struct nlattr *attr, int family, __be16 port,
			  struct sockaddr_storage *ss, struct netlink_ext_ack *extack)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (attr) {
		if (nla_len(attr) == sizeof(struct in6_addr)) {
			family = AF_INET6;
		} else if (nla_len(attr) == sizeof(struct in_addr)) {
			family = AF_INET;
		} else {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "an address is 4 (IPv4) or 16 (IPv6) bytes");
			return -EINVAL;
		}
	}
	if (family == AF_INET6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = port;
		if (attr)
			memcpy(&sin6->sin6_addr, nla_data(attr), sizeof(sin6->sin6_addr));
	} else {
		sin->sin_family = AF_INET;
		sin->sin_port = port;
		if (attr)
			sin->sin_addr.s_addr = nla_get_in_addr(attr);
	}
	return 0;
}

static u32 ktg_nl_u32(struct genl_info *info, int attr, u32 def)
{
	return info->attrs[attr] ? nla_get_u32(info->attrs[attr]) : def;
}

/* A port, which must not be 0: the policy says so where the kernel
 * validates big-endian ranges (compat.h: KTG_POLICY_PORT), this everywhere.
 */
static int ktg_nl_port(struct genl_info *info, int attr, __be16 *port)
{
	*port = nla_get_be16(info->attrs[attr]);
	if (!*port) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[attr], "port 0: give a port");
		return -EINVAL;
	}
	return 0;
}

/*
 * The user memory of tx/rx user: given exactly with its mode, page aligned,
 * and @len bytes of the requester's address range (whether it is mapped
 * and writable shows when the module first writes it).
 */
static int ktg_nl_user_mem(struct genl_info *info, int attr, bool user_mode, u64 len)
{
	struct nlattr *a = info->attrs[attr];
	u64 addr;

	if (!user_mode) {
		if (a) {
			NL_SET_ERR_MSG_ATTR(info->extack, a, "user memory is for user mode only");
			return -EINVAL;
		}
		return 0;
	}
	if (ktg_req_attr_missing(info, attr))
		return -EINVAL;
	addr = nla_get_u64(a);
	if (!PAGE_ALIGNED(addr) || !addr) {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "user memory must be page aligned");
		return -EINVAL;
	}
	if (!access_ok(u64_to_user_ptr(addr), len)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "not a user address range");
		return -EFAULT;
	}
	return 0;
}

/* An id or the all flag, exactly one of them. */
static int ktg_nl_id_or_all(struct genl_info *info, int id_attr, int all_attr)
{
	bool all = info->attrs[all_attr];

	if (all == !!info->attrs[id_attr]) {
		NL_SET_ERR_MSG(info->extack, "give an id or the all flag");
		return -EINVAL;
	}
	return 0;
}

/* --- sinks --- */

/* @secret: the token goes to the sink's creator and CAP_NET_ADMIN only. */
static int ktg_nl_sink_send(struct sk_buff *msg, struct ktg_sink *sink, u32 portid,
			    u32 seq, int flags, u8 cmd, bool secret)
{
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &ktg_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (ktg_sink_fill(msg, sink, secret)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

/* @msg: allocated by the caller, consumed here. */
static int ktg_nl_sink_reply(struct sk_buff *skb, struct sk_buff *msg,
			     struct genl_info *info, struct ktg_sink *sink, u8 cmd)
{
	if (ktg_nl_sink_send(msg, sink, info->snd_portid, info->snd_seq, 0, cmd,
			     netlink_capable(skb, CAP_NET_ADMIN))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return genlmsg_reply(msg, info);
}

/* SINK_NEW's scalars, flags and address into @p, each checked against the
 * others; nothing allocated.
 */
static int ktg_nl_sink_params(struct genl_info *info, struct ktg_sink_params *p)
{
	struct nlattr **tb = info->attrs;
	__be16 port;

	if (ktg_req_attr_missing(info, KTGEN_A_SINK_PORT) ||
	    ktg_nl_port(info, KTGEN_A_SINK_PORT, &port))
		return -EINVAL;
	p->proto = ktg_nl_u32(info, KTGEN_A_SINK_PROTO, KTGEN_PROTO_TCP);
	p->rx_mode = ktg_nl_u32(info, KTGEN_A_SINK_RX_MODE, KTGEN_RX_MODE_COPY);
	p->rcvbuf = ktg_nl_u32(info, KTGEN_A_SINK_RCVBUF, 0);
	p->busy_poll_us = ktg_nl_u32(info, KTGEN_A_SINK_BUSY_POLL, 0);
	p->gro = nla_get_flag(tb[KTGEN_A_SINK_GRO]);
	p->rr = nla_get_flag(tb[KTGEN_A_SINK_RR]);
	p->resp_max = ktg_nl_u32(info, KTGEN_A_SINK_RESP_MAX, 0);
	p->max_conns = ktg_nl_u32(info, KTGEN_A_SINK_MAX_CONNS, KTG_DEFAULT_MAX_CONNS);
	p->idle_ms = ktg_nl_u32(info, KTGEN_A_SINK_IDLE_MS, KTG_DEFAULT_IDLE_MS);
	p->detach = nla_get_flag(tb[KTGEN_A_SINK_DETACH]);
	p->portid = info->snd_portid;
	if (p->detach && p->rx_mode != KTGEN_RX_MODE_USER) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KTGEN_A_SINK_DETACH],
				    "detach is for rx user sinks (no other belongs to a socket)");
		return -EINVAL;
	}
	if (p->resp_max && !p->rr) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KTGEN_A_SINK_RESP_MAX],
				    "resp-max is for sinks that answer requests (rr)");
		return -EINVAL;
	}
	if (p->gro && p->proto != KTGEN_PROTO_UDP) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KTGEN_A_SINK_GRO],
				    "gro is for UDP sinks (TCP reads a byte stream)");
		return -EINVAL;
	}
	if (tb[KTGEN_A_SINK_USER_BUF]) {
		p->user_buf = nla_get_u64(tb[KTGEN_A_SINK_USER_BUF]);
		if (ktg_req_attr_missing(info, KTGEN_A_SINK_USER_LEN))
			return -EINVAL;
		p->user_len = nla_get_u64(tb[KTGEN_A_SINK_USER_LEN]);
	}
	/* The wildcard's families: none named, both where IPv6 is there. */
	if (tb[KTGEN_A_SINK_IPV4])
		p->families |= KTG_FAMILY_IPV4;
	if (tb[KTGEN_A_SINK_IPV6])
		p->families |= KTG_FAMILY_IPV6;
	if (p->families && tb[KTGEN_A_SINK_LOCAL_ADDR]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KTGEN_A_SINK_IPV4] ?: tb[KTGEN_A_SINK_IPV6],
				    "ipv4 and ipv6 are for the wildcard address only (an address gives the family)");
		return -EINVAL;
	}
	return ktg_addr_parse(tb[KTGEN_A_SINK_LOCAL_ADDR],
			      p->families == KTG_FAMILY_IPV4 ? AF_INET : AF_INET6,
			      port, &p->addr, info->extack);
}

/* SINK_NEW's CPUs (allocated into @p, freed again on an error) and user
 * memory, which is sized by them.
 */
static int ktg_nl_sink_cpus(struct genl_info *info, struct ktg_sink_params *p)
{
	struct nlattr **tb = info->attrs;
	int err;

	if (!zalloc_cpumask_var(&p->cpus, GFP_KERNEL)) {
		NL_SET_ERR_MSG(info->extack, "no memory for the sink");
		return -ENOMEM;
	}
	/* Default: the last online CPU a CPU list can name, away from
	 * senders that default to the first (on loopback their softirqs run
	 * there).
	 */
	err = ktg_cpus_parse(tb[KTGEN_A_SINK_CPUS], p->cpus,
			     cpumask_of(ktg_sink_default_cpu()), info->extack);
	if (err)
		goto err_free_cpus;
	err = ktg_nl_user_mem(info, KTGEN_A_SINK_USER_BUF,
			      p->rx_mode == KTGEN_RX_MODE_USER, p->user_len);
	if (err)
		goto err_free_cpus;
	if (tb[KTGEN_A_SINK_USER_LEN] && p->rx_mode != KTGEN_RX_MODE_USER) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KTGEN_A_SINK_USER_LEN],
				    "user memory is for user mode only");
		err = -EINVAL;
		goto err_free_cpus;
	}
	if (p->user_len && p->user_len < (u64)ktg_sink_slots(p) * KTG_RX_BUF) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KTGEN_A_SINK_USER_LEN],
				    "too short: 64 KiB per worker (one per CPU for TCP)");
		err = -EINVAL;
		goto err_free_cpus;
	}
	return 0;

err_free_cpus:
	free_cpumask_var(p->cpus);
	return err;
}

static int ktg_nl_sink_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ktg_net *kn = ktg_pernet(genl_info_net(info));
	struct ktg_sink_params p = {};
	struct ktg_sink *sink;
	struct sk_buff *msg;
	int err;

	err = ktg_nl_sink_params(info, &p);
	if (err)
		return err;
	err = ktg_nl_sink_cpus(info, &p);
	if (err)
		return err;

	/* The reply is allocated and filled before the sink is listed: a
	 * sink is never created and then reported as a failure. It is
	 * built outside kn->lock, which only its listing takes.
	 */
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		NL_SET_ERR_MSG(info->extack, "no memory for the reply");
		free_cpumask_var(p.cpus);
		return -ENOMEM;
	}
	err = ktg_sink_create(kn, &p, &sink, info->extack);
	if (err == -EFAULT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KTGEN_A_SINK_USER_BUF],
				    "cannot write to the user memory");
	if (err) {
		NL_SET_ERR_MSG_WEAK(info->extack, "cannot create the sink");
		nlmsg_free(msg);
		return err;
	}
	if (ktg_nl_sink_send(msg, sink, info->snd_portid, info->snd_seq, 0,
			     KTGEN_CMD_SINK_NEW, netlink_capable(skb, CAP_NET_ADMIN))) {
		nlmsg_free(msg);
		ktg_sink_discard(sink);
		NL_SET_ERR_MSG(info->extack, "reply does not fit");
		return -EMSGSIZE;
	}
	ktg_sink_publish(sink);
	return genlmsg_reply(msg, info);
}

static int ktg_nl_sink_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ktg_net *kn = ktg_pernet(genl_info_net(info));
	struct ktg_sink *sink;
	struct sk_buff *msg;
	int err;

	if (ktg_req_attr_missing(info, KTGEN_A_SINK_ID))
		return -EINVAL;
	sink = ktg_sink_get(kn, nla_get_u32(info->attrs[KTGEN_A_SINK_ID]));
	if (!sink) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KTGEN_A_SINK_ID], "no such sink");
		return -ENOENT;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (msg) {
		err = ktg_nl_sink_reply(skb, msg, info, sink, KTGEN_CMD_SINK_GET);
	} else {
		NL_SET_ERR_MSG(info->extack, "no memory for the reply");
		err = -ENOMEM;
	}
	ktg_sink_put(sink);
	return err;
}

/* cb->args[0]: the id of the next sink (or run) to dump. No lock: each
 * object is looked up under RCU and held while it is filled.
 */
static int ktg_nl_sink_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ktg_net *kn = ktg_pernet(sock_net(skb->sk));
	bool secret = netlink_capable(cb->skb, CAP_NET_ADMIN);
	unsigned long id = cb->args[0];
	struct ktg_sink *sink;
	int err = 0;

	while ((sink = ktg_sink_get_next(kn, &id))) {
		err = ktg_nl_sink_send(skb, sink, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI, KTGEN_CMD_SINK_GET,
				       secret);
		ktg_sink_put(sink);
		if (err)
			break;
		id++;
	}
	cb->args[0] = id;
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}

static int ktg_nl_sink_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ktg_net *kn = ktg_pernet(genl_info_net(info));
	int err;

	err = ktg_nl_id_or_all(info, KTGEN_A_SINK_ID, KTGEN_A_SINK_ALL);
	if (err)
		return err;
	if (info->attrs[KTGEN_A_SINK_ALL]) {
		ktg_sinks_destroy_all(kn);
		return 0;
	}
	err = ktg_sink_del(kn, nla_get_u32(info->attrs[KTGEN_A_SINK_ID]));
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KTGEN_A_SINK_ID], "no such sink");
	return err;
}

/* --- runs --- */

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

/*
 * A notification that could not be built is lost: its listeners hear of
 * it (their next receive fails with ENOBUFS, as after an overrun, and they
 * ask for the state) instead of waiting for it for ever, as rtnetlink's
 * do (rtnl_set_sk_err). A clone that fails in the multicast overruns the
 * listener's socket by itself.
 */
static void ktg_nl_notify_lost(struct net *net)
{
	genl_set_err(&ktg_nl_family, net, 0, KTG_NL_GRP_EVENTS, -ENOBUFS);
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
	genlmsg_multicast_netns(&ktg_nl_family, kn->net, msg, 0, 0, GFP_KERNEL);
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
	genlmsg_multicast_netns(&ktg_nl_family, run->kn->net, msg, 0, 0, GFP_KERNEL);
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

static int ktg_nl_run_new_doit(struct sk_buff *skb, struct genl_info *info)
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

static int ktg_nl_run_get_doit(struct sk_buff *skb, struct genl_info *info)
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

static int ktg_nl_run_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
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
static int ktg_nl_flow_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
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

static int ktg_nl_run_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ktg_nl_run_stop_del(info, false);
}

static int ktg_nl_run_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ktg_nl_run_stop_del(info, true);
}

static const struct genl_ops ktg_nl_ops[] = {
	{
		.cmd	= KTGEN_CMD_GET_INFO,
		.doit	= ktg_nl_get_info_doit,
		.policy	= ktg_none_policy,
		.maxattr = 1,
	},
	{
		.cmd	= KTGEN_CMD_GET_CONFIG,
		.doit	= ktg_nl_get_config_doit,
		.policy	= ktg_none_policy,
		.maxattr = 1,
	},
	{
		.cmd	= KTGEN_CMD_SET_CONFIG,
		.doit	= ktg_nl_set_config_doit,
		.policy	= ktg_config_policy,
		.maxattr = KTGEN_A_CONFIG_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= KTGEN_CMD_SINK_NEW,
		.doit	= ktg_nl_sink_new_doit,
		.policy	= ktg_sink_policy,
		.maxattr = KTGEN_A_SINK_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= KTGEN_CMD_SINK_GET,
		.doit	= ktg_nl_sink_get_doit,
		.dumpit	= ktg_nl_sink_get_dumpit,
		.policy	= ktg_sink_policy,
		.maxattr = KTGEN_A_SINK_MAX,
	},
	{
		.cmd	= KTGEN_CMD_SINK_DEL,
		.doit	= ktg_nl_sink_del_doit,
		.policy	= ktg_sink_policy,
		.maxattr = KTGEN_A_SINK_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= KTGEN_CMD_RUN_NEW,
		.doit	= ktg_nl_run_new_doit,
		.policy	= ktg_run_policy,
		.maxattr = KTGEN_A_RUN_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= KTGEN_CMD_RUN_GET,
		.doit	= ktg_nl_run_get_doit,
		.dumpit	= ktg_nl_run_get_dumpit,
		.policy	= ktg_run_policy,
		.maxattr = KTGEN_A_RUN_MAX,
	},
	{
		.cmd	= KTGEN_CMD_RUN_STOP,
		.doit	= ktg_nl_run_stop_doit,
		.policy	= ktg_run_policy,
		.maxattr = KTGEN_A_RUN_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= KTGEN_CMD_RUN_DEL,
		.doit	= ktg_nl_run_del_doit,
		.policy	= ktg_run_policy,
		.maxattr = KTGEN_A_RUN_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= KTGEN_CMD_FLOW_GET,
		.dumpit	= ktg_nl_flow_get_dumpit,
		.policy	= ktg_flow_policy,
		.maxattr = KTGEN_A_FLOW_MAX,
	},
};

static const struct genl_multicast_group ktg_nl_mcgrps[] = {
	[KTG_NL_GRP_EVENTS] = { .name = KTGEN_MCGRP_EVENTS },
};

static struct genl_family ktg_nl_family __ro_after_init = {
	.name		= KTGEN_FAMILY_NAME,
	.version	= KTGEN_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= ktg_nl_ops,
	.n_ops		= ARRAY_SIZE(ktg_nl_ops),
	.mcgrps		= ktg_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(ktg_nl_mcgrps),
	KTG_GENL_RESV_START_OP(KTGEN_CMD_GET_INFO)
};

/* A generic netlink socket closed: runs it started stop and rx user sinks
 * it added go, unless detached. Process context; only flags, kicks and a
 * queued work: the runs' completions and the sinks' works do the rest.
 */
static int ktg_nl_release(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC || !n->portid)
		return NOTIFY_DONE;
	ktg_runs_owner_gone(ktg_pernet(n->net), n->portid);
	ktg_sinks_owner_gone(ktg_pernet(n->net), n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block ktg_nl_notifier = {
	.notifier_call = ktg_nl_release,
};

int __init ktg_netlink_init(void)
{
	int err;

	err = genl_register_family(&ktg_nl_family);
	if (err)
		return err;
	err = netlink_register_notifier(&ktg_nl_notifier);
	if (err)
		genl_unregister_family(&ktg_nl_family);
	return err;
}

void ktg_netlink_exit(void)
{
	genl_unregister_family(&ktg_nl_family);
	/* Right after: a late release must not reach freed module code. */
	netlink_unregister_notifier(&ktg_nl_notifier);
}
