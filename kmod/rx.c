// SPDX-License-Identifier: GPL-2.0
/*
 * What a sink's receive paths (sink-tcp.c, sink-udp.c) share: counting on
 * the sink and on the sending run, the payload, whatever read it came
 * from (touch, copy, nocache, verify), and the responses a request may
 * have.
 */
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/uio.h>
#include <linux/ktgen.h>

#include "nocache.h"
#include "pattern.h"
#include "rx.h"
#include "sink.h"
#include "stats.h"
#include "worker.h"

/*
 * rx touch: read every byte of @data, four words a step into four sums (a
 * byte at a time cost 4.3x a memcpy of the same bytes on a native CPU, one
 * sum a word 1.2x: the loop's, not the memory's). READ_ONCE() and the sums
 * only keep the loads: nothing writes the data meanwhile.
 */
static unsigned long ktg_rx_touch(const u8 *data, size_t len)
{
	const unsigned long *w;
	unsigned long s[4] = {};
	size_t i = 0;

	for (; i < len && !IS_ALIGNED((unsigned long)(data + i), sizeof(long)); i++)
		s[0] += READ_ONCE(data[i]);
	w = (const unsigned long *)(data + i);
	for (; i + 4 * sizeof(long) <= len; i += 4 * sizeof(long), w += 4) {
		s[0] += READ_ONCE(w[0]);
		s[1] += READ_ONCE(w[1]);
		s[2] += READ_ONCE(w[2]);
		s[3] += READ_ONCE(w[3]);
	}
	for (; i + sizeof(long) <= len; i += sizeof(long))
		s[1] += READ_ONCE(*w++);
	for (; i < len; i++)
		s[2] += READ_ONCE(data[i]);
	return s[0] + s[1] + s[2] + s[3];
}

/*
 * Process @len payload bytes at stream offset @off that sit in @data (NULL
 * when the mode reads the skb itself through @seq).
 */
void ktg_rx_payload(struct ktg_sink *sink, struct ktg_rx_stats *rx,
		    u32 pages, u64 off, const u8 *data, size_t len,
		    struct ktg_worker *w)
{
	u64 bad, first = 0;

	switch (sink->p.rx_mode) {
	case KTGEN_RX_MODE_TOUCH:
		/* keep the loads */
		WRITE_ONCE(*(unsigned long *)w->buf, ktg_rx_touch(data, len));
		break;
	case KTGEN_RX_MODE_COPY:
		memcpy(w->buf, data, min_t(size_t, len, KTG_RX_BUF));
		break;
	case KTGEN_RX_MODE_NOCACHE:
		ktg_copy_nocache(w->buf, data, min_t(size_t, len, KTG_RX_BUF));
		break;
	case KTGEN_RX_MODE_VERIFY:
		if (!pages)
			break;
		bad = ktg_pattern_check(data, off, len, pages, &first);
		if (bad) {
			ktg_rx_verify_error(&sink->stats, bad, first);
			if (rx)
				ktg_rx_verify_error(rx, bad, first);
		}
		break;
	}
}

/*
 * May a request of @req bytes that carried @token be answered with @resp
 * bytes? Only by a sink added for request/response (rr), and with no more
 * than the request carried, or, when the request carries the sink's token
 * (never 0), up to the sink's resp-max. A peer that does not know the
 * token, whose source address may be forged, never gets more than it sent.
 */
bool ktg_sink_resp_allowed(const struct ktg_sink *sink, u64 req, u64 resp,
			   __be64 token)
{
	if (!sink->p.rr)
		return false;
	if (resp <= req)
		return true;
	return token && be64_to_cpu(token) == sink->token && resp <= sink->p.resp_max;
}

/* Response bytes from the zero page, up to 16 pages per call. */
int ktg_send_zeros(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct kvec iov[16];
	size_t left = len;
	int n = 0;

	while (left && n < ARRAY_SIZE(iov)) {
		iov[n].iov_base = page_address(ZERO_PAGE(0));
		iov[n].iov_len = min_t(size_t, left, PAGE_SIZE);
		left -= iov[n].iov_len;
		n++;
	}
	return kernel_sendmsg(sock, msg, iov, n, len - left);
}
