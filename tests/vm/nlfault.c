// SPDX-License-Identifier: GPL-2.0
/*
 * nlfault: drive every allocation and user copy a ktgen request (or the
 * module's load and unload) makes to fail, one at a time, with the task's
 * fail-nth counter (/proc/thread-self/fail-nth: the Nth fault-injection
 * site this task reaches fails, with failslab, fail_page_alloc and, where
 * the kernel has it, fail_usercopy set up by the caller), and judge each
 * outcome before anything is cleaned up.
 *
 *   nlfault [-s] [-r] [-d] [-e] [-w] [-b 'CMD SPEC...']... request CMD [SPEC]...
 *   nlfault [-m] [-t POINTS] [-b 'CLI-COMMAND']... cli 'CLI-COMMAND' 'CLI-UNDO'
 *   nlfault load MODULE.ko
 *
 * SPEC is TYPE:KIND:VALUE (attrspec.c); a VALUE of @ is the id (attribute
 * 1) the last -b request's answer carried, @mem the address of 1 MiB of
 * this process's memory (user-buf: tx user runs, rx user sinks).
 *   -b  a request made, with no fault, before each attempt: what the
 *       attempt works on (a sink to delete, a run to stop)
 *   -w  wait for the runs -b made to end before each attempt
 *   -d  the request is a dump
 *   -e  every run must end with as many bytes received as sent
 *   -s, -r  delete every sink, stop and delete every run after each
 *       attempt (for commands that create them)
 *
 * For N = 1, 2, ... until the Nth site is never reached, with the family's
 * census (sinks, runs, running workers, charged buffer bytes, sockets, the
 * module's references) taken before:
 *   - an error is one the kernel gives a failed allocation (is_alloc_errno),
 *     or EFAULT for a failed user copy (the injector's stack names
 *     should_fail_usercopy), and, when the failure was in ktgen's own code
 *     (its stack, printed by the fault injector, runs through the module),
 *     it is explained by an extack message;
 *   - an error the family answered leaves the census as it was (an answer
 *     the socket lost may also leave the success's);
 *   - a success leaves exactly the one object it made (or removed), and a
 *     run it made ends done (rx == tx under -e), stopped, or failed with an
 *     allocation failure's errno (its flows connect in the request);
 *   - nothing hangs (receives time out after 30 s; runs end within 35 s,
 *     their drain's 30 s and 5 more), and the same request works again
 *     with no fault, its run stopped at once ending within 5 s.
 * At the end, after cleanup, the census is the one the walk began with.
 * NLFAULT_EVERY=K:I (lib.sh: fault_every) fails only every Kth site of the
 * request, cli, load and unload walks, from the (I + 1)th on (the 1st,
 * then the (K + 1)th, ... for I = 0): the debug lane's turns take the K
 * offsets in turn, so that K runs of a walk fail every site; each site
 * failed is judged as in a whole walk, the walk ends at the first site of
 * its steps never reached.
 * Runs not ended 5 s after a request or a stop: the command in
 * NLFAULT_SLOW, when set, says what they do (lib.sh: runs_slow_report).
 *
 * cli: a command of the CLI's own (nic, dev: "nic add ktgf0 peer ktgf1";
 * knob: "knob ktgf0 rings rx 128", the knob's write alone),
 * called in this task, after the -b commands (the CLI's too, or "!" and a
 * shell command), and
 * CLI-UNDO after each attempt. A success leaves the census the command
 * leaves with no fault; a failure exits 1, leaves the census as it was
 * and, under -m, when the failed allocation was ktgen's, prints the
 * kernel's message; CLI-UNDO brings the census back to the one the walk
 * began with. With -t, the allocations fail from POINTS points of the
 * command on, not one at a time (fault_cli_tail()).
 *
 * load: the module's load failed site by site (a failure leaves the next
 * load and unload working), then its unload (fault_unload()).
 * Exit 0 when every N behaved, 1 otherwise.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <net/if.h>
#include <linux/if.h>
#include <linux/genetlink.h>
#include <linux/rtnetlink.h>
#include <linux/ktgen.h>

#include "ktgen.h"
#include "nl.h"
#include "print.h"
#include "attrspec.h"
#include "dev.h"
#include "knob.h"

struct opts opts;

#define MAX_NTH		20000
#define MAX_SETUP	4
#define DEBUGFS		"/sys/kernel/debug"

static int fail_nth_fd;

/* NLFAULT_EVERY: the walks' step and first site (request, cli, load, unload). */
static unsigned int walk_every = 1, walk_first = 1;

static int walk_every_parse(const char *v)
{
	unsigned int k, i;
	char end;

	if (!v || !*v)
		return 0;
	if (sscanf(v, "%u:%u%c", &k, &i, &end) != 2 || !k || i >= k) {
		fprintf(stderr, "nlfault: NLFAULT_EVERY=%s: want K:I, 0 <= I < K\n", v);
		return -1;
	}
	walk_every = k;
	walk_first = i + 1;
	return 0;
}

/* What a walk's summary says of its steps ("" for a whole walk). */
static const char *walk_steps(void)
{
	static char buf[64];

	if (walk_every == 1)
		return "";
	snprintf(buf, sizeof(buf), " (or fewer; failed: every %u from site %u)", walk_every,
		 walk_first);
	return buf;
}

static void fail_nth_set(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(fail_nth_fd, buf, len, 0) != len) {
		perror("nlfault: fail-nth");
		exit(EXIT_FAIL);
	}
}

/* True when the armed fault was not reached (and disarm it). The read's
 * and the write's own user copies are fault sites too: EFAULT from either
 * is the armed fault met there, not by the request.
 */
static bool fail_nth_unused(void)
{
	char buf[16] = "";
	bool unused;

	if (pread(fail_nth_fd, buf, sizeof(buf) - 1, 0) < 0) {
		if (errno != EFAULT) {
			perror("nlfault: fail-nth");
			exit(EXIT_FAIL);
		}
		return true;
	}
	unused = atoi(buf) != 0;
	if (pwrite(fail_nth_fd, "0", 1, 0) != 1 && errno != EFAULT) {
		perror("nlfault: fail-nth");
		exit(EXIT_FAIL);
	}
	return unused;
}

/* ---- what a failed allocation's stack ran through (kmsg) ---- */

static int kmsg_fd = -1;
static char saved_printk[64];

static void write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, val, strlen(val)) < 0)
			perror(path);
		close(fd);
	}
}

/* The injectors; fail_usercopy only where the kernel has it. */
static const char *const injectors[] = { "failslab", "fail_page_alloc", "fail_usercopy" };
#define NINJ	(sizeof(injectors) / sizeof(injectors[0]))
static char saved_rate[NINJ][16];

static void inj_path(char *path, size_t len, size_t i, const char *file)
{
	snprintf(path, len, DEBUGFS "/%s/%s", injectors[i], file);
}

static void verbose_off(void)
{
	char path[128];
	size_t i;

	for (i = 0; i < NINJ; i++) {
		inj_path(path, sizeof(path), i, "verbose");
		write_file(path, "0");
		inj_path(path, sizeof(path), i, "verbose_ratelimit_interval_ms");
		if (saved_rate[i][0])
			write_file(path, saved_rate[i]);
	}
	if (saved_printk[0])
		write_file("/proc/sys/kernel/printk", saved_printk);
}

