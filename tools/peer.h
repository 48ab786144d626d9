/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The receiving end of a run on another host (peer.c).
 *
 * `ktgen run ... peer ssh://[user@]host[:port]` runs `ktgen -j peer serve`
 * there over ssh, no daemon of our own. That process applies the
 * receiver's knobs, adds the sink and says "ready ID RESETS [TOKEN]"; then
 * "start MS" on its stdin opens its measured window MS ms later (the run's
 * warm-up), and the end of its stdin closes it: it prints its document
 * (the sink, the window's receive rate and CPU, its knobs and counters),
 * deletes the sink, puts the knobs back and exits. The end of stdin is
 * also what ssh delivers when this side dies, so nothing outlives the run.
 */
#ifndef KTGEN_PEER_H
#define KTGEN_PEER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PEER_MAX_WORDS	256

struct json;

struct peer {
	const char	*url;		/* as given, for messages */
	char		dest[256];	/* [user@]host, for ssh */
	char		port[8];	/* "": ssh's default */
	/* peer-rx, peer-cpus, peer-rcvbuf: words of the sink's add */
	char		*sink_words[8];
	int		nsink;
	/* peer-knob: "knob IFNAME[@NETNS] KNOB..." groups */
	char		*knob_words[PEER_MAX_WORDS];
	int		nknob;
	/* what runs there: ktgen -j peer serve ... */
	char		*argv[PEER_MAX_WORDS + 24];
	int		argc;
	char		portnum[8];
	char		resp_max[16];
	pid_t		pid;
	int		to_fd, from_fd;
	uint32_t	sink_id;
	uint64_t	token;		/* its rr sink's, 0 for none */
	bool		resets;		/* a knob there reset its device */
	struct json	*doc;		/* its document, once it ended */
};

/* ssh://[user@]host[:port], host a name or an [IPv6] literal. 0, or -1
 * after a usage message.
 */
int peer_parse_url(struct peer *p, const char *url);
/* The words of a run's peer-rx, peer-cpus, peer-rcvbuf, peer-knob at
 * @argv: the number taken, 0 when argv[0] is none of them, -1 after a
 * usage message.
 */
int peer_parse_arg(struct peer *p, int argc, char **argv);
/* The sink for a run of @test to @port (@ipv6: to an IPv6 address), of
 * @req and @resp bytes (request/response tests: the sink is added rr, with
 * resp-max @resp when that is larger), checked here as `peer serve` will
 * check it. 0, or -1 after a message.
 */
int peer_prepare(struct peer *p, int test, uint16_t port, bool ipv6, uint32_t req,
		 uint32_t resp);

/* ssh there and wait until the sink is ready; a signal outside
 * @sigmask's set gives up. 0, or after a message PEER_UNTRUSTED when it
 * never said it was ready, PEER_FAILED for anything else.
 */
int peer_start(struct peer *p, const sigset_t *sigmask);
/* The run started: its window opens @warmup_ms from now. */
void peer_window(struct peer *p, uint32_t warmup_ms);
/*
 * The run ended: the peer's document into p->doc, the peer gone. 0;
 * PEER_FAILED after a message (the peer failed, or put something back
 * wrongly); PEER_UNTRUSTED when it gave nothing to believe: no result in
 * time, not a document, or one whose figures are not counts.
 */
#define PEER_FAILED	(-1)
#define PEER_UNTRUSTED	(-2)
int peer_finish(struct peer *p);
/*
 * Its sink's count held against what the run sent (@sent bytes): a sink
 * cannot receive more. 0, or PEER_UNTRUSTED after a message, its
 * document dropped.
 */
int peer_check_counts(struct peer *p, uint64_t sent);
/* "peer": its document in JSON; its sink, rate and CPU in text. */
void peer_print(const struct peer *p);
void peer_free(struct peer *p);

#endif /* KTGEN_PEER_H */
