// SPDX-License-Identifier: GPL-2.0
/*
 * nlraw: send hand-made ktgen requests, the way no well-behaved client
 * would, and print the kernel's answer through the CLI's own error path.
 *
 *   nlraw COMMAND [TYPE:KIND:VALUE]... [-- COMMAND [TYPE:KIND:VALUE]...]...
 *
 * COMMAND is get-info, get-config, set-config, sink-new, sink-get (a
 * dump), sink-del, run-new, run-get (a dump), run-stop, run-del, flow-get
 * (a dump) or a number; KIND is u8, u16, u32, u64, str, flag or hex (raw
 * bytes). Each reply message prints one line on stdout: the names of its
 * attributes ("reply: id proto ..."), so a test can tell what the kernel
 * let the caller see. Requests separated by "--" go one after the other
 * on one socket (one process for many: each exec is slow in a TCG guest).
 * Exit 0 when the kernel accepted every request, 1 when it refused one (each
 * reason is on stderr), 2 on usage errors.
 *
 * User memory, for what the module does with it mid-run: TYPE:umem:LEN
 * puts the address of LEN fresh bytes (mapped, populated) of this process,
 * and in place of a request, an action on it or a pause:
 *   sleep MS          wait
 *   munmap            unmap it
 *   mprotect none|ro  make it inaccessible or read-only
 *   uffd-stall        let its pages go behind a userfaultfd that this
 *                     process never reads: a fault on them waits for ever
 *                     (until the process exits)
 *   setns PATH        join the network namespace at PATH (/proc/1/ns/net)
 *                     on a new socket there: what was started detached on
 *                     the old one stays, and nothing of this process keeps
 *                     the old namespace (with nsenter --net, not ip netns
 *                     exec, whose sysfs mount does)
 *   dump-hold run-get|sink-get MS
 *                     start that dump, take its first batch, hold the rest
 *                     MS ms (the dump in progress), then read it all and
 *                     print "dump N" (the objects it listed)
 *   wait-runs SECS    poll until no run is running or stopping, then print
 *                     "run ID STATE ERRNO" for each (exit 1 if SECS passed)
 *   listen            join the events group (before the request whose
 *                     notifications are awaited), and print "listening"
 *   events SECS       print each notification ("event run-done ID",
 *                     "event run-interval ID", " pmu" added where a CPU
 *                     group carries event counts, " withheld" where the
 *                     run's says they were withheld) and each receive that failed
 *                     ("events lost: ERROR", a notification the kernel could
 *                     not send) until a run-done or a loss (exit 1 if SECS
 *                     passed first)
 */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/ktgen.h>

#include "ktgen.h"
#include "nl.h"
#include "attrspec.h"

struct opts opts;

/* The one region of user memory (TYPE:umem:LEN). */
static void *umem;
static size_t umem_len;

static const struct {
	const char		*name;
	uint8_t			cmd;
	const struct attr_set	*set;
	uint16_t		flags;
} cmds[] = {
	{ "get-info",	KTGEN_CMD_GET_INFO,	&ktg_info_attrs },
	{ "get-config",	KTGEN_CMD_GET_CONFIG,	&ktg_config_attrs },
	{ "set-config",	KTGEN_CMD_SET_CONFIG,	&ktg_config_attrs },
	{ "sink-new",	KTGEN_CMD_SINK_NEW,	&ktg_sink_attrs },
	{ "sink-get",	KTGEN_CMD_SINK_GET,	&ktg_sink_attrs,	NLM_F_DUMP },
	{ "sink-del",	KTGEN_CMD_SINK_DEL,	&ktg_sink_attrs },
	{ "run-new",	KTGEN_CMD_RUN_NEW,	&ktg_run_attrs },
	{ "run-get",	KTGEN_CMD_RUN_GET,	&ktg_run_attrs,	NLM_F_DUMP },
	{ "run-stop",	KTGEN_CMD_RUN_STOP,	&ktg_run_attrs },
	{ "run-del",	KTGEN_CMD_RUN_DEL,	&ktg_run_attrs },
	{ "flow-get",	KTGEN_CMD_FLOW_GET,	&ktg_flow_attrs,	NLM_F_DUMP },
};

