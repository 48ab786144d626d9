/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTGEN_ATTRSPEC_H
#define KTGEN_ATTRSPEC_H

#include <libmnl/libmnl.h>

/* Append the attribute TYPE:KIND:VALUE to @nlh; -EINVAL if malformed. */
int attrspec_put(struct nlmsghdr *nlh, const char *spec);

#endif
