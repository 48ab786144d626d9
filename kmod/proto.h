/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a ktgen sender and a ktgen sink say to each other on the wire, and
 * the payload pattern every byte is checked against.
 */
#ifndef _KTG_PROTO_H
#define _KTG_PROTO_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#endif

#define KTG_MAGIC_HELLO		0x4b54474eU	/* "KTGN" */
#define KTG_MAGIC_DATA		0x4b544744U	/* "KTGD" */
#define KTG_MAGIC_CLOSE		0x4b544743U	/* "KTGC" */
#define KTG_MAGIC_REQ		0x4b544751U	/* "KTGQ" */
#define KTG_MAGIC_RESP		0x4b544752U	/* "KTGR" */
#define KTG_WIRE_VERSION	2	/* 2: a token in hellos and datagrams */

/* A TCP flow opens with a hello; the payload stream follows. A request/
 * response flow (tcp-rr) gives the sizes: every @req bytes of the stream
 * are a request, answered with @resp bytes (0 for streams). A sink answers
 * only if it was added for request/response, and with more bytes than a
 * request carried only to a sender that gives its @token (and up to the
 * sink's resp-max).
 */
struct ktg_hello {
	__be32	magic;
	__be16	version;
	__be16	test;
	__be64	cookie;		/* the sending run: unique on its host, random across hosts */
	__be32	flow;
	__be32	pattern_pages;	/* pages in the sender's pattern ring */
	__be32	req;
	__be32	resp;
	__be64	token;		/* the sink's, or 0 */
} __packed;

/* Each UDP datagram large enough starts with this; a closing datagram
 * (magic KTG_MAGIC_CLOSE) carries the flow's final count in @seq. A
 * request (KTG_MAGIC_REQ, udp-rr) asks for @resp bytes back, which start
 * with the same header (KTG_MAGIC_RESP, the request's flow and seq).
 */
struct ktg_dgram {
	__be32	magic;
	__be32	flow;
	__be64	cookie;
	__be64	seq;
	__be32	pattern_pages;
	__be32	resp;
	__be64	token;		/* requests: the sink's, or 0 */
} __packed;

/*
 * Payload byte at stream offset @off for a sender whose pattern ring has
 * @pages pages: every page differs from its neighbours and every byte from
 * its neighbours, so a page delivered twice, from the wrong place or at the
 * wrong offset does not match.
 */
#define KTG_PATTERN_SHIFT	12	/* 4 KiB pattern pages on any page size */
#define KTG_PATTERN_SIZE	BIT(KTG_PATTERN_SHIFT)

static inline u8 ktg_pattern_byte(u64 off, u32 pages)
{
	u32 page = (u32)((off >> KTG_PATTERN_SHIFT) % pages);
	u32 pos = off & (KTG_PATTERN_SIZE - 1);

	return (u8)(pos + (pos >> 8) * 3 + page * 37 + 1);
}

#endif /* _KTG_PROTO_H */