/* Up to @len - 1 bytes of @path into @buf ("" when it cannot be read). */
static void read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* The injector prints each failure with its stack (verbose 2), to the log
 * only (the console's level is lowered for the walk: a stack per site
 * would be a flood on a serial line), every one of them: its rate limit
 * (10 in 5 s) would hide most of a fast walk's, and with them what failed.
 */
static void verbose_on(void)
{
	char path[128];
	size_t i;

	read_file("/proc/sys/kernel/printk", saved_printk, sizeof(saved_printk));
	write_file("/proc/sys/kernel/printk", "1");
	for (i = 0; i < NINJ; i++) {
		inj_path(path, sizeof(path), i, "verbose_ratelimit_interval_ms");
		read_file(path, saved_rate[i], sizeof(saved_rate[i]));
		if (saved_rate[i][0])
			write_file(path, "0");
		inj_path(path, sizeof(path), i, "verbose");
		write_file(path, "2");
	}
	atexit(verbose_off);
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
}

static void kmsg_skip(void)
{
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/* A word of a stack dump the unwinder only found on the stack: "? name"
 * (x86) or "[<address>] ? name" (User-Mode Linux).
 */
static bool stale_frame(const char *line)
{
	line += strspn(line, " ");
	if (line[0] == '[' && line[1] == '<') {
		line = strstr(line, ">]");
		if (!line)
			return false;
		line += 2 + strspn(line + 2, " ");
	}
	return !strncmp(line, "? ", 2);
}

/* What the injected failure was, from its stack in the log. */
struct fault_seen {
	bool	in_ktgen;	/* its stack ran through ktgen or ktgen_nic */
	bool	usercopy;	/* a user copy (should_fail_usercopy), not an allocation */
	char	frame[256];	/* its first frame in the modules */
};

/* After an attempt: what the injected failure was (@seen). */
static void kmsg_fault(struct fault_seen *seen)
{
	bool in_dump = false;
	char rec[2048];
	ssize_t n;

	memset(seen, 0, sizeof(*seen));
	if (kmsg_fd < 0)
		return;
	while ((n = read(kmsg_fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		char *msg;

		if (n <= 0)
			continue;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		msg[strcspn(msg, "\n")] = '\0';
		/* "name fail_usercopy, ..." follows (in the record, or in the
		 * next): the injector's name. should_fail_usercopy() itself is
		 * a tail call, not always a frame of the stack.
		 */
		if (strstr(msg, "FAULT_INJECTION: forcing a failure")) {
			in_dump = true;
			seen->usercopy |= !!strstr(msg, "name fail_usercopy");
		}
		/* "? " marks a word the unwinder found on the stack, not a
		 * frame: a stale return address. x86 prints it first, User-
		 * Mode Linux after the address ("[<6003d350>] ? name").
		 */
		else if (!in_dump || stale_frame(msg))
			continue;
		else if (strstr(msg, "name fail_usercopy") || strstr(msg, "should_fail_usercopy"))
			seen->usercopy = true;
		else if (!seen->in_ktgen && (strstr(msg, "[ktgen]") || strstr(msg, "[ktgen_nic]"))) {
			seen->in_ktgen = true;
			snprintf(seen->frame, sizeof(seen->frame), "%s", msg + strspn(msg, " "));
		}
	}
}

/* ---- the census ---- */

struct census {
	unsigned int	sinks;
	unsigned int	runs;
	unsigned int	running;	/* runs not yet at an end */
	unsigned int	bad_runs;	/* ended, and not done (or rx != tx) */
	unsigned int	workers;	/* ktgen/ threads */
	unsigned int	engines;	/* ktgen-nic/ threads */
	unsigned int	devs;		/* network devices */
	unsigned int	carriers;	/* of them, those up with a carrier */
	uint64_t	used;		/* charged buffer bytes */
	long		nic_used;	/* ktgen_nic's ring pages, bytes */
	long		sockets;	/* TCP and UDP sockets someone holds, kernel's too */
	long		refcnt;		/* the module's */
	long		nic_refcnt;	/* ktgen_nic's */
	char		why[128];	/* the first bad run's */
};

/* What the kernel answers for a failed allocation: ENOMEM; ENOBUFS from
 * netlink; ENFILE from sock_alloc(); EADDRINUSE from a bind whose port
 * bucket could not be allocated (inet_csk_get_port()).
 */
static bool is_alloc_errno(int err)
{
	return err == -ENOMEM || err == -ENOBUFS || err == -ENFILE || err == -EADDRINUSE;
}

/* The error the failure should have given: an allocation's, or EFAULT for
 * a user copy.
 */
static bool fault_errno(const struct fault_seen *seen, int err)
{
	return seen->usercopy ? err == -EFAULT : is_alloc_errno(err);
}

static const char *fault_where(const struct fault_seen *seen)
{
	if (seen->in_ktgen)
		return seen->frame;
	return seen->usercopy ? "a user copy outside ktgen" : "outside ktgen";
}

static bool check_bytes;

static int sink_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	((struct census *)data)->sinks++;
	return MNL_CB_OK;
}

static int run_cb(const struct nlmsghdr *nlh, void *data)
{
	static const enum mnl_attr_data_type types[KTGEN_A_RUN_MAX + 1] = {
		[KTGEN_A_RUN_STATE] = MNL_TYPE_U32,
		[KTGEN_A_RUN_ERROR] = MNL_TYPE_U32,
		[KTGEN_A_RUN_TX] = MNL_TYPE_NESTED,
		[KTGEN_A_RUN_RX] = MNL_TYPE_NESTED,
	};
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1] = {};
	struct census *c = data;
	uint64_t tx, rx, verr;
	uint32_t state, err;

	nl_parse(nlh, types, KTGEN_A_RUN_MAX, tb);
	c->runs++;
	state = tb[KTGEN_A_RUN_STATE] ? mnl_attr_get_u32(tb[KTGEN_A_RUN_STATE]) : ~0U;
	err = tb[KTGEN_A_RUN_ERROR] ? mnl_attr_get_u32(tb[KTGEN_A_RUN_ERROR]) : 0;
	tx = tb[KTGEN_A_RUN_TX] ? nl_nested_u64(tb[KTGEN_A_RUN_TX], KTGEN_A_TX_STATS_BYTES) : 0;
	rx = tb[KTGEN_A_RUN_RX] ? nl_nested_u64(tb[KTGEN_A_RUN_RX], KTGEN_A_RX_STATS_BYTES) : 0;
	verr = tb[KTGEN_A_RUN_RX] ?
	       nl_nested_u64(tb[KTGEN_A_RUN_RX], KTGEN_A_RX_STATS_VERIFY_ERRORS) : 0;
	if (state == KTGEN_RUN_STATE_RUNNING || state == KTGEN_RUN_STATE_STOPPING) {
		c->running++;
		return MNL_CB_OK;
	}
	/* Ended: done (with every byte received, under -e), stopped, or
	 * failed by an allocation of its own, with the errno.
	 */
	if (state == KTGEN_RUN_STATE_STOPPED ||
	    (state == KTGEN_RUN_STATE_FAILED && is_alloc_errno(-(int)err)) ||
	    (state == KTGEN_RUN_STATE_DONE && !verr && (!check_bytes || tx == rx)))
		return MNL_CB_OK;
	if (!c->bad_runs++)
		snprintf(c->why, sizeof(c->why), "state %u, errno %u, tx %llu, rx %llu, %llu verify errors",
			 state, err, (unsigned long long)tx, (unsigned long long)rx,
			 (unsigned long long)verr);
	return MNL_CB_OK;
}

static int config_cb(const struct nlmsghdr *nlh, void *data)
{
	static const enum mnl_attr_data_type types[KTGEN_A_CONFIG_MAX + 1] = {
		[KTGEN_A_CONFIG_BUFFER_USED] = MNL_TYPE_U64,
	};
	const struct nlattr *tb[KTGEN_A_CONFIG_MAX + 1] = {};

	nl_parse(nlh, types, KTGEN_A_CONFIG_MAX, tb);
	if (tb[KTGEN_A_CONFIG_BUFFER_USED])
		((struct census *)data)->used = mnl_attr_get_u64(tb[KTGEN_A_CONFIG_BUFFER_USED]);
	return MNL_CB_OK;
}

static long read_long(const char *path, const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!key) {
			v = atol(line);
			break;
		}
		if (!strncmp(line, key, strlen(key))) {
			v = atol(line + strlen(key));
			break;
		}
	}
	fclose(f);
	return v;
}

