# SPDX-License-Identifier: GPL-2.0
#
# ktgen: make            module for the running kernel (or KDIR) + CLI; installs nothing
#        make demo       the main job: copy-path comparison (in a VM here)
#        make check      every test: CLI unit tests, VM suites
#        make checkpatch kernel style over kmod/ and include/
#        make check-compat  W=1 builds and the smoke suite on 5.10, 6.1, 6.12, 7.2
#        make install    CLI, man pages, bash completion and module (DESTDIR, PREFIX)
#        make dkms-tarball  the module's sources for dkms ldtarball

VERSION		:= 0.1.0
GITREV		:= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
KTGEN_VERSION	:= $(VERSION)$(if $(GITREV),+g$(GITREV))
CACHE		?= $(HOME)/.cache/ktgen
export KTGEN_CACHE := $(CACHE)

# The running kernel's build tree, or the one KDIR names: a module is never
# built for a kernel that is not running unless KDIR says so. (The test
# lanes build for their own kernels: scripts/build-module.sh.)
KDIR ?= /lib/modules/$(shell uname -r)/build

KBUILD_OPTS	= -C $(KDIR) M=$(CURDIR) KTGEN_VERSION=$(KTGEN_VERSION) $(if $(W),W=$(W))

# Installation, as any netdev tool: the CLI and its documentation under
# PREFIX, the module under /lib/modules/KVER/$(INSTALL_MOD_DIR), all
# below DESTDIR when it is set.
PREFIX		?= /usr/local
SBINDIR		?= $(PREFIX)/sbin
MAN8DIR		?= $(PREFIX)/share/man/man8
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions
INSTALL_MOD_DIR	?= updates/ktgen
INSTALL		?= install
MAN_PAGES	:= $(notdir $(wildcard tools/man/*.8))
# What the module is installed as: compressed when the kernel's config says so.
MODULES		:= ktgen ktgen_nic
MODULE_FILES	:= $(foreach m,$(MODULES),$(m).ko $(m).ko.gz $(m).ko.xz $(m).ko.zst)
DKMS_TARBALL	?= ktgen-$(VERSION)-source-only.dkms.tar.gz

.PHONY: all deps module tools kdir-check clean checkpatch uapi check check-unit print-version \
	check-vm check-debug check-uml check-uapi check-compat demo bench bench-overhead bench-profile \
	bench-scale bench-rates bench-native bench-driver \
	install install-tools install-module uninstall uninstall-tools \
	uninstall-module dkms-tarball

all: module tools

# What the tests and the lab need (QEMU, kernels, chroots, python):
# make check and make demo run it; building ktgen does not.
deps:
	@scripts/install-deps.sh

module: kdir-check
	@scripts/compat-probe.sh $(KDIR) kmod
	$(MAKE) $(KBUILD_OPTS) modules

tools:
	$(MAKE) -C tools KTGEN_VERSION=$(KTGEN_VERSION)

# A missing kernel build tree is one line naming what to install.
kdir-check:
	@[ -f "$(KDIR)/Makefile" ] || { \
	  echo "ktgen: no kernel build tree at $(KDIR): install the running kernel's headers" \
	       "(Debian/Ubuntu: linux-headers-$$(uname -r); Fedora/RHEL: kernel-devel-$$(uname -r))" \
	       "or give KDIR=" >&2; exit 1; }

uapi: deps
	scripts/ynl-gen.sh ktgen include/uapi/linux/ktgen.h
	scripts/ynl-gen.sh ktgen_nic include/uapi/linux/ktgen_nic.h

# Sources only: not kbuild's *.mod.c nor the generated compat header.
CHECKPATCH_FILES = $(filter-out %.mod.c kmod/compat-gen.h, \
		   $(wildcard kmod/*.c kmod/*.h kmod/nic/*.c kmod/nic/*.h kmod/probes/*.c \
			      include/uapi/linux/*.h))

checkpatch: deps
	@scripts/checkpatch.sh $(CHECKPATCH_FILES)

# Tiers: host unit tests of the CLI (ASan/UBSan), the uapi header against its
# spec, then the KTAP VM suites on the stock and the debug kernel.
check: deps
	@scripts/check.sh

check-unit: deps
	$(MAKE) -C tools check KTGEN_VERSION=$(KTGEN_VERSION)

check-uapi: deps
	@scripts/check-uapi.sh

check-vm: deps
	@scripts/vm-suite.sh bookworm

check-debug: deps
	@scripts/vm-suite.sh bookworm-debug

# The native lane: User-Mode Linux, one CPU, real rates (docs/testing.md).
check-uml: deps
	@scripts/vm-suite.sh --smoke bookworm-uml

check-compat: deps
	@scripts/check-compat.sh

demo: deps
	@scripts/demo.sh

# ktgen against iperf3, netperf, sockperf and pktgen (bench/results.md), and
# what its own measurement costs; BENCH_PAIRS, BENCH_SECS size them.
BENCH_PAIRS	?= 5
BENCH_SECS	?= 3
BENCH_ROUNDS	?= 3

bench: deps
	@scripts/bench.sh $(BENCH_PAIRS) $(BENCH_SECS)

bench-overhead: deps
	@scripts/bench-overhead.sh

# Where a 64-byte UDP stream's cycles go (perf, software clock, in the VM):
# bench/profile-LINK-TOOL.txt. PROFILE_LINK veth|nic, PROFILE_TOOL
# ktgen|ktgen-gso|iperf3.
PROFILE_LINK	?= veth
PROFILE_TOOL	?= ktgen

bench-profile: deps
	@scripts/bench-profile.sh $(PROFILE_LINK) 4 $(PROFILE_TOOL)

# 1, 10, 100, 1000 flows: totals, fairness, memory per flow (bench/scale.md).
bench-scale: deps
	@scripts/bench-scale.sh $(BENCH_ROUNDS) $(BENCH_SECS)

# The highest stream rates under TCG and under User-Mode Linux, side by
# side (bench/rates.md).
bench-rates: deps
	@scripts/bench-rates.sh

# On User-Mode Linux's real caches: tx paths, rx modes and the virtual
# NIC's receive styles by service demand, one boot (bench/native.md).
bench-native: deps
	@scripts/bench-native.sh

# Seed 001 on a real driver: recipe 02 between two igb NICs of QEMU 10,
# under the icount clock, with each variant's receive path
# (bench/driver-icount/results.md).
bench-driver: deps
	@scripts/bench-driver.sh

# Installing builds what is missing but never installs build dependencies
# (make deps): a packaging build has its own.
install: install-tools install-module

install-tools:
	$(MAKE) -C tools KTGEN_VERSION=$(KTGEN_VERSION)
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MAN8DIR) $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 0755 tools/ktgen $(DESTDIR)$(SBINDIR)/ktgen
	$(INSTALL) -m 0644 $(addprefix tools/man/,$(MAN_PAGES)) $(DESTDIR)$(MAN8DIR)
	$(INSTALL) -m 0644 tools/completion/ktgen $(DESTDIR)$(BASHCOMPDIR)/ktgen

uninstall-tools:
	rm -f $(DESTDIR)$(SBINDIR)/ktgen $(addprefix $(DESTDIR)$(MAN8DIR)/,$(MAN_PAGES)) \
		$(DESTDIR)$(BASHCOMPDIR)/ktgen

# The module for KDIR's kernel (without KDIR, the running one), signed
# when there is a key for it (scripts/sign-module.sh: SIGN_KEY and
# SIGN_CERT, the kernel's own, DKMS's MOK): kbuild's own signing at
# modules_install needs the kernel's key, which distributions' headers
# do not ship.
# It is built as module builds it (the probes, then kbuild), but from kmod/
# itself: modules_install keeps a module's path below M=, and the module
# belongs in INSTALL_MOD_DIR, not in a kmod/ below it (after a make module,
# kbuild rebuilds the objects once for the other M=). kbuild's own depmod
# is held back (DEPMOD=true): it would write a modules.dep into DESTDIR,
# which uninstall could not tell from the kernel's.
KBUILD_INSTALL_OPTS = -C $(KDIR) M=$(CURDIR)/kmod KTGEN_VERSION=$(KTGEN_VERSION)

install-module: kdir-check
	@scripts/compat-probe.sh $(KDIR) kmod
	$(MAKE) $(KBUILD_INSTALL_OPTS) modules
	@for m in $(MODULES); do \
		SIGN_KEY="$(SIGN_KEY)" SIGN_CERT="$(SIGN_CERT)" scripts/sign-module.sh $(KDIR) kmod/$$m.ko || exit; \
	done
	$(MAKE) $(KBUILD_INSTALL_OPTS) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) DEPMOD=true modules_install
	@$(call depmod,$(call kver,$(KDIR)),$(KDIR))

# The modules' files, and INSTALL_MOD_DIR's directories once empty; for
# KDIR's kernel, or without KDIR the running one (its headers may be gone).
UNINSTALL_KVER = $(if $(filter file,$(origin KDIR)),$$(uname -r),$(call kver,$(KDIR)))

uninstall-module:
	@kver=$(UNINSTALL_KVER) && \
	moddir=$(DESTDIR)/lib/modules/$$kver && \
	echo "rm -f $(foreach m,$(MODULES),$$moddir/$(INSTALL_MOD_DIR)/$(m).ko*)" && \
	rm -f $(addprefix $$moddir/$(INSTALL_MOD_DIR)/,$(MODULE_FILES)) && \
	if [ -d "$$moddir/$(INSTALL_MOD_DIR)" ]; then \
		cd "$$moddir" && rmdir -p --ignore-fail-on-non-empty $(INSTALL_MOD_DIR); \
	fi
	@$(call depmod,$(UNINSTALL_KVER),$(if $(filter file,$(origin KDIR)),,$(KDIR)))

uninstall: uninstall-tools uninstall-module

# The release of the kernel in $1, as its modules' vermagic and kbuild's
# MODLIB have it (Debian's headers: not include/config/kernel.release).
kver = $$(sed -n 's/^.define UTS_RELEASE "\(.*\)"$$/\1/p' $(1)/include/generated/utsrelease.h)

# depmod for kernel release $1 (kernel tree $2, if any), or why not: with
# DESTDIR it is the target's to run (depmod -b DESTDIR would index our
# module alone), and without the kernel's System.map that kernel is not
# installed here.
depmod = kver=$(1) && \
	map=/boot/System.map-$$kver && \
	{ [ -r "$$map" ] || map=$(if $(2),$(2)/System.map,$$map); } && \
	if [ -n "$(DESTDIR)" ]; then \
		echo "depmod: skipped, DESTDIR is set (run depmod $$kver on the target)"; \
	elif [ ! -r "$$map" ]; then \
		echo "depmod: skipped, no System.map for $$kver (run depmod $$kver once it is installed)"; \
	else \
		echo "depmod -a -e -F $$map $$kver" && depmod -a -e -F "$$map" "$$kver"; \
	fi

# The module's sources, as dkms ldtarball takes them (dkms_source_tree/).
DKMS_FILES	= dkms.conf Kbuild scripts/compat-probe.sh include/uapi/linux/ktgen.h \
		  include/uapi/linux/ktgen_nic.h kmod/Kbuild \
		  $(filter-out %.mod.c kmod/compat-gen.h,$(wildcard kmod/*.[ch] kmod/nic/*.[ch])) \
		  $(wildcard kmod/probes/*.c kmod/probes/*.sym)

dkms-tarball:
	tar -czf $(DKMS_TARBALL) --sort=name --owner=0 --group=0 --numeric-owner \
		--transform 's,^,dkms_source_tree/,' $(DKMS_FILES)

clean:
	-[ ! -f "$(KDIR)/Makefile" ] || $(MAKE) $(KBUILD_OPTS) clean
	$(MAKE) -C tools clean
	rm -f kmod/compat-gen.h $(DKMS_TARBALL)

print-version:
	@echo $(KTGEN_VERSION)
