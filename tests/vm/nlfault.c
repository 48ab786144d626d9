// SPDX-License-Identifier: GPL-2.0
/*
 * nlfault: drive every allocation a ktgen request (or the module's load)
 * makes to fail, one at a time, with the task's fail-nth counter
 * (/proc/thread-self/fail-nth: the Nth fault-injection site this task
 * reaches fails, with failslab and fail_page_alloc set up by the caller).
 *
 *   nlfault [-s] [-r] request COMMAND [TYPE:KIND:VALUE]...
 *   nlfault load MODULE.ko
 *
 * -s deletes every sink and -r stops and deletes every run after each
 * attempt, for commands that create them.
 *
 * For N = 1, 2, ... until the Nth site is never reached: inject, run, and
 * require a clean outcome (success or an error, never a hang: receives time
 * out after 30 s), then require the same thing to work with no fault. Exit
 * 0 when every N behaved, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <linux/ktgen.h>

#include "ktgen.h"
#include "nl.h"
#include "attrspec.h"

struct opts opts;

#define MAX_NTH	20000

static int fail_nth_fd;

static void fail_nth_set(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(fail_nth_fd, buf, len, 0) != len) {
		perror("nlfault: fail-nth");
		exit(EXIT_FAIL);
	}
}

/* True when the armed fault was not reached (and disarm it). */
static bool fail_nth_unused(void)
{
	char buf[16] = "";
	bool unused;

	if (pread(fail_nth_fd, buf, sizeof(buf) - 1, 0) < 0) {
		perror("nlfault: fail-nth");
		exit(EXIT_FAIL);
	}
	unused = atoi(buf) != 0;
	fail_nth_set(0);
	return unused;
}

static bool cleanup_sinks, cleanup_runs;

static int simple(struct nl_ctx *ctx, uint8_t cmd, uint16_t attr)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, cmd, 0);

	mnl_attr_put(nlh, attr, 0, NULL);
	return nl_request(ctx, nlh, NULL, NULL, NULL);
}

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(*(unsigned int *)data)++;
	return MNL_CB_OK;
}

/* Leave nothing for the next attempt to trip over. */
static int cleanup(struct nl_ctx *ctx)
{
	unsigned int n, tries;

	if (cleanup_sinks && simple(ctx, KTGEN_CMD_SINK_DEL, KTGEN_A_SINK_ALL))
		return -1;
	if (!cleanup_runs)
		return 0;
	simple(ctx, KTGEN_CMD_RUN_STOP, KTGEN_A_RUN_ALL);
	for (tries = 0; tries < 300; tries++) {
		simple(ctx, KTGEN_CMD_RUN_DEL, KTGEN_A_RUN_ALL);
		n = 0;
		if (nl_request(ctx, nl_msg_start(ctx, KTGEN_CMD_RUN_GET, NLM_F_DUMP),
			       NULL, count_cb, &n))
			return -1;
		if (!n)
			return 0;
		usleep(100000);
	}
	return -1;
}

static int request(struct nl_ctx *ctx, uint8_t cmd, char **attrs, int nattrs)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, cmd, 0);
	int i;

	for (i = 0; i < nattrs; i++)
		if (attrspec_put(nlh, attrs[i]))
			return -EINVAL;
	return nl_request(ctx, nlh, NULL, NULL, NULL);
}

static int fault_requests(uint8_t cmd, char **attrs, int nattrs)
{
	unsigned int n, failed = 0, errors = 0;
	struct timeval tv = { .tv_sec = 30 };
	struct nl_ctx ctx;
	int err, quiet;

	if (nl_open(&ctx))
		return EXIT_FAIL;
	setsockopt(mnl_socket_get_fd(ctx.sock), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* Errors under injection are expected: keep them off stderr (a pipe
	 * write would be a fault site of its own).
	 */
	quiet = open("/dev/null", O_WRONLY);
	for (n = 1; n < MAX_NTH; n++) {
		int saved = dup(2);

		dup2(quiet, 2);
		fail_nth_set(n);
		err = request(&ctx, cmd, attrs, nattrs);
		if (fail_nth_unused()) {
			dup2(saved, 2);
			close(saved);
			cleanup(&ctx);
			if (err) {
				fprintf(stderr, "nlfault: failed with no fault: %s\n", strerror(-err));
				failed++;
			}
			break;
		}
		dup2(saved, 2);
		close(saved);
		if (err == -EAGAIN || err == -EINPROGRESS) {
			printf("# nth=%u: no answer within 30 s\n", n);
			failed++;
		}
		errors += !!err;
		if (err)
			printf("# nth=%u: %s\n", n, strerror(-err));
		/* The socket may hold a late answer: start afresh. */
		nl_close(&ctx);
		if (nl_open(&ctx) || cleanup(&ctx) || request(&ctx, cmd, attrs, nattrs) ||
		    cleanup(&ctx)) {
			printf("# nth=%u: the next attempt failed\n", n);
			failed++;
			break;
		}
		setsockopt(mnl_socket_get_fd(ctx.sock), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	nl_close(&ctx);
	close(quiet);
	printf("# command %u: %u fault sites, %u refused cleanly, %u bad\n",
	       cmd, n - 1, errors, failed);
	return failed || n >= MAX_NTH ? EXIT_FAIL : EXIT_OK;
}

static int fault_load(const char *path)
{
	unsigned int n, failed = 0, errors = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return EXIT_FAIL;
	}
	for (n = 1; n < MAX_NTH; n++) {
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
		if (!err && syscall(SYS_delete_module, "ktgen", O_NONBLOCK)) {
			printf("# nth=%u: loaded but cannot unload: %s\n", n, strerror(errno));
			failed++;
			break;
		}
		/* A clean failure leaves nothing behind: the module loads. */
		if (syscall(SYS_finit_module, fd, "", 0) ||
		    syscall(SYS_delete_module, "ktgen", O_NONBLOCK)) {
			printf("# nth=%u: the next load/unload failed: %s\n", n, strerror(errno));
			failed++;
			break;
		}
	}
	if (!failed && syscall(SYS_delete_module, "ktgen", O_NONBLOCK) && errno != ENOENT)
		failed++;
	close(fd);
	printf("# load: %u fault sites, %u refused cleanly, %u bad\n", n - 1, errors, failed);
	return failed || n >= MAX_NTH ? EXIT_FAIL : EXIT_OK;
}

int main(int argc, char **argv)
{
	uint64_t cmd;

	for (; argc > 1 && argv[1][0] == '-'; argc--, argv++) {
		if (!strcmp(argv[1], "-s"))
			cleanup_sinks = true;
		else if (!strcmp(argv[1], "-r"))
			cleanup_runs = true;
	}
	if (argc < 3) {
		fputs("usage: nlfault [-s] [-r] request COMMAND [TYPE:KIND:VALUE]... | load MODULE.ko\n",
		      stderr);
		return EXIT_USAGE;
	}
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fail_nth_fd < 0) {
		perror("nlfault: /proc/thread-self/fail-nth");
		return EXIT_FAIL;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "load"))
		return fault_load(argv[2]);
	if (!strcmp(argv[1], "request") && !parse_u64(argv[2], &cmd) && cmd < 256)
		return fault_requests(cmd, argv + 3, argc - 3);
	fputs("nlfault: bad arguments\n", stderr);
	return EXIT_USAGE;
}