/* What each pid is, learned once: reading every task's comm at each
 * census would cost more than the walk (a syscall is ~1 ms on a debug
 * kernel under TCG). A walk does not wrap the pid space.
 */
enum { PID_UNKNOWN, PID_OTHER, PID_WORKER, PID_ENGINE };
static unsigned char *pid_kind;
static long pid_max;

static void count_threads(unsigned int *workers, unsigned int *engines)
{
	char path[300], comm[32];
	struct dirent *d;
	DIR *proc;

	*workers = *engines = 0;
	if (!pid_kind) {
		pid_max = read_long("/proc/sys/kernel/pid_max", NULL);
		if (pid_max <= 0 || pid_max > (1L << 22))
			pid_max = 1L << 22;
		pid_kind = calloc(pid_max, 1);
		if (!pid_kind)
			exit(EXIT_FAIL);
	}
	proc = opendir("/proc");
	if (!proc)
		return;
	while ((d = readdir(proc))) {
		long pid = atol(d->d_name);
		FILE *f;

		if (pid <= 0 || pid >= pid_max)
			continue;
		if (pid_kind[pid] == PID_UNKNOWN) {
			snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
			f = fopen(path, "re");
			if (!f)
				continue;
			pid_kind[pid] = PID_OTHER;
			if (fgets(comm, sizeof(comm), f)) {
				if (!strncmp(comm, "ktgen/", 6))
					pid_kind[pid] = PID_WORKER;
				else if (!strncmp(comm, "ktgen-nic/", 10))
					pid_kind[pid] = PID_ENGINE;
			}
			fclose(f);
		}
		*workers += pid_kind[pid] == PID_WORKER;
		*engines += pid_kind[pid] == PID_ENGINE;
	}
	closedir(proc);
}

/* The network devices, and those of them up with a carrier, from one
 * rtnetlink dump (a file read per device would cost more than the walk's
 * own request).
 */
static struct mnl_socket *rtnl;

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct census *c = data;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	c->devs++;
	c->carriers += (ifi->ifi_flags & (IFF_UP | IFF_LOWER_UP)) == (IFF_UP | IFF_LOWER_UP);
	return MNL_CB_OK;
}

static int count_devs(struct census *c)
{
	static char buf[65536];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	unsigned int seq = (unsigned int)time(NULL);
	ssize_t n;
	int ret;

	if (!rtnl) {
		rtnl = mnl_socket_open(NETLINK_ROUTE);
		if (!rtnl || mnl_socket_bind(rtnl, 0, MNL_SOCKET_AUTOPID) < 0)
			return -1;
	}
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg));
	if (mnl_socket_sendto(rtnl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		n = mnl_socket_recvfrom(rtnl, buf, sizeof(buf));
		if (n < 0)
			return -1;
		ret = mnl_cb_run(buf, n, seq, mnl_socket_get_portid(rtnl), link_cb, c);
	} while (ret == MNL_CB_OK);
	return ret == MNL_CB_ERROR ? -1 : 0;
}

/* TCP and UDP sockets someone holds, the kernel's too: sockstat's and
 * sockstat6's "inuse", less the TCP orphans (closed, still hashed while
 * the stack ends them: FIN-WAIT, LAST-ACK), each file read once.
 */
static long held_sockets(void)
{
	static const char * const files[] = { "/proc/net/sockstat", "/proc/net/sockstat6" };
	static const char * const protos[] = { "TCP: ", "UDP: ", "TCP6: ", "UDP6: " };
	char line[256], *v;
	long n = 0;
	size_t i, k;

	for (i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "re");

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			for (k = 0; k < 4; k++) {
				if (strncmp(line, protos[k], strlen(protos[k])))
					continue;
				v = strstr(line, " inuse ");
				n += v ? atol(v + 7) : 0;
				v = strstr(line, " orphan ");
				n -= v ? atol(v + 8) : 0;
			}
		fclose(f);
	}
	return n;
}

static int census_take(struct nl_ctx *ctx, struct census *c)
{
	memset(c, 0, sizeof(*c));
	if (nl_request(ctx, nl_msg_start(ctx, KTGEN_CMD_SINK_GET, NLM_F_DUMP), NULL, sink_cb, c) ||
	    nl_request(ctx, nl_msg_start(ctx, KTGEN_CMD_RUN_GET, NLM_F_DUMP), NULL, run_cb, c) ||
	    nl_request(ctx, nl_msg_start(ctx, KTGEN_CMD_GET_CONFIG, 0), NULL, config_cb, c))
		return -1;
	count_threads(&c->workers, &c->engines);
	if (count_devs(c))
		return -1;
	c->sockets = held_sockets();
	c->refcnt = read_long("/sys/module/ktgen/refcnt", NULL);
	c->nic_used = read_long("/sys/module/ktgen_nic/parameters/budget_used", NULL);
	c->nic_refcnt = read_long("/sys/module/ktgen_nic/refcnt", NULL);
	return 0;
}

static void census_str(const struct census *c, char *buf, size_t len)
{
	snprintf(buf, len, "%u sinks, %u runs (%u running, %u bad%s%s%s), %u workers, %u devices (%u with carrier), %u NIC engines, %llu bytes charged, %ld NIC ring bytes, %ld sockets, %ld module refs, %ld NIC module refs",
		 c->sinks, c->runs, c->running, c->bad_runs, c->bad_runs ? ": " : "", c->why,
		 c->bad_runs > 1 ? ", ..." : "", c->workers, c->devs, c->carriers, c->engines,
		 (unsigned long long)c->used, c->nic_used, c->sockets, c->refcnt, c->nic_refcnt);
}

