#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sign-module.sh KDIR MODULE: sign MODULE for KDIR's kernel when there is a
# key for it, as kbuild and DKMS do, and say so when that kernel will
# refuse it unsigned. The key, in this order: SIGN_KEY and SIGN_CERT (a
# private key and its certificate, PEM or DER, enrolled with mokutil
# --import or built into the kernel); the kernel tree's own
# (certs/signing_key.pem, a self-built kernel); DKMS's MOK
# (/var/lib/dkms/mok.key, mok.pub; KTGEN_MOK_DIR for the tests). The hash is the kernel's
# (CONFIG_MODULE_SIG_HASH). Without a key nothing is signed; the kernel
# refuses unsigned modules with CONFIG_MODULE_SIG_FORCE, and, when it is
# the running one, under Secure Boot, lockdown or module.sig_enforce.
set -euo pipefail

kdir=${1:?KDIR} mod=${2:?MODULE}

config()
{
	local f

	for f in "$kdir/include/config/auto.conf" "$kdir/.config"; do
		[ -r "$f" ] && { sed -n "s/^$1=\"\{0,1\}\([^\"]*\)\"\{0,1\}$/\1/p" "$f"; return; }
	done
}

# Whether KDIR's kernel will refuse an unsigned module, and why.
enforced()
{
	local sb=/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e3e8c35d4e8c

	if [ "$(config CONFIG_MODULE_SIG_FORCE)" = y ]; then
		echo "its CONFIG_MODULE_SIG_FORCE"
	elif [ "$(readlink -f "$kdir")" = "$(readlink -f "/lib/modules/$(uname -r)/build")" ]; then
		if [ -r "$sb" ] && [ "$(od -An -tu1 -j4 -N1 "$sb" | tr -d ' ')" = 1 ]; then
			echo "Secure Boot"
		elif [ -r /sys/kernel/security/lockdown ] &&
		     ! grep -q '\[none\]' /sys/kernel/security/lockdown; then
			echo "lockdown"
		elif [ "$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)" = Y ]; then
			echo "module.sig_enforce"
		fi
	fi
}

key= cert= from=
if [ -n "${SIGN_KEY:-}" ] || [ -n "${SIGN_CERT:-}" ]; then
	key=${SIGN_KEY:?SIGN_KEY and SIGN_CERT go together}
	cert=${SIGN_CERT:?SIGN_KEY and SIGN_CERT go together}
	from="SIGN_KEY"
elif [ -r "$kdir/certs/signing_key.pem" ] && [ -r "$kdir/certs/signing_key.x509" ]; then
	key=$kdir/certs/signing_key.pem cert=$kdir/certs/signing_key.x509 from="the kernel's own key"
elif mok=${KTGEN_MOK_DIR:-/var/lib/dkms} && [ -r "$mok/mok.key" ] && [ -r "$mok/mok.pub" ]; then
	key=$mok/mok.key cert=$mok/mok.pub from="DKMS's MOK key"
fi

why=$(enforced)
if [ -z "$key" ]; then
	if [ -n "$why" ]; then
		echo "sign-module: $mod is not signed and this kernel loads only signed modules ($why):" \
		     "give SIGN_KEY= and SIGN_CERT= (a key enrolled with mokutil --import), or use DKMS" \
		     "(docs/install.md)" >&2
	fi
	exit 0
fi
if [ "$(config CONFIG_MODULE_SIG)" != y ]; then
	echo "sign-module: $kdir's kernel checks no module signatures: $mod left unsigned"
	exit 0
fi
[ -x "$kdir/scripts/sign-file" ] || {
	echo "sign-module: no $kdir/scripts/sign-file to sign with" >&2
	exit 1
}
hash=$(config CONFIG_MODULE_SIG_HASH)
"$kdir/scripts/sign-file" "${hash:-sha256}" "$key" "$cert" "$mod"
echo "sign-module: $mod signed with $from ($cert)"
