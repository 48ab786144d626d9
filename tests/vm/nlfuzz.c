// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: throw random and mutated generic netlink messages at the ktgen
 * family and check it still answers correctly afterwards.
 *
 *   nlfuzz [-s SEED] [-t SECONDS] [-n MESSAGES]
 *
 * Starting from valid requests of every command, each message gets a few
 * mutations: random or unknown commands, header flags (dump, echo,
 * reserved bits), genl version and reserved field, attributes of random
 * type, length and content, extreme integers, nesting with random
 * children, truncation, garbage after a valid start and several messages
 * in one send. Replies are drained without being trusted. Every 64
 * messages, and at the end, a valid GET_INFO must succeed. Exit 0 when the
 * family survived.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/ktgen.h>

#include "ktgen.h"
#include "nl.h"

struct opts opts;

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from the seed printed at start. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static unsigned int below(unsigned int n)
{
	return rnd() % n;
}

static const uint64_t extremes[] = {
	0, 1, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
	(1ULL << 20) - 1, 1ULL << 20, 64ULL << 30, (64ULL << 30) + 1,
	0x7fffffffffffffffULL, ~0ULL,
};

#define MSG_ROOM	4096	/* per message, of which ... */
#define MSG_SLACK	64	/* ... kept for garbage appended after build */

static void put_random_attr(struct nlmsghdr *nlh, int depth)
{
	const size_t room = MSG_ROOM - MSG_SLACK;
	unsigned char payload[96];
	uint16_t type = below(4) ? below(12) : rnd();
	size_t len, i;

	if (depth < 3 && !below(5)) {
		struct nlattr *nest = mnl_attr_nest_start_check(nlh, room, type & 0x3fff);
		unsigned int k = below(4);

		if (!nest)
			return;
		while (k--)
			put_random_attr(nlh, depth + 1);
		mnl_attr_nest_end(nlh, nest);
		return;
	}
	switch (below(4)) {
	case 0:
		mnl_attr_put_u64_check(nlh, room, type, extremes[below(ARRAY_SIZE(extremes))]);
		return;
	case 1:
		mnl_attr_put_u32_check(nlh, room, type, extremes[below(ARRAY_SIZE(extremes))]);
		return;
	default:
		len = below(sizeof(payload));
		for (i = 0; i < len; i++)
			payload[i] = below(3) ? rnd() : 0;
		mnl_attr_put_check(nlh, room, type, len, payload);
	}
}

/* One message at @buf, valid or not; returns the bytes to send. */
static size_t make_message(char *buf, uint16_t family, uint32_t seq)
{
	static const uint8_t cmds[] = {
		KTGEN_CMD_GET_INFO, KTGEN_CMD_GET_CONFIG, KTGEN_CMD_SET_CONFIG,
	};
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	unsigned int k;
	size_t len;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = below(8) ? cmds[below(ARRAY_SIZE(cmds))] : rnd();
	genl->version = below(8) ? KTGEN_FAMILY_VERSION : rnd();
	if (!below(16))
		genl->reserved = rnd();
	if (!below(6))
		nlh->nlmsg_flags |= below(2) ? NLM_F_DUMP : (uint16_t)rnd();
	if (genl->cmd == KTGEN_CMD_SET_CONFIG && below(2))
		mnl_attr_put_u64(nlh, KTGEN_A_CONFIG_BUFFER_BUDGET,
				 below(2) ? 1ULL << 30 : extremes[below(ARRAY_SIZE(extremes))]);
	for (k = below(4); k; k--)
		put_random_attr(nlh, 0);

	len = nlh->nlmsg_len;
	switch (below(10)) {
	case 0:		/* truncated: the header claims less than was built */
		nlh->nlmsg_len = below(len + 1);
		break;
	case 1:		/* garbage after a valid start, inside nlmsg_len */
		for (k = below(32) + 1; k; k--)
			buf[nlh->nlmsg_len++] = rnd();
		len = nlh->nlmsg_len;
		break;
	case 2:		/* the first attribute's length runs past the end */
		if (len > NLMSG_HDRLEN + GENL_HDRLEN + 4)
			((struct nlattr *)(buf + NLMSG_HDRLEN + GENL_HDRLEN))->nla_len += below(512);
		break;
	}
	return NLMSG_ALIGN(len);
}

static void drain(struct mnl_socket *sock, char *buf, int wait_ms)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(sock), .events = POLLIN };

	while (poll(&pfd, 1, wait_ms) > 0) {
		if (recv(pfd.fd, buf, 4 * MSG_ROOM, MSG_DONTWAIT) < 0 &&
		    errno != ENOBUFS)
			break;
		wait_ms = 0;
	}
}

/* A valid GET_INFO works, and (for a caller allowed to) the budget goes
 * back to its default.
 */
static int still_answers(void)
{
	struct nlmsghdr *nlh;
	struct nl_ctx ctx;
	int err;

	if (nl_open(&ctx))
		return -1;
	nlh = nl_msg_start(&ctx, KTGEN_CMD_GET_INFO, 0);
	err = nl_request(&ctx, nlh, &ktg_info_attrs, NULL, NULL);
	if (!err && !geteuid()) {
		nlh = nl_msg_start(&ctx, KTGEN_CMD_SET_CONFIG, 0);
		mnl_attr_put_u64(nlh, KTGEN_A_CONFIG_BUFFER_BUDGET, 1ULL << 30);
		err = nl_request(&ctx, nlh, &ktg_config_attrs, NULL, NULL);
	}
	nl_close(&ctx);
	return err;
}

int main(int argc, char **argv)
{
	unsigned long count = 0, limit = ~0UL, secs = 30;
	struct nl_ctx ctx;
	time_t deadline;
	char *buf;
	int c;

	rng_state = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((c = getopt(argc, argv, "s:t:n:")) != -1) {
		switch (c) {
		case 's':
			rng_state = strtoull(optarg, NULL, 0);
			break;
		case 't':
			secs = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			limit = strtoul(optarg, NULL, 0);
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (!rng_state)
		rng_state = 1;
	printf("# nlfuzz: seed %#llx\n", (unsigned long long)rng_state);
	fflush(stdout);
	if (nl_open(&ctx))
		return EXIT_FAIL;
	buf = malloc(4 * MSG_ROOM);
	if (!buf)
		return EXIT_FAIL;
	deadline = time(NULL) + secs;
	while (count < limit && time(NULL) < deadline) {
		size_t len = 0;
		unsigned int k;

		/* Sometimes several messages in one datagram. */
		for (k = below(8) ? 1 : 2 + below(3); k; k--)	/* at most 4 */
			len += make_message(buf + len, ctx.family, ++ctx.seq);
		if (send(mnl_socket_get_fd(ctx.sock), buf, len, 0) < 0 &&
		    errno != EINVAL && errno != ENOBUFS && errno != EMSGSIZE) {
			perror("nlfuzz: send");
			return EXIT_FAIL;
		}
		drain(ctx.sock, buf, 20);
		if (++count % 64 == 0 && still_answers()) {
			printf("# nlfuzz: the family stopped answering after %lu messages\n", count);
			return EXIT_FAIL;
		}
	}
	nl_close(&ctx);
	free(buf);
	if (still_answers()) {
		printf("# nlfuzz: the family stopped answering at the end\n");
		return EXIT_FAIL;
	}
	printf("# nlfuzz: %lu messages, the family still answers\n", count);
	return EXIT_OK;
}