static bool census_same(const struct census *a, const struct census *b)
{
	return a->sinks == b->sinks && a->runs == b->runs && a->running == b->running &&
	       a->bad_runs == b->bad_runs && a->workers == b->workers && a->used == b->used &&
	       a->engines == b->engines && a->devs == b->devs && a->carriers == b->carriers &&
	       a->sockets == b->sockets && a->refcnt == b->refcnt &&
	       a->nic_used == b->nic_used && a->nic_refcnt == b->nic_refcnt;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* How long a wait for the census goes on: 100 polls 50 ms apart (5 s and
 * the censuses) for sockets to close and workers to exit; for runs, as
 * long as their flows' drain, the module's 30 s (KTG_DRAIN_TIMEOUT) once
 * they have sent all or were stopped, and 5 s more.
 */
#define SETTLE_S	5.0
#define SETTLE_POLLS	100
#define RUN_END_S	35.0
#define RUN_END_POLLS	((int)(RUN_END_S * 20))

/* A census a wait is over at. */
typedef bool (*census_goal)(const struct census *now, const void *arg);

static unsigned int settle_waits;	/* 50 ms each, for the summary */
static const char *step = "nth";	/* what judge_fail()'s N counts */
static unsigned int step_n;		/* the walk's N now */

/* Takes the census every 50 ms until @goal holds (true, *@took seconds
 * later) or @polls were taken. A wait for runs, allowed past 5 s, runs the
 * command in NLFAULT_SLOW then, when set, to say what they still do.
 */
static bool census_poll(struct nl_ctx *ctx, struct census *now, int polls, census_goal goal,
			const void *arg, double *took)
{
	double t0 = now_s();
	bool told = false;
	int i;

	for (i = 0; i < polls; i++) {
		if (census_take(ctx, now))
			return false;
		*took = now_s() - t0;
		if (goal(now, arg))
			return true;
		if (*took > SETTLE_S && polls > SETTLE_POLLS && !told && getenv("NLFAULT_SLOW")) {
			told = true;
			fflush(stdout);
			if (system(getenv("NLFAULT_SLOW")))
				printf("# NLFAULT_SLOW failed\n");
		}
		usleep(50000);
		settle_waits++;
	}
	return false;
}

static bool goal_same(const struct census *now, const void *want)
{
	return census_same(now, want);
}

static bool goal_runs_ended(const struct census *now, const void *arg __attribute__((unused)))
{
	return !now->running;
}

/* Workers exit and sockets close after the answer: wait for the census to
 * come back to @want, or (@want NULL) for runs to end. True when it did.
 */
static double settle_longest;		/* seconds, the longest wait for runs */
static double settle_last;		/* seconds, the last wait for runs */
static const char *settle_after = "request";	/* what a slow settle waited after */

static bool census_settle(struct nl_ctx *ctx, struct census *now, const struct census *want)
{
	double t = 0;

	if (want)
		return census_poll(ctx, now, SETTLE_POLLS, goal_same, want, &t);
	if (!census_poll(ctx, now, RUN_END_POLLS, goal_runs_ended, NULL, &t))
		return false;
	settle_last = t;
	settle_longest = t > settle_longest ? t : settle_longest;
	if (t > SETTLE_S)
		printf("# %s=%u: the runs ended %.1f s after the %s\n", step, step_n, t,
		       settle_after);
	return true;
}

/* After an error: the census back to @before or, with @cmd (an answer
 * the socket lost), to what @cmd's success leaves once its runs ended.
 */
static bool census_as_success(uint8_t cmd, const struct census *before,
			      const struct census *now);

struct goal_after {
	const struct census *before;
	uint8_t cmd;
};

static bool goal_after(const struct census *now, const void *arg)
{
	const struct goal_after *g = arg;

	return census_same(now, g->before) ||
	       (g->cmd && !now->running && !now->bad_runs &&
		census_as_success(g->cmd, g->before, now));
}

static bool census_settle_after(struct nl_ctx *ctx, struct census *now,
				const struct census *before, uint8_t cmd)
{
	struct goal_after g = { before, cmd };
	double t;

	return census_poll(ctx, now, SETTLE_POLLS, goal_after, &g, &t);
}

/* ---- requests ---- */

static bool cleanup_sinks, cleanup_runs, dump, setup_wait, cli_msg;
static char *setup[MAX_SETUP];
static int nsetup;
static uint32_t setup_id;

static int simple(struct nl_ctx *ctx, uint8_t cmd, uint16_t attr)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, cmd, 0);

	mnl_attr_put(nlh, attr, 0, NULL);
	return nl_request(ctx, nlh, NULL, NULL, NULL);
}

/* What the last cleanup() or retry failed at, for the judgement. */
static char cleanup_why[640];

static int step_failed(struct nl_ctx *ctx, const char *what, int err)
{
	snprintf(cleanup_why, sizeof(cleanup_why), "%s: %s%s%s", what, strerror(-err),
		 ctx->err_msg[0] ? ": " : "", ctx->err_msg);
	return -1;
}

/* Leave nothing for the next attempt to trip over. */
static int cleanup(struct nl_ctx *ctx)
{
	struct census c;
	char a[512];
	bool ok;
	int err;

	if (cleanup_runs) {
		simple(ctx, KTGEN_CMD_RUN_STOP, KTGEN_A_RUN_ALL);
		settle_after = "stop";
		ok = census_settle(ctx, &c, NULL);
		settle_after = "request";
		if (!ok) {
			census_str(&c, a, sizeof(a));
			snprintf(cleanup_why, sizeof(cleanup_why),
				 "runs still running %.0f s after a stop: %s", RUN_END_S, a);
			return -1;
		}
		err = simple(ctx, KTGEN_CMD_RUN_DEL, KTGEN_A_RUN_ALL);
		if (err)
			return step_failed(ctx, "run del all", err);
	}
	if (cleanup_sinks) {
		err = simple(ctx, KTGEN_CMD_SINK_DEL, KTGEN_A_SINK_ALL);
		if (err)
			return step_failed(ctx, "sink del all", err);
	}
	return 0;
}

static int id_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == 1 && mnl_attr_get_payload_len(a) == 4)
			*(uint32_t *)data = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

/* @mem: user memory for the requests, mapped (and populated) before any
 * fault is armed, for the walk's whole life (a run or a sink using it
 * holds this address space).
 */
#define USER_MEM	(1 << 20)
static void *user_mem;

static int request(struct nl_ctx *ctx, uint8_t cmd, bool is_dump, char **attrs, int nattrs,
		   uint32_t *id)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, cmd, is_dump ? NLM_F_DUMP : 0);
	char spec[64];
	int i;

	for (i = 0; i < nattrs; i++) {
		const char *s = attrs[i];
		size_t l = strlen(s);

		if (l > 5 && !strcmp(s + l - 5, ":@mem") && l < sizeof(spec) - 24) {
			snprintf(spec, sizeof(spec), "%.*s:%llu", (int)(l - 5), s,
				 (unsigned long long)(uintptr_t)user_mem);
			s = spec;
		} else if (l > 2 && !strcmp(s + l - 2, ":@") && l < sizeof(spec) - 12) {
			snprintf(spec, sizeof(spec), "%.*s:%u", (int)(l - 2), s, setup_id);
			s = spec;
		}
		if (attrspec_put(nlh, s))
			return -EINVAL;
	}
	return nl_request(ctx, nlh, NULL, id ? id_cb : NULL, id);
}

/* The -b requests: "CMD SPEC..." each, split on blanks. */
static int run_setup(struct nl_ctx *ctx)
{
	int i, err;

	for (i = 0; i < nsetup; i++) {
		char buf[512], *argv[32], *tok, *save;
		uint64_t cmd;
		int argc = 0;

		snprintf(buf, sizeof(buf), "%s", setup[i]);
		for (tok = strtok_r(buf, " ", &save); tok && argc < 32;
		     tok = strtok_r(NULL, " ", &save))
			argv[argc++] = tok;
		if (!argc || parse_u64(argv[0], &cmd) || cmd > 255)
			return -EINVAL;
		err = request(ctx, cmd, false, argv + 1, argc - 1, &setup_id);
		if (err)
			return err;
	}
	return 0;
}