/* One line per reply: the names of its top-level attributes. */
static int print_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct attr_set *set = data;
	const struct nlattr *a;
	char buf[64];

	fputs("reply:", stdout);
	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		printf(" %s", attr_name(set, mnl_attr_get_type(a), buf, sizeof(buf)));
	putchar('\n');
	return MNL_CB_OK;
}

/* TYPE:umem:LEN: map the region, put its address; 1 when @spec is one. */
static int umem_put(struct nlmsghdr *nlh, const char *spec)
{
	unsigned int type;
	uint64_t len;
	char val[32];

	if (sscanf(spec, "%u:umem:%31s", &type, val) != 2)
		return 0;
	if (umem || parse_u64(val, &len) || !len) {
		fprintf(stderr, "nlraw: one umem region of some bytes: %s\n", spec);
		return -1;
	}
	umem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (umem == MAP_FAILED) {
		perror("nlraw: mmap");
		umem = NULL;
		return -1;
	}
	umem_len = len;
	mnl_attr_put_u64(nlh, type, (uintptr_t)umem);
	return 1;
}

/* The umem region's pages gone, its faults to a userfaultfd left open and
 * never read.
 */
static int uffd_stall(void)
{
	struct uffdio_register reg = {
		.range	= { .start = (uintptr_t)umem, .len = umem_len },
		.mode	= UFFDIO_REGISTER_MODE_MISSING,
	};
	struct uffdio_api api = { .api = UFFD_API };
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);

	if (fd < 0 || ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &reg) ||
	    madvise(umem, umem_len, MADV_DONTNEED)) {
		perror("nlraw: uffd-stall");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* The network namespace at @path, on a new socket there. */
static int join_netns(struct nl_ctx *ctx, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		perror("nlraw: setns");
		if (fd >= 0)
			close(fd);
		return EXIT_FAIL;
	}
	close(fd);
	nl_close(ctx);
	return nl_open(ctx) ? EXIT_FAIL : EXIT_OK;
}

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(*(unsigned long *)data)++;
	return MNL_CB_OK;
}

/* A dump left in progress for @ms after its first batch. */
static int dump_hold(struct nl_ctx *ctx, uint8_t cmd, uint64_t ms)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, cmd, NLM_F_DUMP);
	uint32_t seq = nlh->nlmsg_seq;
	unsigned long n = 0, batches = 0;
	static char buf[1 << 16];
	ssize_t len;
	int ret;

	if (mnl_socket_sendto(ctx->sock, nlh, nlh->nlmsg_len) < 0)
		return EXIT_FAIL;
	do {
		len = mnl_socket_recvfrom(ctx->sock, buf, sizeof(buf));
		if (len < 0) {
			perror("nlraw: dump-hold");
			return EXIT_FAIL;
		}
		ret = mnl_cb_run(buf, len, seq, ctx->portid, count_cb, &n);
		if (!batches++)
			poll(NULL, 0, ms);
	} while (ret > MNL_CB_STOP);
	if (ret < 0) {
		perror("nlraw: dump-hold");
		return EXIT_FAIL;
	}
	printf("dump %lu in %lu batches\n", n, batches);
	fflush(stdout);
	return EXIT_OK;
}

/* "run ID STATE ERRNO" of each run; @data counts those still going. */
static int run_state_cb(const struct nlmsghdr *nlh, void *data)
{
	static const enum mnl_attr_data_type types[KTGEN_A_RUN_MAX + 1] = {
		[KTGEN_A_RUN_ID]	= MNL_TYPE_U32,
		[KTGEN_A_RUN_STATE]	= MNL_TYPE_U32,
		[KTGEN_A_RUN_ERROR]	= MNL_TYPE_U32,
	};
	static const char * const names[] = {
		[KTGEN_RUN_STATE_RUNNING]	= "running",
		[KTGEN_RUN_STATE_STOPPING]	= "stopping",
		[KTGEN_RUN_STATE_DONE]		= "done",
		[KTGEN_RUN_STATE_STOPPED]	= "stopped",
		[KTGEN_RUN_STATE_FAILED]	= "failed",
	};
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1];
	unsigned int *going = data;
	uint32_t st;

	nl_parse(nlh, types, KTGEN_A_RUN_MAX, tb);
	st = tb[KTGEN_A_RUN_STATE] ? mnl_attr_get_u32(tb[KTGEN_A_RUN_STATE]) : 0;
	if (st == KTGEN_RUN_STATE_RUNNING || st == KTGEN_RUN_STATE_STOPPING)
		(*going)++;
	if (going[1])
		printf("run %u %s %u\n",
		       tb[KTGEN_A_RUN_ID] ? mnl_attr_get_u32(tb[KTGEN_A_RUN_ID]) : 0,
		       st < ARRAY_SIZE(names) && names[st] ? names[st] : "?",
		       tb[KTGEN_A_RUN_ERROR] ? mnl_attr_get_u32(tb[KTGEN_A_RUN_ERROR]) : 0);
	return MNL_CB_OK;
}

