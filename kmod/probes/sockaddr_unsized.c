// SPDX-License-Identifier: GPL-2.0
/* kernel_bind() and kernel_connect() take a struct sockaddr_unsized (6.19) */
#include <linux/net.h>
#include <linux/socket.h>

int ktg_probe(struct socket *sock, struct sockaddr_storage *ss);
int ktg_probe(struct socket *sock, struct sockaddr_storage *ss)
{
	return kernel_bind(sock, (struct sockaddr_unsized *)ss, sizeof(*ss));
}