static unsigned int bad;

static void __attribute__((format(printf, 2, 3))) judge_fail(unsigned int n, const char *fmt, ...)
{
	va_list ap;

	printf("not ok - %s=%u: ", step, n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	bad++;
}

/* What a success does to the objects: the one a create makes (or those a
 * delete removes), and no other. (Workers, sockets and bytes come with
 * them: only a failure is held to the census as a whole.)
 */
static bool census_as_success(uint8_t cmd, const struct census *before, const struct census *now)
{
	switch (cmd) {
	case KTGEN_CMD_SINK_NEW:
		return now->sinks == before->sinks + 1 && now->runs == before->runs;
	case KTGEN_CMD_RUN_NEW:
		return now->runs == before->runs + 1 && now->sinks == before->sinks;
	case KTGEN_CMD_SINK_DEL:
		return now->sinks < before->sinks && now->runs == before->runs;
	case KTGEN_CMD_RUN_DEL:
		return now->runs < before->runs && now->sinks == before->sinks;
	default:
		return now->sinks == before->sinks && now->runs == before->runs;
	}
}

/* The same request with no fault, between two cleanups; on failure
 * cleanup_why says which step and why. With no fault nothing is lost on
 * the wire: a stop ends its run within 5 s (a TCP flow stopped before its
 * hello once waited the drain's 30 s for acks of bytes never written).
 */
static int retry_clean(struct nl_ctx *ctx, uint8_t cmd, char **attrs, int nattrs)
{
	struct census c;
	int err;

	if (cleanup(ctx))
		return -1;
	err = run_setup(ctx);
	if (err)
		return step_failed(ctx, "the setup requests", err);
	if (setup_wait && !census_settle(ctx, &c, NULL)) {
		snprintf(cleanup_why, sizeof(cleanup_why), "the setup's runs did not end in %.0f s",
			 RUN_END_S);
		return -1;
	}
	err = request(ctx, cmd, dump, attrs, nattrs, NULL);
	if (err)
		return step_failed(ctx, "the request", err);
	settle_last = 0;
	if (cleanup(ctx))
		return -1;
	if (cleanup_runs && settle_last > SETTLE_S) {
		snprintf(cleanup_why, sizeof(cleanup_why),
			 "with no fault, a stop took %.1f s to end the run", settle_last);
		return -1;
	}
	return 0;
}

static int fault_requests(uint8_t cmd, char **attrs, int nattrs)
{
	double t0 = now_s();
	unsigned int n, errors = 0, ours = 0, copies = 0;
	struct timeval tv = { .tv_sec = 30 };
	struct census start, before, now;
	char a[512], b[512], msg[256];
	struct nl_ctx ctx;
	int err, quiet, from;

	if (nl_open(&ctx) || census_take(&ctx, &start))
		return EXIT_FAIL;
	setsockopt(mnl_socket_get_fd(ctx.sock), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* Errors under injection are expected: keep them off stderr (a pipe
	 * write would be a fault site of its own).
	 */
	quiet = open("/dev/null", O_WRONLY);
	for (n = walk_first; n < MAX_NTH; n += walk_every) {
		int saved;
		bool unused;

		step_n = n;
		if (run_setup(&ctx) ||
		    (setup_wait ? !census_settle(&ctx, &before, NULL) : census_take(&ctx, &before))) {
			judge_fail(n, "the setup failed");
			break;
		}
		kmsg_skip();
		saved = dup(2);
		dup2(quiet, 2);
		fail_nth_set(n);
		err = request(&ctx, cmd, dump, attrs, nattrs, NULL);
		unused = fail_nth_unused();
		dup2(saved, 2);
		close(saved);
		/* The socket may hold a late answer: judge on a fresh one. */
		from = ctx.err_from;
		snprintf(msg, sizeof(msg), "%s", ctx.err_msg);
		nl_close(&ctx);
		if (nl_open(&ctx)) {
			judge_fail(n, "no netlink socket");
			break;
		}
		setsockopt(mnl_socket_get_fd(ctx.sock), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (unused) {
			if (err)
				judge_fail(n, "failed with no fault: %s", strerror(-err));
			else if (!census_settle(&ctx, &now, NULL) || !census_as_success(cmd, &before, &now) ||
				 now.bad_runs) {
				census_str(&now, a, sizeof(a));
				judge_fail(n, "the request with no fault left: %s", a);
			}
			break;
		}
		if (err == -EAGAIN || err == -EINPROGRESS) {
			judge_fail(n, "no answer within 30 s");
		} else if (err) {
			struct fault_seen seen;

			kmsg_fault(&seen);
			errors++;
			ours += seen.in_ktgen;
			copies += seen.usercopy;
			if (!fault_errno(&seen, err))
				judge_fail(n, "%s, not a failed %s's error (%s)", strerror(-err),
					   seen.usercopy ? "user copy" : "allocation", fault_where(&seen));
			else if (from == NL_ERR_ACK && seen.in_ktgen && !msg[0])
				judge_fail(n, "%s with no extack message (the failure: %s)",
					   strerror(-err), seen.frame);
			/* The family answered an error: nothing changed. The
			 * socket lost the answer (the core's ack or a dump
			 * part): as nothing changed, or as a success.
			 */
			if (!census_settle_after(&ctx, &now, &before, from == NL_ERR_ACK ? 0 : cmd)) {
				census_str(&before, a, sizeof(a));
				census_str(&now, b, sizeof(b));
				judge_fail(n, "%s (%s) left %s; before: %s", strerror(-err),
					   fault_where(&seen), b, a);
			}
		} else if (!census_settle(&ctx, &now, NULL) || !census_as_success(cmd, &before, &now) ||
			   now.bad_runs) {
			/* A failure the request survived: the same object as
			 * without one, and a run that works.
			 */
			census_str(&before, a, sizeof(a));
			census_str(&now, b, sizeof(b));
			judge_fail(n, "succeeded and left %s; before: %s", b, a);
		}
		/* The same request works with no fault. */
		if (retry_clean(&ctx, cmd, attrs, nattrs)) {
			judge_fail(n, "the next attempt failed: %s", cleanup_why);
			break;
		}
		if (bad > 20)
			break;
	}
	if (!bad && (cleanup(&ctx) || !census_settle(&ctx, &now, &start))) {
		census_str(&start, a, sizeof(a));
		census_str(&now, b, sizeof(b));
		judge_fail(n, "after the walk: %s; at its start: %s", b, a);
	}
	nl_close(&ctx);
	close(quiet);
	printf("# command %u: %u fault sites%s, %u refused (%u in ktgen's own code, %u user copies), %u bad, %.0f s (%.1f s waiting for the census to settle, %.1f s the longest)\n",
	       cmd, n - 1, walk_steps(), errors, ours, copies, bad, now_s() - t0,
	       settle_waits / 20.0, settle_longest);
	return bad || n >= MAX_NTH ? EXIT_FAIL : EXIT_OK;
}

/* ---- CLI commands (ktgen-nic's rtnetlink and ethtool operations) ---- */

/* "knob IFNAME KNOB...": each knob's write alone (its ethtool request or
 * sysfs write), without what `dev set` does around it (read, wait for the
 * carrier, read back): the device's change is what is judged, not a
 * CLI's wait that a failing allocation makes time out.
 */
static int knob_set_only(int argc, char **argv)
{
	struct knob_list l = {};
	int i = 1, n, rc = EXIT_OK;
	size_t k;

	if (argc < 2)
		return EXIT_USAGE;
	for (; i < argc; i += n) {
		n = knob_parse(&l, argv[0], NULL, argc - i, argv + i);
		if (n <= 0) {
			knobs_free(&l);
			return EXIT_USAGE;
		}
	}
	for (k = 0; k < l.n && rc == EXIT_OK; k++) {
		struct knob *kn = &l.k[k];

		if ((kn->type->resolve && kn->type->resolve(kn)) || kn->type->set(kn, kn->want))
			rc = EXIT_FAIL;
	}
	knobs_free(&l);
	return rc;
}

/* The CLI's own code for OBJECT (tools/), called in this task so that
 * its requests meet the armed fault.
 */
static int cli_call(char *line, int err_fd)
{
	char buf[512], *argv[32], *tok, *save;
	int argc = 0, saved, rc;

	/* "!COMMAND": a shell command, for setups only (ip link set up) */
	if (line[0] == '!')
		return system(line + 1) ? EXIT_FAIL : EXIT_OK;
	snprintf(buf, sizeof(buf), "%s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	if (argc < 2)
		return EXIT_USAGE;
	saved = dup(2);
	dup2(err_fd, 2);
	if (!strcmp(argv[0], "nic"))
		rc = do_nic(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "dev"))
		rc = do_dev(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "knob"))
		rc = knob_set_only(argc - 1, argv + 1);
	else
		rc = EXIT_USAGE;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	return rc;
}

/* Whether the CLI printed the kernel's own words: "Error: MESSAGE: errno
 * text" (nl_format_error()), not the bare errno text.
 */
static bool cli_explained(int fd, char *text, size_t len)
{
	ssize_t n = pread(fd, text, len - 1, 0);
	bool explained = false;
	char *line, *save;

	text[n > 0 ? n : 0] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *e = strstr(line, "Error: ");

		explained |= e && strstr(e + 7, ": ");
		if (save && *save)
			save[-1] = '|';	/* one line for the report */
	}
	return explained;
}

/* The -b commands, with no fault: non-zero (and said) when one failed. */
static int run_setup_cli(int err_fd)
{
	int i;

	for (i = 0; i < nsetup; i++)
		if (cli_call(setup[i], err_fd)) {
			printf("not ok - the setup '%s' failed\n", setup[i]);
			bad++;
			return -1;
		}
	return 0;
}

/* After the command ran with no fault: what it left (@want); its undo
 * must bring the census back to @start.
 */
static int cli_want(struct nl_ctx *ctx, char *undo, int quiet, const struct census *start,
		    struct census *want)
{
	struct census now;
	char a[512];

	usleep(200000);
	census_take(ctx, want);
	cli_call(undo, quiet);
	if (census_settle(ctx, &now, start))
		return 0;
	census_str(&now, a, sizeof(a));
	printf("not ok - '%s' left %s\n", undo, a);
	return -1;
}

/* A refusal (exit @rc, the CLI's output in @err_fd, read into @text): exit
 * 1, and under -m the kernel's message when the failure was ktgen's; with
 * @lost_ok, also none when no answer of the kernel's came at all (failures
 * that go on can take the answer itself). What failed goes to @seen.
 */
static void cli_judge_refusal(unsigned int n, int rc, int err_fd, char *text, size_t len,
			      bool lost_ok, struct fault_seen *seen)
{
	bool explained = cli_explained(err_fd, text, len);

	kmsg_fault(seen);
	if (rc != EXIT_FAIL)
		judge_fail(n, "exit %d, not 1 (%s): %s", rc, fault_where(seen), text);
	else if (cli_msg && seen->in_ktgen && !explained && !(lost_ok && !strstr(text, "Error: ")))
		judge_fail(n, "'%s' with no message of the kernel's (the failure: %s)",
			   text, seen->frame);
}

/* A success (after failures it survived, or none): the census the
 * command leaves with no fault.
 */
static void cli_judge_success(struct nl_ctx *ctx, unsigned int n, const struct census *want)
{
	struct census now;
	char a[512], b[512];

	if (census_settle(ctx, &now, want))
		return;
	census_str(want, a, sizeof(a));
	census_str(&now, b, sizeof(b));
	judge_fail(n, "succeeded and left %s; with no fault: %s", b, a);
}

/* After attempt @n (exit @rc, the CLI's @text): its undo brings the census
 * back to @start.
 */
static void cli_undo(struct nl_ctx *ctx, unsigned int n, const char *req, char *undo, int quiet,
		     int rc, const char *text, const struct census *start)
{
	struct census now;
	char a[512], b[512];

	cli_call(undo, quiet);
	if (census_settle(ctx, &now, start))
		return;
	census_str(start, a, sizeof(a));
	census_str(&now, b, sizeof(b));
	judge_fail(n, "after '%s' (exit %d%s%s) and '%s': %s; before: %s", req, rc,
		   rc ? ": " : "", rc ? text : "", undo, b, a);
}

static int fault_cli(char *req, char *undo)
{
	double t0 = now_s();
	struct census start, want, before, now;
	char a[512], b[512], text[512];
	unsigned int n, errors = 0, ours = 0, copies = 0;
	int quiet, err_fd, rc;
	struct nl_ctx ctx;

	quiet = open("/dev/null", O_WRONLY);
	err_fd = memfd_create("nlfault-stderr", 0);
	if (quiet < 0 || err_fd < 0 || nl_open(&ctx) || census_take(&ctx, &start))
		return EXIT_FAIL;
	/* What the commands do with no fault: the census a success leaves. */
	if (run_setup_cli(2))
		return EXIT_FAIL;
	if (cli_call(req, 2)) {
		printf("not ok - '%s' failed with no fault\n", req);
		return EXIT_FAIL;
	}
	if (cli_want(&ctx, undo, quiet, &start, &want))
		return EXIT_FAIL;
	for (n = walk_first; n < MAX_NTH; n += walk_every) {
		bool unused;

		step_n = n;
		if (run_setup_cli(2))
			break;
		if (ftruncate(err_fd, 0) || lseek(err_fd, 0, SEEK_SET) ||
		    census_take(&ctx, &before))
			break;
		kmsg_skip();
		fail_nth_set(n);
		rc = cli_call(req, err_fd);
		unused = fail_nth_unused();
		if (rc == 0) {
			/* Done, with or without a failure it survived: as
			 * with no fault.
			 */
			cli_judge_success(&ctx, n, &want);
		} else if (unused) {
			cli_explained(err_fd, text, sizeof(text));
			judge_fail(n, "failed with no fault (exit %d): %s", rc, text);
		} else {
			struct fault_seen seen;

			cli_judge_refusal(n, rc, err_fd, text, sizeof(text), false, &seen);
			errors++;
			ours += seen.in_ktgen;
			copies += seen.usercopy;
			/* Refused: nothing changed. No answer of the kernel's
			 * ("Error: ...": the socket lost it): nothing changed,
			 * or what the success changes.
			 */
			if (!census_settle(&ctx, &now, &before) &&
			    (strstr(text, "Error: ") || !census_settle(&ctx, &now, &want))) {
				census_str(&before, a, sizeof(a));
				census_str(&now, b, sizeof(b));
				judge_fail(n, "exit %d (%s) left %s; before: %s", rc, text, b, a);
			}
		}
		cli_undo(&ctx, n, req, undo, quiet, rc, text, &start);
		if (unused || bad > 20)
			break;
	}
	nl_close(&ctx);
	close(quiet);
	close(err_fd);
	printf("# '%s': %u fault sites%s, %u refused (%u in ktgen's own code, %u user copies), %u bad, %.0f s (%.1f s waiting for the census to settle)\n",
	       req, n - 1, walk_steps(), errors, ours, copies, bad, now_s() - t0,
	       settle_waits / 20.0);
	return bad || n >= MAX_NTH ? EXIT_FAIL : EXIT_OK;
}

/* ---- -t: failures from a point of the command on ---- */

/* fail-nth fails one allocation; a command whose error path allocates
 * again (to undo, to restore) is only proven by failures that go on. -t K
 * arms failslab and fail_page_alloc for this task alone (task filter,
 * make-it-fail) so that every allocation fails once the injector's
 * "space" is spent (failslab counts bytes, fail_page_alloc pages):
 * measured once with no failure, the command is then failed from K points
 * spread over what it spends, 0 to (K - 1) / K of it.
 */
#define TAIL_TIMES	1000000
#define TAIL_SPACE	(1L << 30)
static const char *const tail_inj[] = { "failslab", "fail_page_alloc" };
#define NTAIL	(sizeof(tail_inj) / sizeof(tail_inj[0]))
static int make_it_fail_fd = -1;
static unsigned int tail_points;

static void inj_set(const char *inj, const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", inj, file);
	write_file(path, val);
}

static long inj_get(const char *inj, const char *file)
{
	char path[128];

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", inj, file);
	return read_long(path, NULL);
}

static void tail_disarm(void)
{
	size_t i;

	for (i = 0; i < NTAIL; i++) {
		inj_set(tail_inj[i], "probability", "0");
		inj_set(tail_inj[i], "task-filter", "N");
		inj_set(tail_inj[i], "space", "0");
	}
	inj_set("fail_page_alloc", "ignore-gfp-highmem", "N");
}

static void tail_killed(int sig)
{
	tail_disarm();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A page fault of this process whose allocation fails is retried for
 * ever (the fault ends in VM_FAULT_OOM, and user space faults again):
 * everything it will touch is made present first. The heap grown and
 * kept (no trimming, nothing from mmap), the stack grown, all of it
 * locked in with its page tables; and user pages (highmem allocations)
 * are not failed.
 */
static void __attribute__((noinline)) stack_grow(void)
{
	volatile char buf[256 << 10];

	memset((char *)buf, 0, sizeof(buf));
}

static int tail_prepare(void)
{
	void *heap;

	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	heap = malloc(16 << 20);
	if (!heap)
		return -1;
	memset(heap, 0, 16 << 20);
	free(heap);
	stack_grow();
	if (mlockall(MCL_CURRENT))
		return -1;
	signal(SIGTERM, tail_killed);
	signal(SIGINT, tail_killed);
	return 0;
}

/* @req in this task, its allocations failing once @space is spent; what
 * each injector saw spent (@spent, when given: meaningful with no failure)
 * and how many allocations failed (returned).
 */
static long tail_call(char *req, int err_fd, const long *space, long *spent, int *rc)
{
	char v[24], times[24];
	long failed = 0;
	size_t i;

	snprintf(times, sizeof(times), "%d", TAIL_TIMES);
	inj_set("fail_page_alloc", "ignore-gfp-highmem", "Y");
	for (i = 0; i < NTAIL; i++) {
		snprintf(v, sizeof(v), "%ld", space[i]);
		inj_set(tail_inj[i], "space", v);
		inj_set(tail_inj[i], "times", times);
		inj_set(tail_inj[i], "interval", "1");
		inj_set(tail_inj[i], "task-filter", "Y");
		inj_set(tail_inj[i], "probability", "100");
	}
	if (pwrite(make_it_fail_fd, "1", 1, 0) != 1) {
		perror("nlfault: make-it-fail");
		exit(EXIT_FAIL);
	}
	*rc = cli_call(req, err_fd);
	while (pwrite(make_it_fail_fd, "0", 1, 0) != 1)
		;
	for (i = 0; i < NTAIL; i++) {
		if (spent)
			spent[i] = space[i] - inj_get(tail_inj[i], "space");
		failed += TAIL_TIMES - inj_get(tail_inj[i], "times");
	}
	tail_disarm();
	return failed;
}

/* The census back to @a or to @b (5 s at most). */
static bool goal_either(const struct census *now, const void *arg)
{
	const struct census *const *ab = arg;

	return census_same(now, ab[0]) || census_same(now, ab[1]);
}

static bool census_settle_either(struct nl_ctx *ctx, struct census *now,
				 const struct census *a, const struct census *b)
{
	const struct census *ab[] = { a, b };
	double t;

	return census_poll(ctx, now, SETTLE_POLLS, goal_either, ab, &t);
}

/* Judged as a walk's attempt (fault_cli()), but for what the failures
 * that go on make of the answer: the command may fail after what it
 * changed (reading it back), so a failure leaves the census as it was or
 * as the success leaves it, never anything else; and the kernel's answer
 * itself may be lost (no "Error: "), so only an answer it gave must carry
 * the message (-m).
 */
static int fault_cli_tail(char *req, char *undo, unsigned int points)
{
	double t0 = now_s();
	struct census start, want, before, now;
	long space[NTAIL], total[NTAIL], failed, injected = 0;
	char a[512], b[512], text[512];
	unsigned int k, errors = 0, ours = 0, survived = 0;
	int quiet, err_fd, rc;
	struct nl_ctx ctx;
	size_t i;

	make_it_fail_fd = open("/proc/thread-self/make-it-fail", O_RDWR | O_CLOEXEC);
	quiet = open("/dev/null", O_WRONLY);
	err_fd = memfd_create("nlfault-stderr", 0);
	if (make_it_fail_fd < 0 || quiet < 0 || err_fd < 0 || nl_open(&ctx) ||
	    census_take(&ctx, &start) || tail_prepare()) {
		perror("nlfault: -t");
		return EXIT_FAIL;
	}
	atexit(tail_disarm);
	step = "point";
	/* What the command spends and leaves with no failure. */
	for (i = 0; i < NTAIL; i++)
		space[i] = TAIL_SPACE;
	if (run_setup_cli(2) || tail_call(req, 2, space, total, &rc) || rc) {
		printf("not ok - '%s' failed with no fault\n", req);
		return EXIT_FAIL;
	}
	if (cli_want(&ctx, undo, quiet, &start, &want))
		return EXIT_FAIL;
	for (k = 0; k < points && bad <= 20; k++) {
		for (i = 0; i < NTAIL; i++)
			space[i] = total[i] * k / points;
		if (run_setup_cli(2))
			break;
		if (ftruncate(err_fd, 0) || lseek(err_fd, 0, SEEK_SET) ||
		    census_take(&ctx, &before))
			break;
		kmsg_skip();
		failed = tail_call(req, err_fd, space, NULL, &rc);
		injected += failed;
		if (rc == 0) {
			survived += failed > 0;
			cli_judge_success(&ctx, k, &want);
		} else if (!failed) {
			cli_explained(err_fd, text, sizeof(text));
			judge_fail(k, "failed with no fault (exit %d): %s", rc, text);
		} else {
			struct fault_seen seen;

			cli_judge_refusal(k, rc, err_fd, text, sizeof(text), true, &seen);
			errors++;
			ours += seen.in_ktgen;
			if (!census_settle_either(&ctx, &now, &before, &want)) {
				census_str(&before, a, sizeof(a));
				census_str(&now, b, sizeof(b));
				judge_fail(k, "exit %d (%s, %ld allocations failed) left %s; before: %s",
					   rc, text, failed, b, a);
			}
		}
		cli_undo(&ctx, k, req, undo, quiet, rc, text, &start);
		printf("# point %u: from %ld bytes, %ld page allocations on: exit %d, %ld failed (%.0f s)\n",
		       k, space[0], space[1], rc, failed, now_s() - t0);
	}
	nl_close(&ctx);
	close(quiet);
	close(err_fd);
	printf("# '%s': failures from %u points on (of %ld bytes of slab, %ld page allocations), %u refused (%u in ktgen's own code), %u survived, %ld allocations failed, %u bad, %.0f s\n",
	       req, k, total[0], total[1], errors, ours, survived, injected, bad, now_s() - t0);
	return bad || k < points ? EXIT_FAIL : EXIT_OK;
}

/* The module's name: the file's, without directories or ".ko". */
static void module_name(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	snprintf(name, size, "%.*s", (int)strcspn(base, "."), base);
}

/* The module's unload, each fault site of delete_module() and the exit
 * failed in turn: an exit cannot fail, so the module is gone with no fault
 * left to see but a leak (kmemleak, read by the caller), or the syscall
 * refused before the exit (its user copy of the name: EFAULT, or an
 * allocation's error) and the module is still there to unload. Either
 * way the next load and unload work. @fd: the module's file.
 */
static unsigned int fault_unload(int fd, const char *name)
{
	unsigned int n, refused = 0, failed = 0;
	int err;

	for (n = walk_first; n < MAX_NTH; n += walk_every) {
		if (syscall(SYS_finit_module, fd, "", 0)) {
			printf("# unload nth=%u: the load before it failed: %s\n", n, strerror(errno));
			failed++;
			break;
		}
		fail_nth_set(n);
		err = syscall(SYS_delete_module, name, O_NONBLOCK) ? errno : 0;
		if (fail_nth_unused()) {
			if (err) {
				printf("# unload nth=%u: failed with no fault: %s\n", n, strerror(err));
				failed++;
			}
			break;
		}
		if (err) {
			refused++;
			if (err != EFAULT && !is_alloc_errno(-err)) {
				printf("# unload nth=%u: %s, not a failure's error\n", n, strerror(err));
				failed++;
			}
			if (syscall(SYS_delete_module, name, O_NONBLOCK)) {
				printf("# unload nth=%u: refused, then cannot unload: %s\n", n,
				       strerror(errno));
				failed++;
				break;
			}
		}
	}
	printf("# unload %s: %u fault sites%s, %u refused before the exit, %u bad\n", name, n - 1,
	       walk_steps(), refused, failed);
	return failed + (n >= MAX_NTH);
}

static int fault_load(const char *path)
{
	unsigned int n, failed = 0, errors = 0;
	char name[64];
	int fd, err;

	module_name(path, name, sizeof(name));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return EXIT_FAIL;
	}
	for (n = walk_first; n < MAX_NTH; n += walk_every) {
		fail_nth_set(n);
		err = syscall(SYS_finit_module, fd, "", 0) ? errno : 0;
		if (fail_nth_unused()) {
			if (err) {
				fprintf(stderr, "nlfault: load failed with no fault: %s\n", strerror(err));
				failed++;
			}
			break;
		}
		errors += !!err;
		if (!err && syscall(SYS_delete_module, name, O_NONBLOCK)) {
			printf("# nth=%u: loaded but cannot unload: %s\n", n, strerror(errno));
			failed++;
			break;
		}
		/* A clean failure leaves nothing behind: the module loads. */
		if (syscall(SYS_finit_module, fd, "", 0) ||
		    syscall(SYS_delete_module, name, O_NONBLOCK)) {
			printf("# nth=%u: the next load/unload failed: %s\n", n, strerror(errno));
			failed++;
			break;
		}
	}
	if (!failed && syscall(SYS_delete_module, name, O_NONBLOCK) && errno != ENOENT)
		failed++;
	printf("# load %s: %u fault sites%s, %u refused cleanly, %u bad\n", name, n - 1,
	       walk_steps(), errors, failed);
	if (!failed)
		failed = fault_unload(fd, name);
	close(fd);
	return failed || n >= MAX_NTH ? EXIT_FAIL : EXIT_OK;
}

int main(int argc, char **argv)
{
	uint64_t cmd;

	for (; argc > 1 && argv[1][0] == '-'; argc--, argv++) {
		if (!strcmp(argv[1], "-s")) {
			cleanup_sinks = true;
		} else if (!strcmp(argv[1], "-r")) {
			cleanup_runs = true;
		} else if (!strcmp(argv[1], "-d")) {
			dump = true;
		} else if (!strcmp(argv[1], "-m")) {
			cli_msg = true;
		} else if (!strcmp(argv[1], "-t") && argc > 2 && atoi(argv[2]) > 0) {
			tail_points = atoi(argv[2]);
			argc--, argv++;
		} else if (!strcmp(argv[1], "-w")) {
			setup_wait = true;
		} else if (!strcmp(argv[1], "-e")) {
			check_bytes = true;
		} else if (!strcmp(argv[1], "-b") && argc > 2 && nsetup < MAX_SETUP) {
			setup[nsetup++] = argv[2];
			argc--, argv++;
		} else {
			argc = 0;
			break;
		}
	}
	if (argc < 3) {
		fputs("usage: nlfault [-s] [-r] [-d] [-e] [-w] [-b 'CMD SPEC...']... request CMD [SPEC]...\n"
		      "       nlfault [-m] [-t POINTS] [-b 'CLI-COMMAND']... cli 'CLI-COMMAND' 'CLI-UNDO'\n"
		      "       nlfault load MODULE.ko\n", stderr);
		return EXIT_USAGE;
	}
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fail_nth_fd < 0) {
		perror("nlfault: /proc/thread-self/fail-nth");
		return EXIT_FAIL;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (walk_every_parse(getenv("NLFAULT_EVERY")))
		return EXIT_USAGE;
	if (!strcmp(argv[1], "load"))
		return fault_load(argv[2]);
	if (!strcmp(argv[1], "cli") && argc == 4) {
		FILE *null = fopen("/dev/null", "we");

		/* what the CLI prints on success, as ktgen's main() sets up */
		if (!null)
			return EXIT_FAIL;
		print_init(null, false, false);
		verbose_on();
		if (tail_points)
			return fault_cli_tail(argv[2], argv[3], tail_points);
		return fault_cli(argv[2], argv[3]);
	}
	if (!strcmp(argv[1], "request") && !parse_u64(argv[2], &cmd) && cmd < 256) {
		user_mem = mmap(NULL, USER_MEM, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (user_mem == MAP_FAILED) {
			perror("nlfault: mmap");
			return EXIT_FAIL;
		}
		verbose_on();
		return fault_requests(cmd, argv + 3, argc - 3);
	}
	fputs("nlfault: bad arguments\n", stderr);
	return EXIT_USAGE;
}