/* A CPU group's nest carries an attribute of @type. */
static bool group_has(const struct nlattr *group, uint16_t type)
{
	const struct nlattr *a;

	if (!group)
		return false;
	mnl_attr_for_each_nested(a, group)
		if (mnl_attr_get_type(a) == type)
			return true;
	return false;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1] = {};
	uint8_t cmd = nl_genl_cmd(nlh);
	bool *done = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) <= KTGEN_A_RUN_MAX)
			tb[mnl_attr_get_type(a)] = a;
	printf("event %s %u%s%s\n", cmd == KTGEN_CMD_RUN_DONE ? "run-done" :
	       cmd == KTGEN_CMD_RUN_INTERVAL ? "run-interval" : "other",
	       tb[KTGEN_A_RUN_ID] ? mnl_attr_get_u32(tb[KTGEN_A_RUN_ID]) : 0,
	       (group_has(tb[KTGEN_A_RUN_CPU_RUN], KTGEN_A_CPU_STATS_EVENT) ||
		group_has(tb[KTGEN_A_RUN_CPU_OTHER], KTGEN_A_CPU_STATS_EVENT)) ? " pmu" : "",
	       group_has(tb[KTGEN_A_RUN_CPU_RUN], KTGEN_A_CPU_STATS_EVENTS_WITHHELD) ?
	       " withheld" : "");
	*done |= cmd == KTGEN_CMD_RUN_DONE;
	return MNL_CB_OK;
}

/* events SECS: until a run-done, a failed receive or SECS. */
static int events(struct nl_ctx *ctx, uint64_t secs)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(ctx->ev_sock), .events = POLLIN };
	struct timespec now, end;
	bool done = false;
	ssize_t len;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += secs;
	while (!done) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec) ||
		    poll(&pfd, 1, 100) < 0)
			break;
		if (!pfd.revents)
			continue;
		len = mnl_socket_recvfrom(ctx->ev_sock, ctx->ev_buf, MNL_SOCKET_BUFFER_SIZE);
		if (len < 0) {
			printf("events lost: %s\n", strerror(errno));
			fflush(stdout);
			return EXIT_OK;
		}
		if (mnl_cb_run(ctx->ev_buf, len, 0, 0, event_cb, &done) < 0)
			break;
		fflush(stdout);
	}
	if (done)
		return EXIT_OK;
	fprintf(stderr, "nlraw: no run-done and no loss in %llu s\n", (unsigned long long)secs);
	return EXIT_FAIL;
}

/* An action in place of a request: EXIT_OK, EXIT_FAIL, EXIT_USAGE, or -1
 * when @argv[0] is none.
 */
static int action(struct nl_ctx *ctx, char **argv, unsigned int n)
{
	uint64_t v = 0;

	if (!strcmp(argv[0], "sleep") && n == 2 && !parse_u64(argv[1], &v)) {
		poll(NULL, 0, v);
		return EXIT_OK;
	}
	if (!strcmp(argv[0], "munmap") && n == 1 && umem) {
		return munmap(umem, umem_len) ? EXIT_FAIL : EXIT_OK;
	}
	if (!strcmp(argv[0], "mprotect") && n == 2 && umem &&
	    (!strcmp(argv[1], "none") || !strcmp(argv[1], "ro"))) {
		return mprotect(umem, umem_len, strcmp(argv[1], "none") ? PROT_READ : PROT_NONE) ?
		       EXIT_FAIL : EXIT_OK;
	}
	if (!strcmp(argv[0], "uffd-stall") && n == 1 && umem)
		return uffd_stall();
	if (!strcmp(argv[0], "setns") && n == 2)
		return join_netns(ctx, argv[1]);
	if (!strcmp(argv[0], "dump-hold") && n == 3 && !parse_u64(argv[2], &v) &&
	    (!strcmp(argv[1], "run-get") || !strcmp(argv[1], "sink-get")))
		return dump_hold(ctx, strcmp(argv[1], "run-get") ?
				 KTGEN_CMD_SINK_GET : KTGEN_CMD_RUN_GET, v);
	if (!strcmp(argv[0], "wait-runs") && n == 2 && !parse_u64(argv[1], &v)) {
		uint64_t polls;

		for (polls = 0; polls <= v * 10; polls++) {
			unsigned int going[2] = { 0, 0 };

			if (nl_request(ctx, nl_msg_start(ctx, KTGEN_CMD_RUN_GET, NLM_F_DUMP),
				       &ktg_run_attrs, run_state_cb, going))
				return EXIT_FAIL;
			if (!going[0]) {
				going[1] = 1;
				nl_request(ctx, nl_msg_start(ctx, KTGEN_CMD_RUN_GET, NLM_F_DUMP),
					   &ktg_run_attrs, run_state_cb, going);
				return EXIT_OK;
			}
			poll(NULL, 0, 100);
		}
		fprintf(stderr, "nlraw: runs still going after %llu s\n", (unsigned long long)v);
		return EXIT_FAIL;
	}
	if (!strcmp(argv[0], "listen") && n == 1) {
		if (nl_join_events(ctx))
			return EXIT_FAIL;
		printf("listening\n");
		fflush(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[0], "events") && n == 2 && ctx->ev_sock && !parse_u64(argv[1], &v))
		return events(ctx, v);
	if (!strcmp(argv[0], "listen") || !strcmp(argv[0], "events") ||
	    !strcmp(argv[0], "sleep") || !strcmp(argv[0], "munmap") ||
	    !strcmp(argv[0], "mprotect") || !strcmp(argv[0], "uffd-stall") ||
	    !strcmp(argv[0], "setns") ||
	    !strcmp(argv[0], "dump-hold") || !strcmp(argv[0], "wait-runs")) {
		fprintf(stderr, "nlraw: bad action %s\n", argv[0]);
		return EXIT_USAGE;
	}
	return -1;
}

/* Send the request of @argv[0] (a command) and @argv[1..n-1] (attributes):
 * 0 when the kernel accepted it, EXIT_FAIL or EXIT_USAGE.
 */
static int request(struct nl_ctx *ctx, char **argv, unsigned int n)
{
	const struct attr_set *set = NULL;
	struct nlmsghdr *nlh;
	uint64_t cmd = 0;
	uint16_t flags = 0;
	unsigned int i;
	int act = action(ctx, argv, n);

	if (act >= 0)
		return act;
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[0], cmds[i].name)) {
			cmd = cmds[i].cmd;
			set = cmds[i].set;
			flags = cmds[i].flags;
		}
	if (!set && (parse_u64(argv[0], &cmd) || cmd > 255)) {
		fprintf(stderr, "nlraw: bad command %s\n", argv[0]);
		return EXIT_USAGE;
	}
	nlh = nl_msg_start(ctx, cmd, flags);
	for (i = 1; i < n; i++) {
		int u = umem_put(nlh, argv[i]);

		if (u < 0)
			return EXIT_USAGE;
		if (!u && attrspec_put(nlh, argv[i])) {
			fprintf(stderr, "nlraw: bad attribute %s\n", argv[i]);
			return EXIT_USAGE;
		}
	}
	return nl_request(ctx, nlh, set, print_reply_cb, (void *)set) ? EXIT_FAIL : EXIT_OK;
}

int main(int argc, char **argv)
{
	int i, first, err, ret = EXIT_OK;
	struct nl_ctx ctx;

	if (argc < 2) {
		fputs("usage: nlraw COMMAND [TYPE:KIND:VALUE]... [-- COMMAND ...]...\n", stderr);
		return EXIT_USAGE;
	}
	if (nl_open(&ctx))
		return EXIT_FAIL;
	for (first = i = 1; i <= argc; i++) {
		if (i < argc && strcmp(argv[i], "--"))
			continue;
		if (i == first) {
			fputs("nlraw: an empty request\n", stderr);
			ret = EXIT_USAGE;
			break;
		}
		err = request(&ctx, argv + first, i - first);
		if (err == EXIT_USAGE) {
			ret = err;
			break;
		}
		if (err)
			ret = err;
		first = i + 1;
	}
	nl_close(&ctx);
	return ret;
}
